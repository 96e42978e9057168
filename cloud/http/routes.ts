import { paymentStateFor, type PaymentStateSettings } from '../../mcp/payment-state.ts';
import Router from '@koa/router';
import { routeTable } from '../../shared/routes.ts';
import { koaPath, type RouteHandlers } from '../../edge/http/route-table.ts';
import type { Middleware } from 'koa';
import type { CloudHealth } from '../../shared/index.ts';
import type * as z from 'zod';
import type { Clock } from '../../core/clock.ts';
import type { InitializeRateLimit, RateLimitConfig } from '../../edge/settings.ts';
import { ServiceError } from '../../core/errors.ts';
import { readBodyText, readJsonBody, readJsonBodyWithNumberTexts } from '../../edge/http/json-body.ts';
import { callLimit, limitRequests, type CallLimit } from '../../edge/http/rate-limit.ts';
import type { CloudService } from '../cloud-service.ts';
import type { MerchantRow } from '../merchants/merchant.repository.ts';
import { STRIPE_WEBHOOK_MAX_BYTES, type StripeEventOutcome } from '../billing/stripe-webhook.ts';
import { createSharedRateLimiter } from './shared-rate-limiter.ts';
import { keyPrincipal, requireKeyScope, requireMerchantKey } from './auth.ts';
import { parseKeyLabel, parseKeyScopes } from '../keys/api-keys.ts';
import { findMerchant } from '../merchants/merchant.repository.ts';
import { oauthRouteHandlers, type EndpointOAuth } from '../../edge/oauth/endpoint-oauth.ts';
import { requireMcpCredentials } from '../../edge/oauth/protected-resource.ts';
import type { Kysely } from 'kysely';
import type { CloudTables } from '../storage/cloud.tables.ts';
import type { Logger } from '../../core/log.ts';
import { createMcpSessions, MCP_IDLE_MS } from '../../mcp/http-sessions.ts';
import { countMcpSessions, type ServiceMetrics } from '../../core/metrics.ts';
import { metricsHandler, type MetricsAccess } from '../../edge/http/metrics-endpoint.ts';
import { renderQrPng } from '../../mcp/qr.ts';
import type { StatusFeed } from '../../core/invoices/status-feed.ts';
import { feedUpdates } from '../../mcp/invoice-watch.ts';
import { initializeLimits, mcpHandlers } from '../../edge/http/mcp-endpoint.ts';
import { cloudMcpClient } from '../mcp-client.ts';
import { x402Handlers } from '../../edge/http/x402-endpoint.ts';
import type { X402Payments } from '../../core/x402/x402-payments.ts';
import { chainModules } from '../../core/chains/registry.ts';

export interface CloudRouteDeps {
  cloud: CloudService;
  db: Kysely<CloudTables>;
  clock: Clock;
  health: () => Promise<z.infer<typeof CloudHealth>>;
  invoiceRateLimit: number | null;
  signupRateLimit: RateLimitConfig;
  /** Stripe's event delivery (raw body + Stripe-Signature); null: card billing off. */
  stripeWebhook: ((rawBody: string, signature: string) => Promise<StripeEventOutcome>) | null;
  logger: Logger;
  documents: { openapi: string; llms: string };
  /** Browser origins allowed to call /api/v1/mcp. */
  mcpAllowedOrigins: readonly string[];
  mcpMaxSessions: number;
  mcpMaxSessionsPerOwner: number;
  mcpMaxListenStreams: number;
  /** A subscriptions/listen stream's lifetime, in ms (MCP_LISTEN_STREAM_MAX_S). */
  mcpListenStreamMaxMs: number;
  /** What MCP seals across requests and instances, for every merchant's servers (mcp/payment-state.ts). */
  mcpPaymentState: PaymentStateSettings;
  /** MCP sessions started per minute per merchant and per client address, in windows every instance shares; null: unlimited. */
  mcpInitializeRateLimit: InitializeRateLimit | null;
  metrics: ServiceMetrics;
  /** Who may read GET /metrics (METRICS_TOKEN, or callers on this host). */
  metricsAccess: MetricsAccess;
  /** The invoices' status changes: MCP subscriptions and wait_for_payment hear them here. */
  feed: Pick<StatusFeed, 'watch'>;
  /** The server's own browser origins (see ownOrigins). */
  isOwnOrigin(origin: string): boolean;
  /** OAuth for /api/v1/mcp. */
  oauth: EndpointOAuth;
  /** The invoices' x402 payment method (public, like the checkout view). */
  x402: X402Payments;
  /** Requests to the public x402 URLs, per client IP, in windows every instance shares. */
  x402Limit: CallLimit;
}

const UNLIMITED = Number.MAX_SAFE_INTEGER;

/** A sliding window shared by every instance; `what` names the limited calls in the refusal. */
function limited(deps: Pick<CloudRouteDeps, 'db' | 'clock'>, name: string, config: RateLimitConfig | null, what: string, spareNewClients = false): CallLimit {
  return callLimit(config && createSharedRateLimiter({ db: deps.db, clock: deps.clock, name, config, spareNewClients }), what);
}

/**
 * Sign-ups per client IP and overall, in windows every instance shares: the API's and the
 * dashboard's count together. The overall window never refuses an address's first sign-up of the
 * minute, so addresses filling it cannot stop everyone else from signing up.
 */
export const signupLimit = (deps: Pick<CloudRouteDeps, 'db' | 'clock' | 'signupRateLimit'>): CallLimit => limited(deps, 'signup', deps.signupRateLimit, 'signups', true);

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

/** What the table declares a keyed route needs of its key: a scope, or null for a full-access key. */
function keyScopeOf(operationId: string): string | null {
  const { scope } = routeTable.find((route) => route.operationId === operationId)!;
  if (scope === 'full-access') return null;
  if (scope === 'invoices:read' || scope === 'invoices:write') return scope;
  throw new Error(`${operationId} takes a merchant key but declares the scope ${scope}`);
}

/** Cloud's `/api/v1` routes by operation id (the documents and the checkout page are added by the app). */
export function cloudHandlers(deps: CloudRouteDeps): RouteHandlers {
  const requireKey = requireMerchantKey(deps.db);
  // The key, then the scope its route declares in the table.
  const keyed = (operationId: string) => [requireKey, requireKeyScope(keyScopeOf(operationId))];
  const invoiceLimit = limited(
    deps,
    'invoice',
    deps.invoiceRateLimit === null ? null : { perClient: deps.invoiceRateLimit, overall: UNLIMITED },
    'invoice requests for this API key',
  );
  const perKey = limitRequests(invoiceLimit, (ctx) => ctx.state.keyHash as string);
  const perIp = limitRequests(signupLimit(deps), (ctx) => ctx.ip);
  const { cloud } = deps;
  const logger = deps.logger.child({ component: 'mcp' });
  const sessions = createMcpSessions({ maxSessions: deps.mcpMaxSessions, maxSessionsPerOwner: deps.mcpMaxSessionsPerOwner, idleMs: MCP_IDLE_MS, logger });
  countMcpSessions(deps.metrics, () => sessions.size);
  const onToolCall = (tool: string, outcome: 'ok' | 'error') => deps.metrics.mcpToolCalls.inc({ tool, outcome });
  const mcp = mcpHandlers({
    sessions,
    allowedOrigins: deps.mcpAllowedOrigins,
    isOwnOrigin: deps.isOwnOrigin,
    oauth: () => deps.oauth.oauth(),
    authorize: requireMcpCredentials({
      principalOfKey: async (ctx, key) => {
        const found = key ? await keyPrincipal(deps.db, key) : null;
        if (found) Object.assign(ctx.state, { merchant: found.merchant, keyHash: found.keyHash });
        return found?.principal ?? null;
      },
      oauth: () => deps.oauth.oauth(),
      adopt: async (ctx, principal) => {
        const merchant = await findMerchant(deps.db, principal.accountId);
        // Creates count per grant, as per key over HTTP.
        if (merchant) Object.assign(ctx.state, { merchant, keyHash: `oauth:${principal.grantId}` });
        return merchant !== undefined;
      },
      touched: deps.oauth.touched,
    }),
    ownerOf: (ctx) => (ctx.state.merchant as MerchantRow).merchant_id,
    listen: { maxStreams: deps.mcpMaxListenStreams, maxStreamsPerOwner: deps.mcpMaxSessionsPerOwner, streamMaxMs: deps.mcpListenStreamMaxMs },
    logger,
    initializeLimits: initializeLimits(deps.mcpInitializeRateLimit, (name, config) => createSharedRateLimiter({ db: deps.db, clock: deps.clock, name, config })),
    serverDeps: (ctx) => ({
      listener: cloudMcpClient({ ...deps, merchant: ctx.state.merchant, keyHash: ctx.state.keyHash, limit: invoiceLimit, logger }),
      updates: feedUpdates(deps.feed, ctx.state.merchant.merchant_id),
      chains: [...chainModules.values()], renderQr: renderQrPng,
      logger,
      onToolCall,
      paymentState: paymentStateFor(deps.mcpPaymentState, (ctx.state.merchant as MerchantRow).merchant_id),
    }),
  });

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
      ...keyed('cloudMe'),
      async (ctx) => {
        ctx.body = await cloud.me(ctx.state.merchant);
      },
    ],
    cloudCreateKey: [
      ...keyed('cloudCreateKey'),
      async (ctx) => {
        const body = (await readJsonBody(ctx)) as { label?: unknown; scopes?: unknown };
        const label = parseKeyLabel(body?.label);
        const scopes = parseKeyScopes(body?.scopes);
        if (label === null || scopes === null) throw new ServiceError('invalid_key_request', 'label must be 1-60 characters; scopes, when given, a non-empty list of invoices:read and invoices:write.');
        const issued = await cloud.issueApiKey(ctx.state.merchant, label, scopes.scopes);
        ctx.status = 201;
        ctx.body = { api_key: issued.key, key_prefix: issued.prefix, label: issued.label, scopes: issued.scopes };
      },
    ],
    cloudListInvoices: [
      ...keyed('cloudListInvoices'),
      async (ctx) => {
        ctx.body = await cloud.listInvoices(ctx.state.merchant, ctx.query.limit);
      },
    ],
    cloudSetWebhook: [
      ...keyed('cloudSetWebhook'),
      async (ctx) => {
        ctx.body = await cloud.setWebhook(ctx.state.merchant, await readJsonBody(ctx));
      },
    ],
    cloudPlans: (ctx) => {
      ctx.body = cloud.plans();
    },
    cloudBillingCheckout: [
      ...keyed('cloudBillingCheckout'),
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
      ...keyed('cloudCreateInvoice'),
      perKey,
      async (ctx) => {
        const { body, numberTexts } = await readJsonBodyWithNumberTexts(ctx);
        ctx.status = 201;
        ctx.body = await cloud.createInvoice(ctx.state.merchant, body, numberTexts);
      },
    ],
    cloudGetInvoice: [
      ...keyed('cloudGetInvoice'),
      async (ctx) => {
        ctx.body = await cloud.getInvoice(ctx.state.merchant, ctx.params.id!);
      },
    ],
    cloudX402: x402Handlers(deps.x402, deps.x402Limit),
    cloudCheckoutView: [
      openCors,
      async (ctx) => {
        ctx.body = await cloud.checkout(ctx.params.id!);
      },
    ],
    getMetrics: metricsHandler(deps.metrics, deps.metricsAccess),
    cloudHealth: async (ctx) => {
      ctx.set('Cache-Control', 'no-store');
      ctx.body = await deps.health();
    },
    cloudMcpPost: mcp.post,
    cloudMcpGet: mcp.get,
    cloudMcpDelete: mcp.delete,
    ...oauthRouteHandlers(deps.oauth, 'cloudOauthProtectedResourceMcp'),
  };
}
