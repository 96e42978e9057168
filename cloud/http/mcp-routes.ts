import type { Kysely } from 'kysely';
import type { RouteHandlers } from '../../edge/http/route-table.ts';
import type { Clock } from '../../core/clock.ts';
import type { Logger } from '../../core/log.ts';
import type { StatusFeed } from '../../core/invoices/status-feed.ts';
import { countMcpSessions, type ServiceMetrics } from '../../core/metrics.ts';
import type { X402Payments } from '../../core/x402/x402-payments.ts';
import type { InitializeRateLimit } from '../../edge/settings.ts';
import type { CallLimit } from '../../edge/http/rate-limit.ts';
import { initializeLimits, mcpHandlers } from '../../edge/http/mcp-endpoint.ts';
import { oauthRouteHandlers, type EndpointOAuth } from '../../edge/oauth/endpoint-oauth.ts';
import { requireMcpCredentials } from '../../edge/oauth/protected-resource.ts';
import { createMcpSessions, MCP_IDLE_MS } from '../../mcp/http-sessions.ts';
import { feedUpdates } from '../../mcp/invoice-watch.ts';
import { paymentStateFor, type PaymentStateSettings } from '../../mcp/payment-state.ts';
import { renderQrPng } from '../../mcp/qr.ts';
import type { CloudService } from '../cloud-service.ts';
import { cloudMcpClient } from '../mcp-client.ts';
import { findMerchant, type MerchantRow } from '../merchants/merchant.repository.ts';
import type { CloudTables } from '../storage/cloud.tables.ts';
import { keyPrincipal } from './auth.ts';
import { shareBounds, tierOf, type FairShareSettings } from '../billing/plan-shares.ts';
import { createSharedRateLimiter } from './shared-rate-limiter.ts';
import type { ChainModule } from '../../core/invoices/chain-module.ts';

export interface McpRouteDeps {
  cloud: CloudService;
  /** The chains Cloud serves: the MCP texts and tools speak of them. */
  chains: readonly ChainModule[];
  db: Kysely<CloudTables>;
  clock: Clock;
  logger: Logger;
  documents: { openapi: string; llms: string };
  /** Browser origins allowed to call /api/v1/mcp. */
  mcpAllowedOrigins: readonly string[];
  mcpMaxSessions: number;
  mcpMaxSessionsPerOwner: number;
  mcpMaxListenStreams: number;
  /** A subscriptions/listen stream's lifetime, in ms (MCP_LISTEN_STREAM_MAX_S). */
  mcpListenStreamMaxMs: number;
  /** How sessions and listen streams are shared between merchants by plan (CLOUD_FAIR_SHARE_RESERVE, CLOUD_MCP_SESSIONS_PER_PLAN). */
  fairShares: FairShareSettings;
  /** What MCP seals across requests and instances, for every merchant's servers (mcp/payment-state.ts). */
  mcpPaymentState: PaymentStateSettings;
  /** MCP sessions started per minute per merchant and per client address, in windows every instance shares; null: unlimited. */
  mcpInitializeRateLimit: InitializeRateLimit | null;
  metrics: ServiceMetrics;
  /** The invoices' status changes: MCP subscriptions and wait_for_payment hear them here. */
  feed: Pick<StatusFeed, 'watch'>;
  /** The server's own browser origins (see ownOrigins). */
  isOwnOrigin(origin: string): boolean;
  /** OAuth for /api/v1/mcp. */
  oauth: EndpointOAuth;
  /** The invoices' x402 payment method (public, like the checkout view). */
  x402: X402Payments;
}

/** Signed in with an API key or an OAuth grant; the merchant's (and the key's or grant's) on ctx.state. */
function mcpCredentials(deps: Pick<McpRouteDeps, 'db' | 'oauth'>) {
  return requireMcpCredentials({
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
  });
}

/** /api/v1/mcp: each merchant's MCP server over the Cloud service; creates share `invoiceLimit` with HTTP. */
export function mcpRouteHandlers(deps: McpRouteDeps, invoiceLimit: CallLimit): RouteHandlers {
  const logger = deps.logger.child({ component: 'mcp' });
  const sessions = createMcpSessions({
    maxSessions: deps.mcpMaxSessions,
    maxSessionsPerOwner: deps.mcpMaxSessionsPerOwner,
    shares: shareBounds(deps.fairShares, deps.mcpMaxSessions),
    idleMs: MCP_IDLE_MS,
    logger,
  });
  countMcpSessions(deps.metrics, () => sessions.size);
  const onToolCall = (tool: string, outcome: 'ok' | 'error') => deps.metrics.mcpToolCalls.inc({ tool, outcome });
  const mcp = mcpHandlers({
    sessions,
    allowedOrigins: deps.mcpAllowedOrigins,
    isOwnOrigin: deps.isOwnOrigin,
    oauth: () => deps.oauth.oauth(),
    authorize: mcpCredentials(deps),
    ownerOf: (ctx) => (ctx.state.merchant as MerchantRow).merchant_id,
    // The plan as of this request: a merchant that upgrades gets its new cap on its next session.
    tierOf: (ctx) => tierOf(deps.fairShares.mcpSessions, ctx.state.merchant as MerchantRow, deps.clock.now()),
    listen: {
      maxStreams: deps.mcpMaxListenStreams,
      maxStreamsPerOwner: deps.mcpMaxSessionsPerOwner,
      streamMaxMs: deps.mcpListenStreamMaxMs,
      shares: shareBounds(deps.fairShares, deps.mcpMaxListenStreams),
    },
    logger,
    initializeLimits: initializeLimits(deps.mcpInitializeRateLimit, (name, config) => createSharedRateLimiter({ db: deps.db, clock: deps.clock, name, config })),
    serverDeps: (ctx) => ({
      listener: cloudMcpClient({ ...deps, merchant: ctx.state.merchant, keyHash: ctx.state.keyHash, limit: invoiceLimit, logger }),
      updates: feedUpdates(deps.feed, ctx.state.merchant.merchant_id),
      chains: deps.chains,
      renderQr: renderQrPng,
      logger,
      onToolCall,
      paymentState: paymentStateFor(deps.mcpPaymentState, (ctx.state.merchant as MerchantRow).merchant_id),
    }),
  });
  return {
    cloudMcpPost: mcp.post,
    cloudMcpGet: mcp.get,
    cloudMcpDelete: mcp.delete,
    ...oauthRouteHandlers(deps.oauth, 'cloudOauthProtectedResourceMcp'),
  };
}
