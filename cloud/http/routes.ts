import Router from '@koa/router';
import { routeTable } from '../../shared/routes.ts';
import { koaPath, type RouteHandlers } from '../../listener/http/route-table.ts';
import type { Middleware } from 'koa';
import type { CloudHealth } from '../../shared/index.ts';
import type * as z from 'zod';
import type { Clock } from '../../core/clock.ts';
import type { RateLimitConfig } from '../../listener/config.ts';
import { ServiceError } from '../../core/errors.ts';
import { readBodyText, readJsonBody, readJsonBodyWithNumberTexts } from '../../listener/http/json-body.ts';
import { limitRequests } from '../../listener/http/rate-limit.ts';
import type { CloudService } from '../cloud-service.ts';
import { STRIPE_WEBHOOK_MAX_BYTES, type StripeEventOutcome } from '../stripe-webhook.ts';
import { createSharedRateLimiter } from '../shared-rate-limiter.ts';
import { requireMerchantKey } from './auth.ts';
import type { Kysely } from 'kysely';
import type { CloudTables } from '../cloud.tables.ts';

export interface CloudRouteDeps {
  cloud: CloudService;
  db: Kysely<CloudTables>;
  clock: Clock;
  health: () => Promise<z.infer<typeof CloudHealth>>;
  invoiceRateLimit: number | null;
  signupRateLimit: RateLimitConfig;
  /** Stripe's event delivery (raw body + Stripe-Signature); null: card billing off. */
  stripeWebhook: ((rawBody: string, signature: string) => Promise<StripeEventOutcome>) | null;
}

const UNLIMITED = Number.MAX_SAFE_INTEGER;

/** A sliding window shared by every instance, keyed by what `keyOf` picks from the request (client IP, API key hash). */
function limited(
  deps: Pick<CloudRouteDeps, 'db' | 'clock'>,
  name: string,
  config: RateLimitConfig | null,
  keyOf: (ctx: Parameters<Middleware>[0]) => string,
  what: string,
): Middleware {
  if (config === null) return (_ctx, next) => next();
  return limitRequests(createSharedRateLimiter({ db: deps.db, clock: deps.clock, name, config }), keyOf, what);
}

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

/** Cloud's `/api/v1` routes by operation id (the documents and the checkout page are added by the app). */
export function cloudHandlers(deps: CloudRouteDeps): RouteHandlers {
  const keyed = requireMerchantKey(deps.db);
  const perKey = limited(
    deps,
    'invoice',
    deps.invoiceRateLimit === null ? null : { perClient: deps.invoiceRateLimit, overall: UNLIMITED },
    (ctx) => ctx.state.keyHash as string,
    'invoice requests for this API key',
  );
  const perIp = limited(deps, 'signup', deps.signupRateLimit, (ctx) => ctx.ip, 'signups');
  const { cloud } = deps;

  return {
    cloudSignup: [
      perIp,
      async (ctx) => {
        const body = await readJsonBody(ctx);
        ctx.status = 201;
        ctx.body = await cloud.signup(body);
      },
    ],
    cloudMe: [
      keyed,
      async (ctx) => {
        ctx.body = await cloud.me(ctx.state.merchant);
      },
    ],
    cloudListInvoices: [
      keyed,
      async (ctx) => {
        ctx.body = await cloud.listInvoices(ctx.state.merchant, ctx.query.limit);
      },
    ],
    cloudSetWebhook: [
      keyed,
      async (ctx) => {
        ctx.body = await cloud.setWebhook(ctx.state.merchant, await readJsonBody(ctx));
      },
    ],
    cloudPlans: (ctx) => {
      ctx.body = cloud.plans();
    },
    cloudBillingCheckout: [
      keyed,
      async (ctx) => {
        ctx.body = await cloud.billingCheckout(ctx.state.merchant, await readJsonBody(ctx));
      },
    ],
    cloudStripeWebhook: async (ctx) => {
      if (!deps.stripeWebhook) throw new ServiceError('method_unavailable', 'Card payments are not set up on this service.');
      // Verified over the exact bytes Stripe signed, so the body is read raw, never re-serialised.
      const rawBody = await readBodyText(ctx, STRIPE_WEBHOOK_MAX_BYTES);
      ctx.body = { received: true, outcome: await deps.stripeWebhook(rawBody, ctx.get('Stripe-Signature')) };
    },
    cloudCreateInvoice: [
      keyed,
      perKey,
      async (ctx) => {
        const { body, numberTexts } = await readJsonBodyWithNumberTexts(ctx);
        ctx.status = 201;
        ctx.body = await cloud.createInvoice(ctx.state.merchant, body, numberTexts);
      },
    ],
    cloudGetInvoice: [
      keyed,
      async (ctx) => {
        ctx.body = await cloud.getInvoice(ctx.state.merchant, ctx.params.id!);
      },
    ],
    cloudCheckoutView: [
      openCors,
      async (ctx) => {
        ctx.body = await cloud.checkout(ctx.params.id!);
      },
    ],
    cloudHealth: async (ctx) => {
      ctx.set('Cache-Control', 'no-store');
      ctx.body = await deps.health();
    },
  };
}
