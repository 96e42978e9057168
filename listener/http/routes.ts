import { paymentStateFor, type PaymentStateSettings } from '../../mcp/payment-state.ts';
import type { Health } from '../../shared/index.ts';
import type { InvoiceService } from '../../core/invoices/invoice.service.ts';
import type { InvoiceLists } from '../../core/invoices/invoice-list.ts';
import { exportSlots, invoiceListHandler } from '../../edge/http/invoice-list-endpoint.ts';
import { keyMatcher, requireApiKey } from './api-key.ts';
import { oauthRouteHandlers, type EndpointOAuth } from '../../edge/oauth/endpoint-oauth.ts';
import { requireMcpCredentials } from '../../edge/oauth/protected-resource.ts';
import type { Principal } from '../../edge/oauth/scopes.ts';
import { readJsonBodyWithNumberTexts } from '../../edge/http/json-body.ts';
import { documentHandlers } from '../../edge/http/serve.ts';
import { invoiceLimit, limitRequests, type CallLimit } from '../../edge/http/rate-limit.ts';
import { createRateLimiter, memoryWindows } from '../../edge/http/sliding-window.ts';
import { x402Handlers } from '../../edge/http/x402-endpoint.ts';
import type { X402Payments } from '../../core/x402/x402-payments.ts';
import type { RouteHandlers } from '../../edge/http/route-table.ts';
import type { Clock } from '../../core/clock.ts';
import type { InitializeRateLimit, RateLimitConfig } from '../../edge/settings.ts';
import type { Logger } from '../../core/log.ts';
import { createMcpSessions, MCP_IDLE_MS } from '../../mcp/http-sessions.ts';
import { renderQrPng } from '../../mcp/qr.ts';
import { feedUpdates } from '../../mcp/invoice-watch.ts';
import type { StatusFeed } from '../../core/invoices/status-feed.ts';
import type { CheckoutSource } from '../../edge/checkout/checkout-source.ts';
import { listenerMcpClient } from '../mcp-client.ts';
import { initializeLimits, mcpHandlers } from '../../edge/http/mcp-endpoint.ts';
import { metricsHandler, type MetricsAccess } from '../../edge/http/metrics-endpoint.ts';
import { countMcpSessions, type ServiceMetrics } from '../../core/metrics.ts';
import type { ChainModule } from '../../core/invoices/chain-module.ts';

export interface RouteDeps {
  invoices: InvoiceService;
  /** Finding the merchant's invoices (GET /invoices). */
  lists: InvoiceLists;
  /** The listener's chains: the MCP texts and tools and the checkout page speak of them. */
  chains: readonly ChainModule[];
  health: () => Promise<Health>;
  documents: { openapi: string; llms: string };
  apiKey: string | null;
  rateLimit: RateLimitConfig | null;
  clock: Clock;
  logger: Logger;
  /** Browser origins allowed to call /mcp. */
  mcpAllowedOrigins: readonly string[];
  mcpMaxSessions: number;
  mcpMaxSessionsPerOwner: number;
  mcpMaxListenStreams: number;
  /** A subscriptions/listen stream's lifetime, in ms (MCP_LISTEN_STREAM_MAX_S). */
  mcpListenStreamMaxMs: number;
  /** What MCP seals across requests, for every credential's servers (mcp/payment-state.ts). */
  mcpPaymentState: PaymentStateSettings;
  /** MCP sessions started per minute per credential and per client address; null: unlimited. */
  mcpInitializeRateLimit: InitializeRateLimit | null;
  metrics: ServiceMetrics;
  /** Who may read GET /metrics (METRICS_TOKEN, or callers on this host). */
  metricsAccess: MetricsAccess;
  /** The checkout page's source (also what MCP Apps hosts show of an invoice). */
  checkout: CheckoutSource;
  /** The invoices' status changes: MCP subscriptions and wait_for_payment hear them here. */
  feed: Pick<StatusFeed, 'watch'>;
  merchantId: string;
  /** The server's own browser origins (see ownOrigins). */
  isOwnOrigin(origin: string): boolean;
  /** OAuth for /mcp; null without SERVICE_API_KEY (nothing to sign in with). */
  oauth: EndpointOAuth | null;
  /** The invoices' x402 payment method. */
  x402: X402Payments;
  /** Requests to the public x402 URLs, per client IP. */
  x402Limit: CallLimit;
}

const LISTENER: Principal = { accountId: 'listener', scopes: null, via: 'key' };

/** The credential a listener request stands for: the key, or the OAuth grant its token was issued under. */
const credentialOf = (principal: Principal): string => (principal.via === 'oauth' ? `grant:${principal.grantId}` : 'key');

/** The listener's own API routes by operation id (the checkout's come from the checkout module). */
export function listenerHandlers(deps: RouteDeps): RouteHandlers {
  const documents = documentHandlers(deps.documents);
  const limit = invoiceLimit(deps.rateLimit, deps.clock);
  const logger = deps.logger.child({ component: 'mcp' });
  const sessions = createMcpSessions({ maxSessions: deps.mcpMaxSessions, maxSessionsPerOwner: deps.mcpMaxSessionsPerOwner, idleMs: MCP_IDLE_MS, logger });
  countMcpSessions(deps.metrics, () => sessions.size);
  const onToolCall = (tool: string, outcome: 'ok' | 'error') => deps.metrics.mcpToolCalls.inc({ tool, outcome });
  const updates = feedUpdates(deps.feed, deps.merchantId);
  const keyMatches = deps.apiKey === null ? () => true : keyMatcher(deps.apiKey);
  const oauth = async () => (deps.oauth ? deps.oauth.oauth() : null);
  const mcp = mcpHandlers({
    sessions,
    allowedOrigins: deps.mcpAllowedOrigins,
    isOwnOrigin: deps.isOwnOrigin,
    oauth,
    authorize: requireMcpCredentials({
      principalOfKey: async (_ctx, key) => (keyMatches(key) ? LISTENER : null),
      oauth,
      touched: deps.oauth?.touched,
    }),
    // Each credential owns its sessions, within its own bound: the key (or, without one, every
    // caller) and each OAuth grant, whose tokens stay the same credential across refreshes.
    ownerOf: (ctx) => credentialOf(ctx.state.principal as Principal),
    listen: { maxStreams: deps.mcpMaxListenStreams, maxStreamsPerOwner: deps.mcpMaxSessionsPerOwner, streamMaxMs: deps.mcpListenStreamMaxMs },
    logger,
    initializeLimits: initializeLimits(deps.mcpInitializeRateLimit, (name, config) => createRateLimiter({ store: memoryWindows(), clock: deps.clock, name, config })),
    serverDeps: (ctx) => ({
      listener: listenerMcpClient({ ...deps, limit, client: ctx.ip, logger }),
      updates,
      chains: deps.chains, renderQr: renderQrPng,
      logger,
      onToolCall,
      paymentState: paymentStateFor(deps.mcpPaymentState, credentialOf(ctx.state.principal as Principal)),
    }),
  });
  return {
    createInvoice: [
      limitRequests(limit, (ctx) => ctx.ip),
      requireApiKey(deps.apiKey),
      async (ctx) => {
        const { body, numberTexts } = await readJsonBodyWithNumberTexts(ctx);
        ctx.status = 201;
        ctx.body = await deps.invoices.create(body, numberTexts);
      },
    ],
    listInvoices: [requireApiKey(deps.apiKey), invoiceListHandler({ lists: deps.lists, exports: exportSlots(), clock: deps.clock, logger: deps.logger, merchantOf: () => deps.merchantId })],
    getInvoice: async (ctx) => {
      ctx.body = await deps.invoices.get(ctx.params.id!);
    },
    getX402: x402Handlers(deps.x402, deps.x402Limit),
    getHealth: async (ctx) => {
      ctx.set('Cache-Control', 'no-store');
      ctx.body = await deps.health();
    },
    getOpenApi: documents.openapi,
    getLlmsTxt: documents.llms,
    getMetrics: metricsHandler(deps.metrics, deps.metricsAccess),
    mcpPost: mcp.post,
    mcpGet: mcp.get,
    mcpDelete: mcp.delete,
    ...oauthRouteHandlers(deps.oauth, 'oauthProtectedResourceMcp'),
  };
}
