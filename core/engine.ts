import { sql, type Kysely } from 'kysely';
import { chainIn, type ChainDefinition, type ChainWorker } from './chain-definition.ts';
import type { Clock } from './clock.ts';
import { openDatabase, type Database } from './db/database.ts';
import type { EditionSchema } from './db/migrate.ts';
import { startExpirySweeper, type ExpirySweeper } from './invoices/expiry-sweeper.ts';
import { createInvoiceEngine, type InvoiceEngine, type InvoiceEngineDeps } from './invoices/invoice.service.ts';
import { openStatusFeed } from './invoices/pg-status-feed.ts';
import { withLifecycleEvents, type EventSubscriptions } from './events/lifecycle-events.ts';
import type { StatusFeed } from './invoices/status-feed.ts';
import type { Logger } from './log.ts';
import { addScrapeMetrics, type ServiceMetrics } from './metrics.ts';
import type { RequestBudgetStats } from './net/request-budget.ts';
import type { Fetch } from './net/fetch.ts';
import { createRates, type RateSettings } from './rates/rates.ts';
import type { RateSourceHealth } from '../shared/index.ts';
import { createSourceBudgets, type BudgetSettings, type SourceBudgets } from './net/source-budgets.ts';
import type { CoreTables } from './schema.ts';
import type { WatcherProblem, WatcherProgress } from './watch-progress.ts';
import { startWebhookDelivery, type DeliveryRoute, type WebhookDeliveryDeps } from './webhooks/start-delivery.ts';

/** An edition's chain watchers, built by the factory it gives the engine. */
export interface EngineWatchers {
  start(): void;
  /** Resolves once every watcher (and its pass under way) has stopped. */
  stop(): Promise<void>;
  /** Their problems for /health. */
  problems(): WatcherProblem[];
  /** Each watcher's progress by chain, for the metrics (left out: not reported). */
  progress?(): Array<{ chain: string; progress: WatcherProgress }>;
}

/** Singleton work that runs while this instance leads, beside the chain watchers (Cloud's billing). */
export interface LeaderTask {
  start(): void;
  stop(): Promise<void>;
}

/**
 * Decides whether this instance leads: `onChange(true)` starts the leader's work, `onChange(false)`
 * stops it and resolves once it has stopped. Cloud elects one instance among many (cloud/leader.ts).
 */
export type Leadership = (onChange: (leading: boolean) => Promise<void>) => { isLeader(): boolean; stop(): Promise<void> };

/** One process, one leader: it leads from the start until it stops. */
export const alwaysLead: Leadership = (onChange) => {
  void onChange(true);
  return { isLeader: () => true, stop: () => onChange(false) };
};

/** What an edition builds its chain watchers from. */
export interface EngineParts<Tables extends CoreTables> {
  db: Kysely<Tables>;
  feed: StatusFeed;
  clock: Clock;
  logger: Logger;
  metrics: ServiceMetrics;
  /** Request budgets per chain source URL; they outlive a term as leader. */
  budgets: SourceBudgets;
}

export interface EngineOptions<Tables extends CoreTables> {
  /** The chains the service serves (their invoices, expiry guards and workers); the schema holds their tables. */
  chains: readonly ChainDefinition[];
  clock: Clock;
  logger: Logger;
  metrics: ServiceMetrics;
  databaseUrl: string;
  /** The edition's migrations, run to the latest at open. */
  schema: EditionSchema;
  /** DATABASE_WAIT_S: how long to wait at start for an unreachable Postgres database. */
  databaseWaitS: number;
  /** An open database (tests, benchmarks): used as it is and left open at stop. */
  database?: Database<Tables>;
  /** Checks on the migrated database before anything starts; a throw closes what the engine opened. */
  prepare?: (db: Kysely<Tables>) => Promise<void>;
  /** The longest wait between two expiry sweeps (default: a minute; they also run at each invoice's expiry). */
  expirySweepMs?: number;
  sourceBudgets: BudgetSettings;
  /** Where webhooks go; null: events stay queued in the outbox. */
  webhooks: (db: Kysely<Tables>) => DeliveryRoute | null;
  /** Who subscribed to which opt-in lifecycle events (core/events/lifecycle-events.ts); absent: none is written. */
  webhookEvents?: EventSubscriptions;
  webhookDeps?: WebhookDeliveryDeps;
  /** The invoices' x402 URLs (core/x402), when the edition serves them. */
  x402Url?: InvoiceEngineDeps['x402Url'];
  /** Outside production: a return link may be plain http to a loopback host. */
  loopbackReturnLinks?: boolean;
  /** The exchange rate sources and rules fiat prices are converted with; null: invoices priced in a fiat currency are refused. */
  rates: RateSettings | null;
  /** How the rate sources are reached (tests and the sandbox give their own). */
  fetch?: Fetch;
}

/** The singleton work the edition hands the engine once it serves. */
export interface LeaderWork {
  /** The chain watchers, built by the edition from the engine's parts. */
  watchers: EngineWatchers;
  /** Other singleton work beside them (Cloud's billing). */
  tasks?: LeaderTask[];
  /** Default: this process always leads. */
  leadership?: Leadership;
}

/** The part of /health both editions report. */
export interface EngineHealth {
  /** The database answered, and nothing has a problem. */
  ok: boolean;
  /** The database answered a query just now. */
  answered: boolean;
  /** The database's and the watchers' problems. */
  problems: WatcherProblem[];
  /** The chain sources' request budgets. */
  chain_sources: RequestBudgetStats[];
  /** The exchange rate sources' standing; absent when none are configured. */
  rate_sources?: RateSourceHealth[];
}

export interface Engine<Tables extends CoreTables> extends EngineParts<Tables> {
  database: Database<Tables>;
  expiry: ExpirySweeper;
  invoices: InvoiceEngine;
  /** A chain's worker (Bitcoin's address deriver), started on first use and closed at stop. */
  worker(chain: string): ChainWorker;
  /**
   * Runs the leader's work (the chain watchers, the other tasks) whenever this instance leads; its
   * watchers report to /health and the metrics from now on. Call once, when the edition serves.
   */
  lead(work: LeaderWork): void;
  isLeader(): boolean;
  health(): Promise<EngineHealth>;
  /** Stops leading, lets webhook attempts in flight finish within `graceMs`, then closes everything it opened. */
  stop(graceMs?: number): Promise<void>;
}

/**
 * The engine both editions run: the database (opened, migrated, its availability watched), the
 * status feed, the expiry sweeper, the invoice engine, webhook delivery, the metrics read at scrape
 * time, the shared part of /health, and once the edition serves, the chain watchers it built from
 * these parts, run by the leader. The edition adds its HTTP edge.
 */
export async function startEngine<Tables extends CoreTables>(options: EngineOptions<Tables>): Promise<Engine<Tables>> {
  const { clock, logger, metrics } = options;
  const adapters = options.chains.map((chain) => chain.adapter);
  const database =
    options.database ?? (await openDatabase<Tables>(options.databaseUrl, options.schema, { logger, backgroundCheckpoints: true, waitS: options.databaseWaitS }));
  const ownDatabase = !options.database;
  const { db } = database;
  // Tables extends CoreTables, which TypeScript cannot carry through Kysely's generics while Tables is open.
  const coreDb = db as unknown as Kysely<CoreTables>;
  try {
    await options.prepare?.(db);
  } catch (error) {
    if (ownDatabase) await database.close();
    throw error;
  }

  const statusFeed = await openStatusFeed(database.dialect, { databaseUrl: options.databaseUrl, db: coreDb, logger: logger.child({ component: 'status-feed' }) });
  // Every status writer gets the feed from here, so the opt-in events are written wherever a status changes.
  const feed = options.webhookEvents ? withLifecycleEvents(statusFeed, { chains: options.chains, subscriptions: options.webhookEvents }) : statusFeed;
  // Every instance sweeps: the guarded flip expires each invoice once, whichever instance gets there first.
  const expiry = startExpirySweeper({ db: coreDb, feed, clock, logger, guards: adapters.map((chain) => chain.paymentSeenBeforeExpiry), maxWaitMs: options.expirySweepMs, metrics });
  const rates = options.rates && createRates({ settings: options.rates, fetch: options.fetch ?? fetch, clock, logger: logger.child({ component: 'rates' }), metrics });
  const invoices = createInvoiceEngine({ db: coreDb, clock, logger, chains: adapters, feed, expiry, metrics, x402Url: options.x402Url, loopbackReturnLinks: options.loopbackReturnLinks, rates });
  const webhooks = startWebhookDelivery({ route: options.webhooks(db), db: coreDb, clock, logger, metrics, ...options.webhookDeps });
  // A status change has just stored its events (in its transaction): deliver them now, not at the next poll.
  const stopWakingWebhooks = statusFeed.subscribe(() => webhooks.wake());
  const budgets = createSourceBudgets({ settings: options.sourceBudgets });
  let work: LeaderWork | null = null;
  addScrapeMetrics(metrics, { db: coreDb, clock, chainSources: () => budgets.metricStats(), watchers: () => work?.watchers.progress?.() ?? [] });

  const workers = new Map<string, ChainWorker>();
  const worker = (chain: string): ChainWorker => {
    let running = workers.get(chain);
    if (!running) {
      const start = chainIn(options.chains, chain).startWorker;
      if (!start) throw new Error(`the ${chain} chain has no worker`);
      workers.set(chain, (running = start(logger)));
    }
    return running;
  };
  let leadership: ReturnType<Leadership> | null = null;
  const onChange = async (leading: boolean) => {
    const tasks = [work!.watchers, ...(work!.tasks ?? [])];
    if (leading) for (const task of tasks) task.start();
    else await Promise.all(tasks.map((task) => task.stop()));
  };

  return {
    database,
    db,
    feed,
    clock,
    logger,
    metrics,
    expiry,
    invoices,
    budgets,
    worker,
    lead(given) {
      if (work) throw new Error('the engine already leads');
      work = given;
      leadership = (given.leadership ?? alwaysLead)(onChange);
    },
    isLeader: () => leadership?.isLeader() ?? false,
    async health() {
      let answered = true;
      try {
        await sql`select 1`.execute(db);
      } catch (error) {
        answered = false;
        logger.warn('health: database check failed', { error });
      }
      const problems = [database.problem(), ...(work?.watchers.problems() ?? [])].filter((problem) => problem != null);
      return { ok: answered && problems.length === 0, answered, problems, chain_sources: budgets.stats(), ...(rates && { rate_sources: rates.health() }) };
    },
    async stop(graceMs) {
      await leadership?.stop();
      stopWakingWebhooks();
      await webhooks.stop(graceMs);
      for (const running of workers.values()) running.close();
      await expiry.stop();
      await feed.close();
      if (ownDatabase) await database.close();
    },
  };
}
