import type { Server } from 'node:http';
import type { Kysely } from 'kysely';
import Stripe from 'stripe';
import { buildLlmsTxt } from '../shared/llms.ts';
import { buildOpenApiDocument } from '../shared/openapi.ts';
import type { Fetch } from '../core/net/fetch.ts';
import { systemClock, type Clock } from '../core/clock.ts';
import type { Database } from '../core/db/database.ts';
import { bindHttp, closeServer } from '../edge/http/serve.ts';
import { metricsLoopbackOpen } from '../edge/http/metrics-endpoint.ts';
import { createServiceMetrics, type ServiceMetrics } from '../core/metrics.ts';
import { startEngine, type Engine, type EngineWatchers, type LeaderTask } from '../core/engine.ts';
import type { StatusFeed } from '../core/invoices/status-feed.ts';
import { createLogger, type Logger } from '../core/log.ts';
import type { WebhookSender } from '../core/webhooks/http-sender.ts';
import type { Timers } from '../core/webhooks/timers.ts';
import { applyConfirmedPurchases, type CardProcessor, type CreateBillingInvoice } from './billing/billing.ts';
import { createCloudChainWatchers } from './chain-watchers.ts';
import { cloudSecrets, type CloudConfig } from './cloud-config.ts';
import { settlerKeyProblem } from '../core/x402/settler-key.ts';
import { createCloudService } from './cloud-service.ts';
import { paymentStateSettings } from '../mcp/payment-state.ts';
import { createCloudHttpApp } from './http/app.ts';
import { ownOrigins } from '../edge/http/mcp-endpoint.ts';
import { endpointOAuth, oauthLimiters } from '../edge/oauth/endpoint-oauth.ts';
import { hashApiKey } from './keys/api-keys.ts';
import { merchantByKeyHash } from './merchants/merchant.repository.ts';
import { createSharedRateLimiter } from './http/shared-rate-limiter.ts';
import { electLeader } from './leader.ts';
import { createMerchantReceivers } from './merchants/merchant-context.ts';
import { createStripeCardProcessor } from './billing/stripe-card-processor.ts';
import { receiveStripeWebhook } from './billing/stripe-webhook.ts';
import { findMerchant } from './merchants/merchant.repository.ts';
import { cloudClaimScope, cloudDeliveryTarget, cloudEventSubscriptions } from './invoices/webhook-delivery.ts';
import { cloudSchema } from './storage/cloud.schema.ts';
import type { CloudTables } from './storage/cloud.tables.ts';
import { systemResolver, type Resolver, type WebhookTargetPolicy } from '../core/net/webhook-target.ts';
import { ConfigError, secureCookies } from '../edge/settings.ts';
import { chainIn, familySettings, settingsOf } from '../core/chain-definition.ts';
import type { LightningPlatformParts } from '../core/merchant-chain.ts';
import { lightningConnections, saveLightningProblem } from './merchants/merchant.repository.ts';
import type { ChainTunings } from '../core/chain-runtime.ts';
import { createX402Payments, type X402Payments } from '../core/x402/x402-payments.ts';
import { x402Chains, x402Health, x402Observer, x402PaymentSettings, x402UrlUnder, type X402ChainSettings } from '../core/x402/x402-runtime.ts';
import { callLimit } from '../edge/http/rate-limit.ts';
import { x402ShareLimit } from './http/x402-shares.ts';

export interface CloudDeps {
  /** The metrics registry GET /metrics serves (default: a new one of its own). */
  metrics?: ServiceMetrics;
  clock?: Clock;
  logger?: Logger;
  database?: Database<CloudTables>;
  fetch?: Fetch;
  /** DNS for webhook hosts; tests make names resolve where they like. */
  resolve?: Resolver;
  /** Tests only: a certificate authority trusted for Client ID Metadata Documents (with CLOUD_WEBHOOK_ALLOW_LOOPBACK). */
  cimdCa?: string;
  card?: CardProcessor | null;
  /** Where the Stripe SDK sends API requests (tests: a local stand-in for api.stripe.com). */
  stripeApi?: { host: string; port: number; protocol: 'http' | 'https' };
  webhooks?: { send?: WebhookSender; timers?: Timers; concurrency?: number; pollIntervalMs?: number };
  leaderRetryMs?: number;
  /** The leader's chain watching: poll intervals per chain, and how often new merchants are picked up. */
  chainWatch?: { tuning?: ChainTunings; refreshMs?: number };
  /** How often the leader applies confirmed plan purchases. */
  billingPollMs?: number;
}

export interface RunningCloud {
  url: string;
  server: Server;
  database: Database<CloudTables>;
  isLeader(): boolean;
  /** The invoices' status changes, as this instance publishes and hears them. */
  feed: StatusFeed;
  /** This instance's chain watchers (none unless it leads): status and progress by `chain:merchant_id`. */
  watcherStates(): Record<string, object>;
  /** Stops taking requests; those under way and webhook attempts in flight get `graceMs` to finish (0: cut at once). */
  stop(options?: { graceMs?: number }): Promise<void>;
}

export const CLOUD_SERVICE_NAME = 'service-cloud';

/**
 * Applies confirmed plan purchases while this instance leads: it stops (the pass under way
 * included) with the term.
 */
function billingTask(config: CloudConfig, db: Kysely<CloudTables>, clock: Clock, logger: Logger, pollMs = 5_000): LeaderTask {
  let timer: NodeJS.Timeout | undefined;
  let running = false;
  let pass: Promise<void> = Promise.resolve();
  const loop = async () => {
    if (!running) return;
    if (config.billingMerchantId) {
      await applyConfirmedPurchases(db, config.billingMerchantId, clock.now()).catch((error) =>
        logger.warn('applying plan purchases failed', { error: String(error) }),
      );
    }
    if (running) timer = setTimeout(() => void (pass = loop()), pollMs);
  };
  return {
    start() {
      running = true;
      pass = loop();
    },
    async stop() {
      running = false;
      clearTimeout(timer);
      await pass;
    },
  };
}

/** OAuth for /api/v1/mcp: issuer and resource on PUBLIC_URL, or on the loopback URL served. */
function cloudOAuth(config: CloudConfig, { db, clock, logger }: { db: Kysely<CloudTables>; clock: Clock; logger: Logger }, publicBase: () => string | null, cimdPolicy: Parameters<typeof endpointOAuth>[0]['cimdPolicy']) {
  return endpointOAuth({
    mcpPath: '/api/v1/mcp',
    baseUrl: publicBase,
    db,
    clock,
    logger,
    trustProxy: config.trustProxy,
    // A grant records the hash of the key that approved it; revoking that key ends the grant.
    accountOfKey: async (key) => {
      const keyHash = hashApiKey(key);
      const merchant = await merchantByKeyHash(db, keyHash);
      return merchant ? { accountId: merchant.merchant_id, keyId: keyHash } : null;
    },
    keyIsLive: async (keyHash) => (await merchantByKeyHash(db, keyHash)) !== undefined,
    keyLabel: 'a full-access API key',
    appsPage: false,
    cimdPolicy,
    limiters: oauthLimiters((name, limits, spareNewClients) => createSharedRateLimiter({ db, clock, name, config: limits, spareNewClients }), config.signInRateLimit),
  });
}

type CloudEngine = Engine<CloudTables>;

/** The engine on Cloud's schema and the chains its merchants receive on. */
function startCloudEngine(
  config: CloudConfig,
  deps: CloudDeps,
  shared: { clock: Clock; logger: Logger; metrics: ServiceMetrics; webhookPolicy: WebhookTargetPolicy; x402Url: () => X402Payments | null },
) {
  const { clock, logger, metrics, webhookPolicy } = shared;
  return startEngine({
    chains: config.chainDefinitions,
    clock,
    logger,
    metrics,
    databaseUrl: config.databaseUrl,
    schema: cloudSchema(config.chainDefinitions),
    databaseWaitS: config.databaseWaitS,
    database: deps.database,
    sourceBudgets: config.sourceBudgets,
    async prepare(db) {
      const problem = await settlerKeyProblem(db, config.x402, config.chains, 'platform');
      if (problem) throw new ConfigError([problem]);
    },
    webhooks: (db) => ({ scope: cloudClaimScope, target: cloudDeliveryTarget(db, webhookPolicy) }),
    webhookEvents: cloudEventSubscriptions,
    webhookDeps: deps.webhooks,
    x402Url: (invoice) => shared.x402Url()?.x402Url(invoice) ?? null,
    loopbackReturnLinks: config.nodeEnv !== 'production',
    rates: config.rates,
    fetch: deps.fetch,
  });
}

/** Plan purchases in crypto: a Base invoice of the operator's own merchant (CLOUD_BILLING_MERCHANT_ID), paid on Cloud's hosted page. */
function cloudCryptoInvoice(config: CloudConfig, engine: CloudEngine, receivers: ReturnType<typeof createMerchantReceivers>): CreateBillingInvoice | null {
  const { db } = engine;
  return config.billingMerchantId && config.checkoutBaseUrl
      ? async (amountUsd) => {
          const operator = await findMerchant(db, config.billingMerchantId!);
          if (!operator) throw new Error('CLOUD_BILLING_MERCHANT_ID is not a Cloud merchant');
          // Plan prices are whole dollars: the number's own text is exact.
          const invoice = await engine.invoices.create({ merchantId: operator.merchant_id, receivers: receivers.receivers(operator).chains }, { chain: 'base', amount_usd: amountUsd });
          return { invoiceId: invoice.invoice_id, checkoutUrl: `${config.checkoutBaseUrl}/pay/${invoice.invoice_id}` };
        }
    : null;

}

interface CloudHttpParts {
  engine: CloudEngine;
  cloud: ReturnType<typeof createCloudService>;
  payments: X402Payments;
  x402: ReturnType<typeof x402Chains>;
  oauth: ReturnType<typeof endpointOAuth>;
  stripe: Stripe | null;
  onLoopback: boolean;
}

/**
 * X402_RATE_LIMIT on Cloud: its per-address window, and its overall budget shared between the
 * invoices' merchants by plan (x402ShareLimit) rather than one window any tenant can fill.
 */
function x402Limits(config: CloudConfig, db: Kysely<CloudTables>, clock: Clock) {
  const rate = config.x402RateLimit;
  const perAddress = rate && createSharedRateLimiter({ db, clock, name: 'x402', config: { perClient: rate.perClient, overall: Number.MAX_SAFE_INTEGER } });
  return {
    x402Limit: callLimit(perAddress, 'x402 requests from this address'),
    x402ShareLimit: rate ? x402ShareLimit({ db, clock, settings: config.fairShares, overall: rate.overall }) : callLimit(null, 'x402 requests'),
  };
}

/** Cloud's HTTP API, dashboard, MCP endpoint and hosted checkout over its parts. */
function cloudHttpApp(config: CloudConfig, { engine, cloud, payments, x402, oauth, stripe, onLoopback }: CloudHttpParts) {
  const { db, clock, logger, metrics, feed } = engine;
  return createCloudHttpApp({
    cloud,
    chains: config.chainDefinitions,
    x402: payments,
    ...x402Limits(config, db, clock),
    db,
    oauth,
    isOwnOrigin: ownOrigins(config.publicUrl, onLoopback),
    secureCookies: secureCookies(config.publicUrl, onLoopback),
    clock,
    logger,
    trustProxy: config.trustProxy,
    mcpAllowedOrigins: config.mcpAllowedOrigins,
    mcpMaxSessions: config.mcpMaxSessions,
    mcpMaxSessionsPerOwner: config.mcpMaxSessionsPerOwner,
    mcpMaxListenStreams: config.mcpMaxListenStreams,
    mcpListenStreamMaxMs: config.mcpListenStreamMaxMs,
    fairShares: config.fairShares,
    mcpPaymentState: paymentStateSettings(config.mcpStateSecret ?? undefined, cloud.invoices.checkoutUrl),
    mcpInitializeRateLimit: config.mcpInitializeRateLimit,
    metrics,
    httpBounds: config.httpBounds,
    metricsAccess: { token: config.metricsToken, loopbackOpen: metricsLoopbackOpen(onLoopback, config.publicUrl) },
    feed,
    invoiceRateLimit: config.invoiceRateLimit,
    signupRateLimit: config.signupRateLimit,
    signInRateLimit: config.signInRateLimit,
    stripeWebhook: stripe
      ? (rawBody, signature) => receiveStripeWebhook({ db, stripe, webhookSecret: config.stripe!.webhookSecret, priceIds: config.stripe!.priceIds, logger }, rawBody, signature, clock.now())
      : null,
    documents: { openapi: JSON.stringify(buildOpenApiDocument(), null, 2), llms: buildLlmsTxt() },
    async health() {
      const { ok, answered, problems, chain_sources, rate_sources } = await engine.health();
      const x402Section = answered ? await x402Health(x402, db, { now: clock.now(), budget: config.x402.gasBudget }).catch(() => null) : null;
      return { ok, service: CLOUD_SERVICE_NAME, ts: new Date(clock.now()).toISOString(), chain_sources, problems, ...(rate_sources && { rate_sources }), ...(x402Section && { x402: x402Section }) };
    },
  });
}

/** What the elected instance watches: the chains, and every merchant's Lightning wallet. CLOUD_WATCH=false: this instance serves and delivers webhooks, and never watches. */
function leaderWatchers(config: CloudConfig, parts: ReadonlyArray<Pick<EngineWatchers, 'start' | 'stop' | 'problems'>>): EngineWatchers {
  return {
    problems: () => parts.flatMap((part) => part.problems()),
    start() {
      if (config.watch) for (const part of parts) part.start();
    },
    async stop() {
      for (const part of parts) await part.stop();
    },
  };
}

/**
 * Lightning for every merchant, on the chain whose merchant part offers it (none names it here): one
 * relay pool for the instance, a wallet per merchant who saved a connection.
 */
function cloudLightning(config: CloudConfig, parts: Pick<LightningPlatformParts, 'db' | 'feed' | 'clock' | 'logger' | 'refreshMs' | 'resolve'>) {
  const chain = config.chainDefinitions.find((definition) => definition.merchant.lightning);
  const settings = chain && settingsOf(config.chains, chain.chain);
  if (!chain || !settings) return null;
  const platform = chain.merchant.lightning!(settings, {
    ...parts,
    loopbackRelays: config.nodeEnv !== 'production',
    connections: () => lightningConnections(parts.db as Kysely<CloudTables>),
    reportProblem: (merchant, problem) => saveLightningProblem(parts.db as Kysely<CloudTables>, merchant.merchantId, merchant.connection, problem, parts.clock.now()),
  });
  return { chain: chain.chain, platform };
}

export async function startCloud(config: CloudConfig, deps: CloudDeps = {}): Promise<RunningCloud> {
  const clock = deps.clock ?? systemClock;
  const logger = deps.logger ?? createLogger({ clock, fields: { mode: 'cloud' }, secrets: cloudSecrets(config) });
  const metrics = deps.metrics ?? createServiceMetrics();
  const webhookPolicy = { resolve: deps.resolve ?? systemResolver, allowLoopback: config.webhookAllowLoopback };
  // The port first: one that cannot be bound ends the start before the database, webhook delivery
  // or the leader election starts.
  const bound = await bindHttp(config.port, config.host, { logger, bounds: config.httpBounds });
  const x402 = x402Chains(config.x402, familySettings<X402ChainSettings>(config.chains, 'evm'), deps.fetch ?? fetch);
  // Built once the engine is (it reads invoices through it); the engine asks it for x402_url.
  let payments: X402Payments | null = null;
  // PUBLIC_URL, or the loopback URL served: OAuth's issuer and the x402 URLs.
  const onLoopback = /^(localhost|127(\.\d{1,3}){3}|::1|\[::1\])$/.test(config.host);
  const publicBase = () => config.publicUrl ?? (onLoopback ? bound.url : null);
  const engine = await startCloudEngine(config, deps, { clock, logger, metrics, webhookPolicy, x402Url: () => payments }).catch(async (error: unknown) => {
    await closeServer(bound.server);
    throw error;
  });
  const { database, db, feed } = engine;
  // Relay hosts are resolved as webhook hosts are: the same resolver checks them at save time and pins every connection.
  const lightning = cloudLightning(config, { db, feed, clock, logger, refreshMs: deps.chainWatch?.refreshMs, resolve: webhookPolicy.resolve });
  const receivers = createMerchantReceivers({ config, workerOf: (chain) => engine.worker(chain), sharedDatabase: database.dialect === 'postgres', lightning });
  const chainWatchers = createCloudChainWatchers({
    db,
    feed,
    clock,
    logger,
    metrics,
    budgets: engine.budgets,
    config,
    fetch: deps.fetch ?? fetch,
    refreshMs: deps.chainWatch?.refreshMs,
    tuning: deps.chainWatch?.tuning,
  });

  const cryptoInvoice = cloudCryptoInvoice(config, engine, receivers);

  const stripe = config.stripe ? new Stripe(config.stripe.secretKey, { ...deps.stripeApi, maxNetworkRetries: 1, timeout: 20_000 }) : null;
  const card = deps.card ?? (stripe ? createStripeCardProcessor(stripe, config.stripe!) : null);

  const cloud = createCloudService({
    db,
    clock,
    config,
    chains: config.chainDefinitions,
    engine: engine.invoices,
    receivers,
    webhookPolicy,
    billing: { logger, cryptoInvoice, card },
    lightning: lightning?.platform ?? null,
    x402Url: (invoice) => payments?.x402Url(invoice) ?? null,
  });

  payments = createX402Payments({
    db,
    clock,
    logger,
    chains: x402,
    find: async (invoiceId) => (await cloud.publicInvoices.find(invoiceId)).row,
    paidSoFar: (row) => chainIn(config.chainDefinitions, row.chain).paidSoFar(db, row),
    invoice: (row) => engine.invoices.get(row.merchant_id, row.invoice_id),
    resourceUrl: (invoiceId) => {
      const base = publicBase();
      return base ? x402UrlUnder(base, '/api/v1', invoiceId) : null;
    },
    observer: x402Observer(metrics),
    ...x402PaymentSettings(config.x402),
  });

  const oauth = cloudOAuth(config, { db, clock, logger }, publicBase, { ...webhookPolicy, ca: deps.cimdCa });

  const app = cloudHttpApp(config, { engine, cloud, payments, x402, oauth, stripe, onLoopback });
  bound.serve(app);
  const { server, url } = bound;
  logger.info('cloud started', { url, database: database.dialect, hosted_checkout: config.checkoutBaseUrl ?? 'off' });
  engine.lead({
    watchers: leaderWatchers(config, [chainWatchers, ...(lightning ? [lightning.platform] : [])]),
    tasks: [billingTask(config, db, clock, logger, deps.billingPollMs)],
    leadership: (onChange) => electLeader({ databaseUrl: config.databaseUrl, dialect: database.dialect, logger, retryMs: deps.leaderRetryMs, onChange }),
  });

  return {
    url,
    server,
    database,
    isLeader: () => engine.isLeader(),
    feed,
    watcherStates: () => chainWatchers.states(),
    async stop(options = {}) {
      await closeServer(server, options.graceMs);
      oauth.close();
      await engine.stop(options.graceMs);
      lightning?.platform.close();
      logger.info('cloud stopped');
    },
  };
}
