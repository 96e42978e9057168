import Router from '@koa/router';
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
import type { Tables } from '../../core/db/tables.ts';

export interface CloudRouteDeps {
  cloud: CloudService;
  db: Kysely<Tables>;
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

export function cloudRoutes(deps: CloudRouteDeps): Router {
  const router = new Router({ prefix: '/api/v1' });
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

  router.post('/signup', perIp, async (ctx) => {
    const body = await readJsonBody(ctx);
    ctx.status = 201;
    ctx.body = await cloud.signup(body);
  });
  router.get('/me', keyed, async (ctx) => {
    ctx.body = await cloud.me(ctx.state.merchant);
  });
  router.get('/invoices', keyed, async (ctx) => {
    ctx.body = await cloud.listInvoices(ctx.state.merchant, ctx.query.limit);
  });
  router.post('/webhook', keyed, async (ctx) => {
    ctx.body = await cloud.setWebhook(ctx.state.merchant, await readJsonBody(ctx));
  });
  router.get('/plans', (ctx) => {
    ctx.body = cloud.plans();
  });
  router.post('/billing/checkout', keyed, async (ctx) => {
    ctx.body = await cloud.billingCheckout(ctx.state.merchant, await readJsonBody(ctx));
  });
  router.post('/billing/stripe-webhook', async (ctx) => {
    if (!deps.stripeWebhook) throw new ServiceError('method_unavailable', 'Card payments are not set up on this service.');
    // Verified over the exact bytes Stripe signed, so the body is read raw, never re-serialised.
    const rawBody = await readBodyText(ctx, STRIPE_WEBHOOK_MAX_BYTES);
    ctx.body = { received: true, outcome: await deps.stripeWebhook(rawBody, ctx.get('Stripe-Signature')) };
  });
  router.post('/invoice', keyed, perKey, async (ctx) => {
    const { body, numberTexts } = await readJsonBodyWithNumberTexts(ctx);
    ctx.status = 201;
    ctx.body = await cloud.createInvoice(ctx.state.merchant, body, numberTexts);
  });
  router.get('/invoice/:id', keyed, async (ctx) => {
    ctx.body = await cloud.getInvoice(ctx.state.merchant, ctx.params.id);
  });
  const openCors: Middleware = async (ctx, next) => {
    ctx.set('Access-Control-Allow-Origin', '*');
    ctx.set('Access-Control-Allow-Methods', 'GET, OPTIONS');
    ctx.set('Access-Control-Allow-Headers', 'Content-Type');
    await next();
  };
  router.options('/checkout/:id', openCors, (ctx) => {
    ctx.status = 204;
  });
  router.get('/checkout/:id', openCors, async (ctx) => {
    ctx.body = await cloud.checkout(ctx.params.id);
  });
  router.get('/health', async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = await deps.health();
  });
  return router;
}
