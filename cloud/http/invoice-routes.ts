import Router from '@koa/router';
import type { Middleware } from 'koa';
import { routeTable } from '../../shared/routes.ts';
import { koaPath, type RouteHandlers } from '../../edge/http/route-table.ts';
import { readJsonBodyWithNumberTexts } from '../../edge/http/json-body.ts';
import { limitRequests, type CallLimit } from '../../edge/http/rate-limit.ts';
import { x402Handlers } from '../../edge/http/x402-endpoint.ts';
import { invoiceListHandler } from '../../edge/http/invoice-list-endpoint.ts';
import type { Clock } from '../../core/clock.ts';
import type { Logger } from '../../core/log.ts';
import type { X402Payments } from '../../core/x402/x402-payments.ts';
import type { InvoiceService } from '../invoices/invoice-service.ts';
import type { PublicInvoices } from '../invoices/public-invoices.ts';
import type { KeyedRoute } from './auth.ts';
import type { MerchantRow } from '../merchants/merchant.repository.ts';

/** Anyone's page may read the public checkout view: it holds display fields only. */
const openCors: Middleware = async (ctx, next) => {
  ctx.set('Access-Control-Allow-Origin', '*');
  ctx.set('Access-Control-Allow-Methods', 'GET, OPTIONS');
  ctx.set('Access-Control-Allow-Headers', 'Content-Type');
  await next();
};

/** The browser's CORS preflight of the public checkout view: plumbing of that route, not an operation. */
export function checkoutPreflight(): Router {
  const { path } = routeTable.find((route) => route.operationId === 'cloudCheckoutView')!;
  return new Router().options(koaPath(path), openCors, (ctx) => {
    ctx.status = 204;
  });
}

/** The merchant's own invoices (creates limited per key), and the public views and x402 payment of any invoice. */
export function invoiceHandlers(deps: {
  invoices: InvoiceService;
  publicInvoices: PublicInvoices;
  keyed: KeyedRoute;
  invoiceLimit: CallLimit;
  x402: X402Payments;
  x402Limit: CallLimit;
  /** The x402 requests' shares by the invoice's merchant (x402ShareLimit). */
  x402ShareLimit: CallLimit;
  clock: Clock;
  logger: Logger;
}): RouteHandlers {
  const { invoices, keyed } = deps;
  return {
    cloudListInvoices: [
      ...keyed('cloudListInvoices'),
      invoiceListHandler({ lists: invoices.lists, exports: invoices.exports, clock: deps.clock, logger: deps.logger, merchantOf: (ctx) => (ctx.state.merchant as MerchantRow).merchant_id }),
    ],
    cloudCreateInvoice: [
      ...keyed('cloudCreateInvoice'),
      limitRequests(deps.invoiceLimit, (ctx) => ctx.state.keyHash as string),
      async (ctx) => {
        const { body, numberTexts } = await readJsonBodyWithNumberTexts(ctx);
        ctx.status = 201;
        ctx.body = await invoices.create(ctx.state.merchant, body, numberTexts);
      },
    ],
    cloudGetInvoice: [
      ...keyed('cloudGetInvoice'),
      async (ctx) => {
        ctx.body = await invoices.get(ctx.state.merchant, ctx.params.id!);
      },
    ],
    cloudX402: x402Handlers(deps.x402, deps.x402Limit, deps.x402ShareLimit),
    cloudCheckoutView: [
      openCors,
      async (ctx) => {
        ctx.body = await deps.publicInvoices.checkoutView(ctx.params.id!);
      },
    ],
  };
}
