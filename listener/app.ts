import type { Server } from 'node:http';
import { sql } from 'kysely';
import type { Health } from '../shared/index.ts';
import { buildLlmsTxt } from '../shared/llms.ts';
import { buildOpenApiDocument } from '../shared/openapi.ts';
import { btcReceiver } from '../core/btc/btc-adapter.ts';
import { btcModule } from '../core/btc/btc-module.ts';
import { chainModules } from '../core/chains/registry.ts';
import { evmSpecOf } from '../core/base/evm-chains.ts';
import { btcWatchingFor } from '../core/btc/chain-source-factory.ts';
import type { Fetch } from '../core/btc/chain-source.ts';
import { createReceiveAddressBook, startAddressDeriver } from '../core/btc/receive-address-book.ts';
import { adoptKeyIdentity, peekNextChildIndex } from '../core/invoices/invoice.repository.ts';
import { createBtcWatcher, type BtcWatcher } from '../core/btc/watcher.ts';
import { systemClock, type Clock } from '../core/clock.ts';
import { ConfigError, configSecrets, type Config } from './config.ts';
import { openCoreDatabase, type CoreDatabase } from '../core/schema.ts';
import { enabledAssets } from './enabled-assets.ts';
import { claimOwnFixedAddress } from '../core/base/address-claims.ts';
import { baseReceiver } from '../core/base/base-adapter.ts';
import { EVM_ADDRESS_COUNTER } from '../core/base/base-invoices.ts';
import { baseChainStatus, baseHealth } from '../core/base/base-health.ts';
import { createRpcSource } from '../core/base/rpc.ts';
import { createBaseWatcher } from '../core/base/watcher.ts';
import { createHttpApp } from './http/app.ts';
import { keyMatcher } from './http/api-key.ts';
import { ownOrigins } from './http/mcp-endpoint.ts';
import { createRateLimiter, memoryWindows } from './http/sliding-window.ts';
import { endpointOAuth } from './oauth/endpoint-oauth.ts';
import { systemResolver, type Resolver } from '../core/net/webhook-target.ts';
import { createListenerCheckoutSource } from './checkout/listener-checkout-source.ts';
import { closeServer, serveHttp } from './http/serve.ts';
import { createInvoiceService } from '../core/invoices/invoice.service.ts';
import { startExpirySweeper } from '../core/invoices/expiry-sweeper.ts';
import { openStatusFeed } from '../core/invoices/pg-status-feed.ts';
import type { StatusFeed } from '../core/invoices/status-feed.ts';
import { createLogger, type Logger } from '../core/log.ts';
import { createSourceBudgets } from '../core/net/source-budgets.ts';
import { addScrapeMetrics, createServiceMetrics, watchObserver, type ServiceMetrics } from '../core/metrics.ts';
import { countDeliveries } from '../core/webhooks/delivery-store.ts';
import { startWebhookDelivery, type WebhookDeliveryDeps } from '../core/webhooks/start-delivery.ts';

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

/** Builds the whole listener from a validated config and starts serving. */
const chains = [...chainModules.values()].map((module) => module.adapter);

export async function startListener(config: Config, deps: ListenerDeps = {}): Promise<RunningListener> {
  const clock = deps.clock ?? systemClock;
  const logger = deps.logger ?? createLogger({ clock, secrets: configSecrets(config) });
  const database = deps.database ?? (await openCoreDatabase(config.databaseUrl, { logger, backgroundCheckpoints: true, waitS: config.databaseWaitS }));
  const startedAt = clock.now();
  const metrics = deps.metrics ?? createServiceMetrics();
  const baseXpub = config.base?.xpub;
  if (baseXpub?.legacyKeyId) await adoptKeyIdentity(database.db, EVM_ADDRESS_COUNTER, baseXpub.legacyKeyId, baseXpub.keyId);
  // One claim per address: the chains that share MERCHANT_EVM_ADDRESS share its claim.
  const fixedAddresses = [...new Set(config.evm.map((evm) => evm.fixedAddress).filter((address) => address !== null))];
  const fixedAddressProblem = (await Promise.all(fixedAddresses.map((address) => claimOwnFixedAddress(database.db, address)))).find((problem) => problem !== null) ?? null;
  if (fixedAddressProblem) {
    if (!deps.database) await database.close();
    throw new ConfigError([fixedAddressProblem]);
  }

  const feed = await openStatusFeed(database.dialect, { databaseUrl: config.databaseUrl, db: database.db, logger: logger.child({ component: 'status-feed' }) });
  const expiry = startExpirySweeper({ db: database.db, feed, clock, logger, guards: chains.map((chain) => chain.paymentSeenBeforeExpiry), maxWaitMs: deps.expirySweepMs, metrics });

  const deriver = config.btc ? startAddressDeriver(logger) : null;
  const btc = config.btc
    ? btcReceiver({
        accountKey: config.btc.accountKey,
        explorerUrl: config.btc.explorerUrl,
        ...createReceiveAddressBook(deriver!, config.btc.accountKey, {
          nextIndex: await peekNextChildIndex(database.db, btcModule.chain, config.btc.accountKey.keyId),
        }),
      })
    : null;

  const budgets = createSourceBudgets({ settings: config.sourceBudgets });
  const networkFetch = deps.fetch ?? fetch;
  const btcWatching = config.btc ? btcWatchingFor(config.btc, { fetch: networkFetch, budgets, clock, logger }) : null;
  if (config.btc && !btcWatching) logger.warn('no Bitcoin chain source: set BTC_ESPLORA_URL or BTC_RPC_URL; payments are not watched');
  const btcWatcher =
    btcWatching && config.btc
      ? createBtcWatcher({
          db: database.db,
          feed,
          merchantId: config.merchantId,
          keyId: config.btc.accountKey.keyId,
          ...btcWatching,
          clock,
          logger,
          pollIntervalMs: deps.btcPollIntervalMs,
          observer: watchObserver(metrics, btcModule.chain),
        })
      : null;

  const evmWatchers = config.evm.map((evm) =>
    createBaseWatcher({
      observer: watchObserver(metrics, evm.chain),
      db: database.db,
      feed,
      clock,
      logger: logger.child({ chain: evm.chain }),
      merchantId: config.merchantId,
      base: evm,
      sources: evm.rpcUrls.map((url) =>
        createRpcSource(url, {
          fetch: budgets.fetchFor(networkFetch, evm.chain, url, false, evmSpecOf(evm.chain).sourceBudget),
          sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
          logger,
        }),
      ),
      pollIntervalMs: deps.baseOptions?.pollIntervalMs,
    }),
  );
  const baseWatcher = evmWatchers.find((_, i) => config.evm[i] === config.base) ?? null;
  const evmReceivers = Object.fromEntries(
    config.evm.map((evm) => [evm.chain, baseReceiver({ base: evm, nonceDigits: deps.baseOptions?.nonceDigits, quarantineMs: deps.baseOptions?.quarantineMs })]),
  );

  const invoices = createInvoiceService({
    db: database.db,
    clock,
    logger,
    chains,
    feed,
    expiry,
    merchantId: config.merchantId,
    receivers: { ...(btc && { btc }), ...evmReceivers },
    metrics,
  });

  const webhooks = startWebhookDelivery({ config, db: database.db, clock, logger, metrics, ...deps.webhooks });
  addScrapeMetrics(metrics, {
    db: database.db,
    clock,
    chainSources: () => budgets.metricStats(),
    watchers: () => [
      ...(btcWatcher ? [{ chain: btcModule.chain, progress: btcWatcher.status().btc_progress }] : []),
      ...evmWatchers.map((watcher, i) => ({ chain: config.evm[i].chain, progress: watcher.status().progress })),
    ],
  });

  const health = async (): Promise<Health> => {
    let ok = true;
    let webhookCounts: Health['webhooks'] = { queued: 0, failing: 0, failed: 0 };
    try {
      await sql`select 1`.execute(database.db);
      webhookCounts = await countDeliveries(database.db, config.merchantId);
    } catch (error) {
      ok = false;
      logger.warn('health: database check failed', { error });
    }
    const baseStatus = baseWatcher?.status();
    const evmStatus = evmWatchers[0]?.status();
    const problems = [database.problem(), btcWatcher?.problem(), ...evmWatchers.map((watcher) => watcher.problem())].filter((p) => p != null);
    return {
      ok: ok && problems.length === 0,
      problems,
      ...idleChainStatus(),
      // Bitcoin's watcher when Bitcoin is configured, else the first EVM chain's: see docs/self-hosting.md, "Health".
      ...(btcWatcher?.status() ?? (evmStatus ? baseChainStatus(evmStatus) : {})),
      uptime_s: Math.round((clock.now() - startedAt) / 100) / 10,
      webhooks: webhookCounts,
      enabled_assets: enabledAssets(config),
      ...(baseStatus ? { base: baseHealth(baseStatus) } : {}),
      ...(evmWatchers.length > 0 && { evm_chains: Object.fromEntries(evmWatchers.map((watcher, i) => [config.evm[i].chain, baseHealth(watcher.status(), config.evm[i].chain)])) }),
      chain_sources: budgets.stats(),
    };
  };

  // OAuth needs a key to sign in with, and a base URL: PUBLIC_URL, or the loopback URL served.
  let servedUrl: string | null = null;
  const onLoopback = isLoopbackHost(config.host);
  const oauth = config.apiKey
    ? endpointOAuth({
        mcpPath: '/mcp',
        baseUrl: () => config.publicUrl ?? (onLoopback ? servedUrl : null),
        db: database.db,
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
      db: database.db,
      merchantId: config.merchantId,
      clock,
      shopName: config.shopName,
      explorers: Object.fromEntries([...(config.btc ? [[btcModule.chain, config.btc.explorerUrl]] : []), ...config.evm.map((evm) => [evm.chain, evm.explorerUrl])]),
    }),
  });

  const { server, url } = await serveHttp(app, config.port, config.host, logger);
  servedUrl = url;
  if (oauth && !config.publicUrl && !onLoopback) logger.warn('OAuth for /mcp is off: set PUBLIC_URL to the URL clients reach this server at');
  for (const watcher of evmWatchers) watcher.start();
  logger.info('listener started', {
    url,
    database: database.dialect,
    btc_network: config.btc?.accountKey.network ?? null,
    evm_chain_ids: Object.fromEntries(config.evm.map((evm) => [evm.chain, evm.chainId])),
    api_key: config.apiKey ? 'set' : 'unset (POST /invoice is open: development only)',
    webhook_url: config.webhook?.url ?? 'unset (events are stored, not sent)',
  });

  btcWatcher?.start();

  return {
    url,
    server,
    database,
    btcWatcher,
    feed,
    async stop(options = {}) {
      await closeServer(server, options.graceMs);
      await btcWatcher?.stop();
      btcWatching?.socket?.close();
      await webhooks.stop(options.graceMs);
      oauth?.close();
      deriver?.close();
      for (const watcher of evmWatchers) await watcher.stop();
      await expiry.stop();
      await feed.close();
      if (!deps.database) await database.close();
      logger.info('listener stopped');
    },
  };
}
