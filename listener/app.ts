import type { Server } from 'node:http';
import type { Health } from '../shared/index.ts';
import { buildLlmsTxt } from '../shared/llms.ts';
import { buildOpenApiDocument } from '../shared/openapi.ts';
import { btcReceiver } from '../core/btc/btc-adapter.ts';
import { btcModule } from '../core/btc/btc-module.ts';
import { evmSpecOf } from '../core/base/evm-chains.ts';
import { btcWatchingFor } from '../core/btc/chain-source-factory.ts';
import type { Fetch } from '../core/btc/chain-source.ts';
import { adoptKeyIdentity, peekNextChildIndex } from '../core/invoices/invoice.repository.ts';
import { createBtcWatcher, type BtcWatcher } from '../core/btc/watcher.ts';
import { merchantScope } from '../core/btc/btc-payment.repository.ts';
import { systemClock, type Clock } from '../core/clock.ts';
import { configSecrets, type Config } from './config.ts';
import { ConfigError } from '../edge/settings.ts';
import { coreSchema, type CoreDatabase, type CoreTables } from '../core/schema.ts';
import { startEngine, type EngineParts } from '../core/engine.ts';
import { createReceiveAddressBook } from '../core/btc/receive-address-book.ts';
import { enabledAssets } from '../core/enabled-assets.ts';
import { claimOwnFixedAddress } from '../core/base/address-claims.ts';
import { baseReceiver } from '../core/base/base-adapter.ts';
import { EVM_ADDRESS_COUNTER } from '../core/base/base-invoices.ts';
import { baseChainStatus, baseHealth } from '../core/base/base-health.ts';
import { createRpcSource } from '../core/base/rpc.ts';
import { createBaseWatcher } from '../core/base/watcher.ts';
import { merchantBaseScope } from '../core/base/base-transfer.repository.ts';
import { createHttpApp } from './http/app.ts';
import { keyMatcher } from './http/api-key.ts';
import { ownOrigins } from '../edge/http/mcp-endpoint.ts';
import { createRateLimiter, memoryWindows } from '../edge/http/sliding-window.ts';
import { endpointOAuth } from '../edge/oauth/endpoint-oauth.ts';
import { systemResolver, type Resolver } from '../core/net/webhook-target.ts';
import { createListenerCheckoutSource } from './checkout/listener-checkout-source.ts';
import { closeServer, serveHttp } from '../edge/http/serve.ts';
import { merchantInvoices } from '../core/invoices/invoice.service.ts';
import type { StatusFeed } from '../core/invoices/status-feed.ts';
import { createLogger, type Logger } from '../core/log.ts';
import { createServiceMetrics, watchObserver, type ServiceMetrics } from '../core/metrics.ts';
import { countDeliveries } from '../core/webhooks/delivery-store.ts';
import { singleMerchantRoute, type WebhookDeliveryDeps } from '../core/webhooks/start-delivery.ts';

export interface ListenerDeps {
  clock?: Clock;
  logger?: Logger;
  database?: CoreDatabase;
  /** Network access of the chain sources. */
  fetch?: Fetch;
  btcPollIntervalMs?: number;
  /** The longest wait between two expiry sweeps (default: a minute; they also run at each invoice's expiry). */
  expirySweepMs?: number;
  webhooks?: WebhookDeliveryDeps;
  /** The metrics registry GET /metrics serves (default: a new one of its own). */
  metrics?: ServiceMetrics;
  /** Base watcher tuning (poll interval, fixed-address nonce digits) for tests and benchmarks. */
  baseOptions?: { pollIntervalMs?: number; nonceDigits?: number; quarantineMs?: number };
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
  btcWatcher: BtcWatcher | null;
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

/** The listener's chain watchers: Bitcoin's and Base's, each when its chain is configured. */
function listenerWatchers(config: Config, deps: ListenerDeps, { db, feed, clock, logger, metrics, budgets }: EngineParts<CoreTables>) {
  const networkFetch = deps.fetch ?? fetch;
  const btcWatching = config.btc ? btcWatchingFor(config.btc, { fetch: networkFetch, budgets, clock, logger }) : null;
  if (config.btc && !btcWatching) logger.warn('no Bitcoin chain source: set BTC_ESPLORA_URL or BTC_RPC_URL; payments are not watched');
  const btc =
    btcWatching && config.btc
      ? createBtcWatcher({
          db,
          feed,
          scope: merchantScope(config.merchantId),
          keyId: config.btc.accountKey.keyId,
          ...btcWatching,
          clock,
          logger,
          pollIntervalMs: deps.btcPollIntervalMs,
          observer: watchObserver(metrics, btcModule.chain),
        })
      : null;
  const evm = config.evm.map((chain) =>
    createBaseWatcher({
      observer: watchObserver(metrics, chain.chain),
      db,
      feed,
      clock,
      logger: logger.child({ chain: chain.chain }),
      scope: merchantBaseScope(config.merchantId, chain.chain),
      base: chain,
      sources: chain.rpcUrls.map((url) =>
        createRpcSource(url, {
          fetch: budgets.fetchFor(networkFetch, chain.chain, url, false, evmSpecOf(chain.chain).sourceBudget),
          sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
          logger,
        }),
      ),
      pollIntervalMs: deps.baseOptions?.pollIntervalMs,
    }),
  );
  return {
    btc,
    evm,
    start() {
      for (const watcher of evm) watcher.start();
      btc?.start();
    },
    async stop() {
      await btc?.stop();
      btcWatching?.socket?.close();
      for (const watcher of evm) await watcher.stop();
    },
    problems: () => [btc?.problem(), ...evm.map((watcher) => watcher.problem())].filter((problem) => problem != null),
    progress: () => [
      ...(btc ? [{ chain: btcModule.chain, progress: btc.status().btc_progress }] : []),
      ...evm.map((watcher, i) => ({ chain: config.evm[i].chain, progress: watcher.status().progress })),
    ],
  };
}

/** Builds the whole listener from a validated config and starts serving. */
export async function startListener(config: Config, deps: ListenerDeps = {}): Promise<RunningListener> {
  const clock = deps.clock ?? systemClock;
  const logger = deps.logger ?? createLogger({ clock, secrets: configSecrets(config) });
  const metrics = deps.metrics ?? createServiceMetrics();
  const engine = await startEngine({
    clock,
    logger,
    metrics,
    databaseUrl: config.databaseUrl,
    schema: coreSchema,
    databaseWaitS: config.databaseWaitS,
    database: deps.database,
    async prepare(db) {
      const baseXpub = config.base?.xpub;
      if (baseXpub?.legacyKeyId) await adoptKeyIdentity(db, EVM_ADDRESS_COUNTER, baseXpub.legacyKeyId, baseXpub.keyId);
      // One claim per address: the chains that share MERCHANT_EVM_ADDRESS share its claim.
      const fixedAddresses = [...new Set(config.evm.map((evm) => evm.fixedAddress).filter((address) => address !== null))];
      const fixedAddressProblem = (await Promise.all(fixedAddresses.map((address) => claimOwnFixedAddress(db, address)))).find((problem) => problem !== null) ?? null;
      if (fixedAddressProblem) throw new ConfigError([fixedAddressProblem]);
    },
    expirySweepMs: deps.expirySweepMs,
    sourceBudgets: config.sourceBudgets,
    webhooks: () => singleMerchantRoute(config),
    webhookDeps: deps.webhooks,
  });
  const startedAt = clock.now();
  const { database, db, feed } = engine;
  const watchers = listenerWatchers(config, deps, engine);

  const btc = config.btc
    ? btcReceiver({
        accountKey: config.btc.accountKey,
        explorerUrl: config.btc.explorerUrl,
        ...createReceiveAddressBook(engine.addressDeriver(), config.btc.accountKey, {
          nextIndex: await peekNextChildIndex(db, btcModule.chain, config.btc.accountKey.keyId),
        }),
      })
    : null;
  const evmReceivers = Object.fromEntries(
    config.evm.map((evm) => [evm.chain, baseReceiver({ base: evm, nonceDigits: deps.baseOptions?.nonceDigits, quarantineMs: deps.baseOptions?.quarantineMs })]),
  );
  const invoices = merchantInvoices(engine.invoices, { merchantId: config.merchantId, receivers: { ...(btc && { btc }), ...evmReceivers } });

  const health = async (): Promise<Health> => {
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
    const baseIndex = config.evm.findIndex((evm) => evm === config.base);
    const baseStatus = baseIndex >= 0 ? watchers.evm[baseIndex].status() : undefined;
    const evmStatus = watchers.evm[0]?.status();
    // The count of merchants left out is Cloud's concern: the listener has one merchant.
    const { refused_merchants: _oneMerchant, ...btcStatus } = watchers.btc?.status() ?? {};
    return {
      ok,
      problems: shared.problems,
      ...idleChainStatus(),
      // Bitcoin's watcher when Bitcoin is configured, else the first EVM chain's: see docs/self-hosting.md, "Health".
      ...(watchers.btc ? btcStatus : evmStatus ? baseChainStatus(evmStatus) : {}),
      uptime_s: Math.round((clock.now() - startedAt) / 100) / 10,
      webhooks: webhookCounts,
      enabled_assets: enabledAssets(config),
      ...(baseStatus ? { base: baseHealth(baseStatus) } : {}),
      ...(watchers.evm.length > 0 && {
        evm_chains: Object.fromEntries(watchers.evm.map((watcher, i) => [config.evm[i].chain, baseHealth(watcher.status(), config.evm[i].chain)])),
      }),
      chain_sources: shared.chain_sources,
    };
  };

  // OAuth needs a key to sign in with, and a base URL: PUBLIC_URL, or the loopback URL served.
  let servedUrl: string | null = null;
  const onLoopback = isLoopbackHost(config.host);
  const oauth = config.apiKey
    ? endpointOAuth({
        mcpPath: '/mcp',
        baseUrl: () => config.publicUrl ?? (onLoopback ? servedUrl : null),
        db,
        clock,
        logger,
        trustProxy: config.trustProxy,
        accountOfKey: async (key) => (keyMatcher(config.apiKey!)(key) ? 'listener' : null),
        keyLabel: 'the SERVICE_API_KEY',
        appsPage: true,
        cimdPolicy: { resolve: deps.resolve ?? systemResolver, allowLoopback: deps.cimdAllowLoopback ?? false, ca: deps.cimdCa },
        consentLimiter: createRateLimiter({ store: memoryWindows(), clock, name: 'oauth-consent', config: { perClient: 20, overall: 200 } }),
        registrationLimiter: createRateLimiter({ store: memoryWindows(), clock, name: 'oauth-register', config: { perClient: 20, overall: 200 } }),
      })
    : null;

  const app = createHttpApp({
    invoices,
    health,
    documents: { openapi: JSON.stringify(buildOpenApiDocument(), null, 2), llms: buildLlmsTxt() },
    apiKey: config.apiKey,
    rateLimit: config.rateLimit,
    clock,
    logger,
    trustProxy: config.trustProxy,
    mcpAllowedOrigins: config.mcpAllowedOrigins,
    mcpMaxSessions: config.mcpMaxSessions,
    metrics,
    metricsToken: config.metricsToken,
    feed,
    merchantId: config.merchantId,
    isOwnOrigin: ownOrigins(config.publicUrl, onLoopback),
    oauth,
    checkout: createListenerCheckoutSource({
      invoices,
      db,
      merchantId: config.merchantId,
      clock,
      shopName: config.shopName,
      explorers: Object.fromEntries([...(config.btc ? [[btcModule.chain, config.btc.explorerUrl]] : []), ...config.evm.map((evm) => [evm.chain, evm.explorerUrl])]),
    }),
  });

  const { server, url } = await serveHttp(app, config.port, config.host, logger);
  servedUrl = url;
  if (oauth && !config.publicUrl && !onLoopback) logger.warn('OAuth for /mcp is off: set PUBLIC_URL to the URL clients reach this server at');
  logger.info('listener started', {
    url,
    database: database.dialect,
    btc_network: config.btc?.accountKey.network ?? null,
    evm_chain_ids: Object.fromEntries(config.evm.map((evm) => [evm.chain, evm.chainId])),
    api_key: config.apiKey ? 'set' : 'unset (POST /invoice is open: development only)',
    webhook_url: config.webhook?.url ?? 'unset (events are stored, not sent)',
  });
  engine.lead({ watchers });

  return {
    url,
    server,
    database,
    btcWatcher: watchers.btc,
    feed,
    async stop(options = {}) {
      await closeServer(server, options.graceMs);
      oauth?.close();
      await engine.stop(options.graceMs);
      logger.info('listener stopped');
    },
  };
}
