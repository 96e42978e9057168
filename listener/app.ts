import type { Server } from 'node:http';
import type { ChainName, Health } from '../shared/index.ts';
import { buildLlmsTxt } from '../shared/llms.ts';
import { buildOpenApiDocument } from '../shared/openapi.ts';
import type { Fetch } from '../core/net/fetch.ts';
import { systemClock, type Clock } from '../core/clock.ts';
import { configSecrets, type Config } from './config.ts';
import { ConfigError } from '../edge/settings.ts';
import { coreSchema, type CoreDatabase } from '../core/schema.ts';
import { startEngine } from '../core/engine.ts';
import { fixedSubscriptions } from '../core/events/lifecycle-events.ts';
import { mergeChainHealth, type ChainWatch, type ListenerChainParts, type ChainTunings } from '../core/chain-runtime.ts';
import { chainIn, familySettings, type ConfiguredChain } from '../core/chain-definition.ts';
import { enabledAssets } from '../core/enabled-assets.ts';
import { createHttpApp } from './http/app.ts';
import { keyMatcher } from './http/api-key.ts';
import { ownOrigins } from '../edge/http/mcp-endpoint.ts';
import { createRateLimiter, memoryWindows } from '../edge/http/sliding-window.ts';
import { callLimit } from '../edge/http/rate-limit.ts';
import { endpointOAuth, oauthLimiters, type EndpointOAuth } from '../edge/oauth/endpoint-oauth.ts';
import { systemResolver, type Resolver } from '../core/net/webhook-target.ts';
import { createListenerCheckoutSource } from './checkout/listener-checkout-source.ts';
import { paymentStateSettings } from '../mcp/payment-state.ts';
import { bindHttp, closeServer } from '../edge/http/serve.ts';
import { metricsLoopbackOpen } from '../edge/http/metrics-endpoint.ts';
import { merchantInvoices } from '../core/invoices/invoice.service.ts';
import { createInvoiceLists } from '../core/invoices/invoice-list.ts';
import type { StatusFeed } from '../core/invoices/status-feed.ts';
import { createLogger, type Logger } from '../core/log.ts';
import { createServiceMetrics, type ServiceMetrics } from '../core/metrics.ts';
import { countDeliveries } from '../core/webhooks/delivery-store.ts';
import { singleMerchantRoute, type WebhookDeliveryDeps } from '../core/webhooks/start-delivery.ts';
import { createX402Payments, type X402Payments } from '../core/x402/x402-payments.ts';
import { settlerKeyProblem } from '../core/x402/settler-key.ts';
import { x402Chains, x402Health, x402Observer, x402PaymentSettings, x402UrlUnder, type X402ChainSettings } from '../core/x402/x402-runtime.ts';
import type { Engine } from '../core/engine.ts';
import type { CoreTables } from '../core/schema.ts';

export interface ListenerDeps {
  clock?: Clock;
  logger?: Logger;
  database?: CoreDatabase;
  /** Network access of the chain sources. */
  fetch?: Fetch;
  /** The longest wait between two expiry sweeps (default: a minute; they also run at each invoice's expiry). */
  expirySweepMs?: number;
  webhooks?: WebhookDeliveryDeps;
  /** The metrics registry GET /metrics serves (default: a new one of its own). */
  metrics?: ServiceMetrics;
  /** Watcher and receiver tuning by chain or family (poll interval, fixed-address nonce digits) for tests and benchmarks. */
  tuning?: ChainTunings;
  /** DNS of the OAuth Client ID Metadata Document fetches (the webhook URL guard's). */
  resolve?: Resolver;
  /** Tests only: metadata documents may be on loopback, served with a certificate of this authority. */
  cimdAllowLoopback?: boolean;
  cimdCa?: string;
}

export interface RunningListener {
  url: string;
  server: Server;
  database: CoreDatabase;
  /** The chain watchers by chain, for tests and benchmarks that wait on a chain. */
  watches: ReadonlyMap<ChainName, ChainWatch>;
  /** The invoices' status changes, as this listener publishes and hears them. */
  feed: StatusFeed;
  /**
   * Stops taking requests; those under way and the webhook attempts in flight get `graceMs` to
   * finish (0: cut at once), then everything closes.
   */
  stop(options?: { graceMs?: number }): Promise<void>;
}

/** Chain-watcher state for /health; watchers replace the idle values. */
export interface ChainStatus {
  ws_connected: boolean;
  subscribed_count: number;
  last_event_at: string | null;
  last_block_height: number | null;
}

const isLoopbackHost = (host: string) => /^(localhost|127(\.\d{1,3}){3}|::1|\[::1\])$/.test(host);

const idleChainStatus = (): ChainStatus => ({ ws_connected: false, subscribed_count: 0, last_event_at: null, last_block_height: null });

/** The listener's chain watchers: one per configured chain that has a source to watch. */
function listenerWatchers(chains: readonly ConfiguredChain[], partsFor: (chain: string) => ListenerChainParts) {
  const watches = chains.map(({ definition, settings }) => definition.listener.watch(settings, partsFor(definition.chain))).filter((watch) => watch !== null);
  return {
    watches,
    start() {
      for (const watch of watches) watch.start();
    },
    async stop() {
      for (const watch of watches) await watch.stop();
    },
    problems: () => watches.map((watch) => watch.problem()).filter((problem) => problem != null),
    progress: () => watches.map((watch) => ({ chain: watch.chain, progress: watch.progress() })),
  };
}

type ListenerEngine = Engine<CoreTables>;

/** The engine, readied for the configured chains (an address claimed, a key's older id adopted) before anything serves. */
function startListenerEngine(config: Config, deps: ListenerDeps, shared: { clock: Clock; logger: Logger; metrics: ServiceMetrics; x402Url: () => X402Payments | null }) {
  const { clock, logger, metrics } = shared;
  return startEngine({
    chains: config.chainDefinitions,
    clock,
    logger,
    metrics,
    databaseUrl: config.databaseUrl,
    schema: coreSchema(config.chainDefinitions),
    databaseWaitS: config.databaseWaitS,
    database: deps.database,
    async prepare(db) {
      // One after the other, so the first chain's problem is the one told.
      for (const { definition, settings } of config.chains) {
        const problem = await definition.listener.prepare(db, settings, { clock, logger });
        if (problem) throw new ConfigError([problem]);
      }
      // After the chains': the merchant's fixed addresses are claimed by then.
      const settlerProblem = await settlerKeyProblem(db, config.x402, config.chains, 'listener');
      if (settlerProblem) throw new ConfigError([settlerProblem]);
    },
    expirySweepMs: deps.expirySweepMs,
    sourceBudgets: config.sourceBudgets,
    webhooks: () => singleMerchantRoute(config),
    webhookEvents: fixedSubscriptions(config.merchantId, config.webhookEvents),
    webhookDeps: deps.webhooks,
    x402Url: (invoice) => shared.x402Url()?.x402Url(invoice) ?? null,
    loopbackReturnLinks: config.nodeEnv !== 'production',
    rates: config.rates,
    fetch: deps.fetch,
  });
}

/** The x402 settlement of the chains that take it (the EVM chains with settlement set up). */
function listenerX402(config: Config, engine: ListenerEngine, x402: ReturnType<typeof x402Chains>, publicBase: () => string | null): X402Payments {
  const { db, clock, logger, metrics } = engine;
  return createX402Payments({
    db,
    clock,
    logger,
    chains: x402,
    find: (invoiceId) => engine.invoices.find(config.merchantId, invoiceId),
    paidSoFar: (row) => chainIn(config.chainDefinitions, row.chain).paidSoFar(db, row),
    invoice: (row) => engine.invoices.get(row.merchant_id, row.invoice_id),
    resourceUrl: (invoiceId) => {
      const base = publicBase();
      return base ? x402UrlUnder(base, '', invoiceId) : null;
    },
    observer: x402Observer(metrics),
    ...x402PaymentSettings(config.x402),
  });
}

/** GET /health: the engine's part, the webhook counts, every watched chain's report, x402's. */
function listenerHealth(config: Config, engine: ListenerEngine, watches: readonly ChainWatch[], x402: ReturnType<typeof x402Chains>) {
  const { db, clock, logger } = engine;
  const startedAt = clock.now();
  return async (): Promise<Health> => {
    const shared = await engine.health();
    let ok = shared.ok;
    let webhookCounts: Health['webhooks'] = { queued: 0, failing: 0, failed: 0 };
    if (shared.answered) {
      try {
        webhookCounts = await countDeliveries(db, config.merchantId);
      } catch (error) {
        ok = false;
        logger.warn('health: database check failed', { error });
      }
    }
    const chainHealth = mergeChainHealth(watches.map((watch) => watch.health()));
    const x402Section = shared.answered ? await x402Health(x402, db, { now: clock.now(), budget: config.x402.gasBudget, merchantId: config.merchantId }).catch(() => null) : null;
    return {
      ok,
      problems: shared.problems,
      ...idleChainStatus(),
      // The first watched chain's in the chains' order (Bitcoin's when it is watched): see docs/self-hosting.md, "Health".
      ...chainHealth.headline,
      uptime_s: Math.round((clock.now() - startedAt) / 100) / 10,
      webhooks: webhookCounts,
      enabled_assets: enabledAssets(config.chains),
      ...chainHealth.sections,
      chain_sources: shared.chain_sources,
      ...(shared.rate_sources && { rate_sources: shared.rate_sources }),
      ...(x402Section && { x402: x402Section }),
    };
  };
}

/** OAuth for /mcp, when there is a key to sign in with; grants approved with an earlier SERVICE_API_KEY end now. */
async function listenerOAuth(config: Config, deps: ListenerDeps, engine: ListenerEngine, publicBase: () => string | null): Promise<EndpointOAuth | null> {
  if (!config.apiKey) return null;
  const { db, clock, logger } = engine;
  let currentKeyId: Promise<string> | null = null;
  const listenerKeyId = (): Promise<string> => (currentKeyId ??= oauth.store.keyFingerprint(config.apiKey!));
  const oauth: EndpointOAuth = endpointOAuth({
    mcpPath: '/mcp',
    baseUrl: publicBase,
    db,
    clock,
    logger,
    trustProxy: config.trustProxy,
    // A grant records an HMAC of the key that approved it: after SERVICE_API_KEY changes, the
    // grants approved with the old key no longer refresh or reach /mcp.
    accountOfKey: async (key) => (keyMatcher(config.apiKey!)(key) ? { accountId: 'listener', keyId: await listenerKeyId() } : null),
    keyIsLive: async (keyId) => keyId === (await listenerKeyId()),
    keyLabel: 'the SERVICE_API_KEY',
    appsPage: true,
    cimdPolicy: { resolve: deps.resolve ?? systemResolver, allowLoopback: deps.cimdAllowLoopback ?? false, ca: deps.cimdCa },
    limiters: oauthLimiters((name, limits, spareNewClients) => createRateLimiter({ store: memoryWindows(), clock, name, config: limits, spareNewClients }), { perClient: 20, overall: 200 }),
  });
  const ended = await oauth.store.revokeGrantsNotApprovedWith(await listenerKeyId());
  if (ended) logger.info('OAuth grants approved with a previous SERVICE_API_KEY ended', { grants: ended });
  return oauth;
}

interface ListenerHttpParts {
  engine: ListenerEngine;
  invoices: ReturnType<typeof merchantInvoices>;
  payments: X402Payments;
  health: () => Promise<Health>;
  oauth: EndpointOAuth | null;
  publicBase: () => string | null;
  onLoopback: boolean;
}

/** The HTTP API, the MCP endpoint and the checkout page over the listener's parts. */
function listenerHttpApp(config: Config, { engine, invoices, payments, health, oauth, publicBase, onLoopback }: ListenerHttpParts) {
  const { db, clock, logger, metrics, feed } = engine;
  return createHttpApp({
    invoices,
    lists: createInvoiceLists({ db, clock, chains: config.chainDefinitions, expireIfLapsed: engine.invoices.expireIfLapsed }),
    chains: config.chainDefinitions,
    x402: payments,
    x402Limit: callLimit(config.x402RateLimit && createRateLimiter({ store: memoryWindows(), clock, name: 'x402', config: config.x402RateLimit }), 'x402 requests'),
    health,
    documents: { openapi: JSON.stringify(buildOpenApiDocument(), null, 2), llms: buildLlmsTxt() },
    apiKey: config.apiKey,
    rateLimit: config.rateLimit,
    clock,
    logger,
    trustProxy: config.trustProxy,
    mcpAllowedOrigins: config.mcpAllowedOrigins,
    mcpMaxSessions: config.mcpMaxSessions,
    mcpMaxSessionsPerOwner: config.mcpMaxSessionsPerOwner,
    mcpMaxListenStreams: config.mcpMaxListenStreams,
    mcpListenStreamMaxMs: config.mcpListenStreamMaxMs,
    // The checkout page of an invoice is served here, at its public URL.
    mcpPaymentState: paymentStateSettings(config.mcpStateSecret ?? undefined, (invoiceId) => {
      const base = publicBase();
      return base ? `${base}/pay/${invoiceId}` : null;
    }),
    mcpInitializeRateLimit: config.mcpInitializeRateLimit,
    metrics,
    httpBounds: config.httpBounds,
    metricsAccess: { token: config.metricsToken, loopbackOpen: metricsLoopbackOpen(onLoopback, config.publicUrl) },
    feed,
    merchantId: config.merchantId,
    isOwnOrigin: ownOrigins(config.publicUrl, onLoopback),
    oauth,
    checkout: createListenerCheckoutSource({
      invoices,
      chains: config.chainDefinitions,
      db,
      merchantId: config.merchantId,
      clock,
      shopName: config.shopName,
      explorers: Object.fromEntries(config.chains.map(({ definition, settings }) => [definition.chain, definition.listener.explorerUrl(settings)])),
      x402Url: (invoice) => payments.x402Url(invoice),
    }),
  });
}

/** Builds the whole listener from a validated config and starts serving. */
export async function startListener(config: Config, deps: ListenerDeps = {}): Promise<RunningListener> {
  const clock = deps.clock ?? systemClock;
  const logger = deps.logger ?? createLogger({ clock, secrets: configSecrets(config) });
  const metrics = deps.metrics ?? createServiceMetrics();
  const { chains } = config;
  const x402 = x402Chains(config.x402, familySettings<X402ChainSettings>(chains, 'evm'), deps.fetch ?? fetch);
  // Built once the engine is (it reads invoices through it); the engine asks it for x402_url.
  let payments: X402Payments | null = null;
  // The port first: one that cannot be bound ends the start before the database, webhook delivery
  // or a watcher starts (a second instance on the same data must not run beside the first).
  const bound = await bindHttp(config.port, config.host, { logger, bounds: config.httpBounds });
  // PUBLIC_URL, or the loopback URL served: OAuth's issuer and the x402 URLs.
  const onLoopback = isLoopbackHost(config.host);
  const publicBase = () => config.publicUrl ?? (onLoopback ? bound.url : null);
  const engine = await startListenerEngine(config, deps, { clock, logger, metrics, x402Url: () => payments }).catch(async (error: unknown) => {
    await closeServer(bound.server);
    throw error;
  });
  const { database, db, feed } = engine;
  payments = listenerX402(config, engine, x402, publicBase);
  const partsFor = (chain: string): ListenerChainParts => ({
    db,
    feed,
    clock,
    logger,
    metrics,
    budgets: engine.budgets,
    fetch: deps.fetch ?? fetch,
    merchantId: config.merchantId,
    worker: () => engine.worker(chain),
    tuning: deps.tuning ?? {},
  });
  const watchers = listenerWatchers(chains, partsFor);
  const receivers = Object.fromEntries(await Promise.all(chains.map(async ({ definition, settings }) => [definition.chain, await definition.listener.receiver(settings, partsFor(definition.chain))])));
  const invoices = merchantInvoices(engine.invoices, { merchantId: config.merchantId, receivers });
  const health = listenerHealth(config, engine, watchers.watches, x402);
  const oauth = await listenerOAuth(config, deps, engine, publicBase);
  const app = listenerHttpApp(config, { engine, invoices, payments, health, oauth, publicBase, onLoopback });

  bound.serve(app);
  const { server, url } = bound;
  if (oauth && !config.publicUrl && !onLoopback) logger.warn('OAuth for /mcp is off: set PUBLIC_URL to the URL clients reach this server at');
  logger.info('listener started', {
    url,
    database: database.dialect,
    chains: Object.fromEntries(chains.map(({ definition, settings }) => [definition.chain, definition.listener.network(settings)])),
    api_key: config.apiKey ? 'set' : 'unset (POST /invoice is open: development only)',
    webhook_url: config.webhook?.url ?? 'unset (events are stored, not sent)',
  });
  engine.lead({ watchers });

  return {
    url,
    server,
    database,
    watches: new Map(watchers.watches.map((watch) => [watch.chain, watch])),
    feed,
    async stop(options = {}) {
      await closeServer(server, options.graceMs);
      oauth?.close();
      await engine.stop(options.graceMs);
      logger.info('listener stopped');
    },
  };
}
