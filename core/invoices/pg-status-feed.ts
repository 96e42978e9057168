import { sql, type Kysely } from 'kysely';
import pg from 'pg';
import type { Logger } from '../log.ts';
import { exponentialBackoffMs } from '../net/backoff.ts';
import type { CoreTables } from '../schema.ts';
import { createDispatcher, createMemoryStatusFeed, type StatusChange, type StatusFeed } from './status-feed.ts';

/** The LISTEN connection's name in pg_stat_activity. */
export const STATUS_FEED_APPLICATION = 'service-status-feed';

/** A NOTIFY payload must stay under 8,000 bytes: one carries at most this many invoices. */
const PER_NOTIFY = 80;
/** Invoices re-read per statement. */
const PER_READ = 500;

export interface PgStatusFeedOptions {
  databaseUrl: string;
  db: Kysely<CoreTables>;
  logger: Logger;
  /** Waits between reconnection attempts: doubling from `baseMs` up to `maxMs`. */
  retry?: { baseMs: number; maxMs: number };
}

export interface PgStatusFeed extends StatusFeed {
  /** Whether the LISTEN connection is up now. */
  listening(): boolean;
}

// Channels are database-wide; Service's tables live in one schema: one channel per schema.
const channel = sql<string>`'invoice_status_' || current_schema()`;

/** A writer's transaction that notifies, on commit, the ids of the invoices it changed. */
const notifyingTransaction: StatusFeed['transaction'] = async (database, work) =>
  database.transaction().execute(async (trx) => {
    const changed: string[] = [];
    const result = await work(trx, (change) => changed.push(change.invoice_id));
    for (let i = 0; i < changed.length; i += PER_NOTIFY) {
      await sql`select pg_notify(${channel}, ${JSON.stringify(changed.slice(i, i + PER_NOTIFY))})`.execute(trx);
    }
    return result;
  });

/** The invoice ids a notification carries; null when it is not one of ours. */
function invoiceIdsOf(payload: string | undefined): string[] | null {
  let ids: unknown;
  try {
    ids = JSON.parse(payload ?? '');
  } catch {
    ids = undefined;
  }
  if (!Array.isArray(ids)) return null;
  return ids.filter((id): id is string => typeof id === 'string');
}

/**
 * Re-reads changed invoices that someone watches and tells their listeners. Re-reads run one at a
 * time, in arrival order, each taking every id that arrived meanwhile.
 */
function changeRereader(db: Kysely<CoreTables>, dispatcher: ReturnType<typeof createDispatcher>, logger: Logger) {
  const pending = new Set<string>();
  let reading: Promise<void> = Promise.resolve();

  async function drain(): Promise<void> {
    if (pending.size === 0) return;
    const invoiceIds = [...pending];
    pending.clear();
    try {
      for (const change of await readStatuses(db, invoiceIds)) dispatcher.emit(change);
    } catch (error) {
      // Lost with the database: the reconnection's re-read covers them.
      logger.warn('status feed: re-reading changed invoices failed', { error: String(error), invoices: invoiceIds.length });
    }
  }

  return {
    enqueue(invoiceIds: Iterable<string>): void {
      for (const invoiceId of invoiceIds) if (dispatcher.wanted(invoiceId)) pending.add(invoiceId);
      if (pending.size === 0) return;
      reading = reading.then(drain);
    },
    /** Resolves once the re-reads queued so far are done. */
    idle: () => reading,
  };
}

async function readStatuses(db: Kysely<CoreTables>, invoiceIds: string[]): Promise<StatusChange[]> {
  const changes: StatusChange[] = [];
  for (let i = 0; i < invoiceIds.length; i += PER_READ) {
    const rows = await db
      .selectFrom('invoices')
      .select(['invoice_id', 'merchant_id', 'status', 'updated_at'])
      .where('invoice_id', 'in', invoiceIds.slice(i, i + PER_READ))
      .execute();
    for (const row of rows) changes.push({ invoice_id: row.invoice_id, merchant_id: row.merchant_id, status: row.status, at: Number(row.updated_at) });
  }
  return changes;
}

/**
 * The feed of every instance on one Postgres database (one schema). A writer's transaction
 * carries `pg_notify` with the changed invoices' ids (nothing else), so Postgres delivers it on commit and never
 * for a rollback; each instance's LISTEN connection receives it, re-reads those rows and tells its
 * own listeners. When that connection is lost it reconnects (with backoff) and re-reads every
 * watched invoice, so a change made meanwhile still reaches its watchers.
 */
export async function createPgStatusFeed(options: PgStatusFeedOptions): Promise<PgStatusFeed> {
  const { db, logger } = options;
  const retry = options.retry ?? { baseMs: 250, maxMs: 10_000 };
  const dispatcher = createDispatcher((error) => logger.warn('status feed listener failed', { error: String(error) }));

  let client: pg.Client | null = null;
  let failures = 0;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let connecting: Promise<void> | undefined;

  const rereads = changeRereader(db, dispatcher, logger);

  function lost(which: pg.Client, error: unknown): void {
    if (client !== which) return;
    client = null;
    void which.end().catch(() => undefined);
    if (closed) return;
    logger.warn('status feed: LISTEN connection lost; reconnecting', { error: String(error) });
    schedule();
  }

  function schedule(): void {
    if (closed || timer) return;
    failures++;
    timer = setTimeout(() => {
      timer = undefined;
      connecting = connect(true);
    }, exponentialBackoffMs(failures, retry.baseMs, retry.maxMs));
  }

  async function connect(again: boolean): Promise<void> {
    const fresh = new pg.Client({ connectionString: options.databaseUrl, connectionTimeoutMillis: 10_000, application_name: STATUS_FEED_APPLICATION });
    // Without an 'error' handler a dropped connection would end the process.
    fresh.on('error', (error) => lost(fresh, error));
    fresh.on('end', () => lost(fresh, 'connection ended'));
    fresh.on('notification', (message) => {
      const invoiceIds = invoiceIdsOf(message.payload);
      if (invoiceIds) rereads.enqueue(invoiceIds);
      else logger.warn('status feed: a notification that is not ours was ignored');
    });
    try {
      await fresh.connect();
      const { rows } = await fresh.query<{ channel: string }>(`select 'invoice_status_' || current_schema() as channel`);
      await fresh.query(`listen ${fresh.escapeIdentifier(rows[0]!.channel)}`);
    } catch (error) {
      fresh.removeAllListeners('end');
      fresh.on('error', () => undefined);
      await fresh.end().catch(() => undefined);
      if (closed) return;
      logger.warn('status feed: cannot LISTEN; retrying', { error: String(error), attempt: failures + 1 });
      schedule();
      return;
    }
    if (closed) {
      await fresh.end().catch(() => undefined);
      return;
    }
    client = fresh;
    failures = 0;
    if (again) {
      logger.info('status feed: listening again; re-reading the watched invoices');
      rereads.enqueue(dispatcher.watched());
    }
  }

  connecting = connect(false);
  await connecting;

  return {
    transaction: notifyingTransaction,
    watch: dispatcher.watch,
    subscribe: dispatcher.subscribe,
    listening: () => client !== null,
    async close() {
      closed = true;
      clearTimeout(timer);
      await connecting;
      const open = client;
      client = null;
      await open?.end().catch(() => undefined);
      await rereads.idle();
    },
  };
}

/** The feed a deployment needs: LISTEN/NOTIFY on Postgres (several instances), in memory on SQLite (one). */
export async function openStatusFeed(dialect: 'sqlite' | 'postgres', options: PgStatusFeedOptions): Promise<StatusFeed> {
  if (dialect === 'postgres') return createPgStatusFeed(options);
  return createMemoryStatusFeed((error) => options.logger.warn('status feed listener failed', { error: String(error) }));
}
