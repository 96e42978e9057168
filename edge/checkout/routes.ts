import Router, { type RouterMiddleware } from '@koa/router';
import type { Context } from 'koa';
import { ServiceError } from '../../core/errors.ts';
import type { Logger } from '../../core/log.ts';
import { loadCheckoutAssets, type CheckoutAsset } from './assets.ts';
import type { CheckoutSource } from './checkout-source.ts';
import { checkoutEvents, type WatchInvoice } from './events.ts';
import { pageQrTexts, renderCheckoutErrorPage, renderCheckoutPage, type PageAssets, type PageChain } from './page.ts';
import { chainNamed } from '../../core/invoices/chain-module.ts';
import { renderQrSvg } from './qr-svg.ts';
import { streamSlots } from './stream-slots.ts';
import type { HttpBounds } from '../settings.ts';
import type { FairShareBounds, ShareTenant } from '../../core/fair-shares.ts';

export interface CheckoutRouteOptions {
  source: CheckoutSource;
  /** The chains the service runs: each page speaks of its invoice as the invoice's chain says. */
  chains: readonly (PageChain & { chain: string })[];
  logger: Logger;
  /** The JSON view the page polls is `${viewPrefix}/:id` (Cloud: `/api/v1/checkout`), its live stream `${viewPrefix}/:id/events`. */
  viewPrefix?: string;
  /** Where the live stream hears that an invoice's status changed (the status feed). */
  watch: WatchInvoice;
  /** The live streams' caps and lifetime (CHECKOUT_STREAMS_PER_CLIENT, CHECKOUT_STREAMS_MAX, CHECKOUT_STREAM_MAX_S). */
  streams: Pick<HttpBounds, 'streamsPerClient' | 'streamsTotal' | 'streamMaxMs'>;
  /** Cloud: the streams' fair shares between the invoices' merchants by plan (core/fair-shares.ts). */
  shares?: { bounds: FairShareBounds; tenantOf(invoiceId: string): Promise<ShareTenant> };
}

/**
 * Only this origin's own files and JSON: no inline script or style, no third-party anything, no
 * framing (a framed payment page invites clickjacking).
 */
export const CHECKOUT_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Headers of a server-rendered page: its CSP, no framing, no sniffing, never cached. */
export function setHtmlPageHeaders(ctx: Context, csp: string, referrerPolicy: string) {
  ctx.set('Content-Security-Policy', csp);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('Referrer-Policy', referrerPolicy);
  ctx.set('Cache-Control', 'no-store');
  ctx.type = 'text/html; charset=utf-8';
}

// The page URL carries the invoice id: explorer links must not receive it.
const setPageHeaders = (ctx: Context) => setHtmlPageHeaders(ctx, CHECKOUT_CSP, 'no-referrer');

/** A content-hashed static file: cached for a year, its name changes with its content. */
export function serveHashedAsset(ctx: Context, asset: CheckoutAsset) {
  ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.type = asset.type;
  ctx.body = asset.body;
}

export interface CheckoutRoutes {
  /** The JSON view the page polls (table route `getCheckoutView` on the listener). */
  view: RouterMiddleware;
  /** The view as Server-Sent Events (table route `getCheckoutEvents`, Cloud's `cloudCheckoutEvents`). */
  events: RouterMiddleware;
  /** The HTML page (table route `getCheckoutPage`). */
  page: RouterMiddleware;
  /** The page's two static files and the favicon: not API, so outside the route table. */
  assets: Router;
}

/** The hosted checkout page, its JSON view and its static files, over any CheckoutSource. */
export function checkoutRoutes(options: CheckoutRouteOptions): CheckoutRoutes {
  // Beside the page, which the route table puts at `/pay/{id}`.
  const pagePrefix = '/pay';
  const viewPrefix = options.viewPrefix ?? '/checkout';
  const assets = loadCheckoutAssets();
  const pageAssets: PageAssets = {
    cssUrl: `${pagePrefix}/assets/${assets.css.name}`,
    cssIntegrity: assets.css.integrity,
    jsUrl: `${pagePrefix}/assets/${assets.js.name}`,
    jsIntegrity: assets.js.integrity,
  };
  const byName = new Map([assets.css, assets.js].map((asset) => [asset.name, asset]));
  const assetRouter = new Router();

  assetRouter.get(`${pagePrefix}/assets/:file`, (ctx) => {
    const asset = byName.get(ctx.params.file!);
    if (asset) serveHashedAsset(ctx, asset);
  });

  // Browsers ask for it with every page: an empty answer keeps a 404 out of the payer's console.
  assetRouter.get('/favicon.ico', (ctx) => {
    ctx.status = 204;
    ctx.set('Cache-Control', 'public, max-age=86400');
  });

  return {
    assets: assetRouter,
    events: checkoutEvents({
      view: (invoiceId) => options.source.view(invoiceId),
      watch: options.watch,
      logger: options.logger,
      slots: streamSlots({ perClient: options.streams.streamsPerClient, total: options.streams.streamsTotal, shares: options.shares?.bounds }),
      tenantOf: options.shares?.tenantOf,
      maxMs: options.streams.streamMaxMs,
    }),
    async view(ctx) {
      ctx.set('Access-Control-Allow-Origin', '*');
      ctx.set('Cache-Control', 'no-store');
      ctx.body = await options.source.view(ctx.params.id!);
    },
    async page(ctx) {
      setPageHeaders(ctx);
      try {
        const view = await options.source.view(ctx.params.id!);
        const qrTexts = pageQrTexts(view);
        const qrSvg = qrTexts.onchain ? await renderQrSvg(qrTexts.onchain) : '';
        const lightningQrSvg = qrTexts.lightning ? await renderQrSvg(qrTexts.lightning) : undefined;
        ctx.body = renderCheckoutPage(view, {
          chain: chainNamed(options.chains, view.chain),
          viewUrl: `${viewPrefix}/${encodeURIComponent(view.invoice_id)}`,
          qrSvg,
          lightningQrSvg,
          assets: pageAssets,
        });
      } catch (error) {
        if (error instanceof ServiceError && error.code === 'not_found') {
          ctx.status = 404;
          ctx.body = renderCheckoutErrorPage('Invoice not found', 'There is no invoice at this address. Check the link you were given.', pageAssets);
          return;
        }
        if (!(error instanceof ServiceError)) ((ctx.state.log as Logger | undefined) ?? options.logger).error('checkout page failed', { error, stack: (error as Error)?.stack });
        ctx.status = 500;
        ctx.body = renderCheckoutErrorPage('Invoice unavailable', 'This invoice cannot be shown right now. Reload the page in a moment.', pageAssets);
      }
    },
  };
}
