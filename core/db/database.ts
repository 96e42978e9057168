import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, type SqliteDatabase } from 'kysely';
import pg from 'pg';
import type { Logger } from '../log.ts';
import type { WatcherProblem } from '../watch-progress.ts';
import { createDatabaseHealth, describeDatabaseError } from './availability.ts';
import { migrateToLatest, type Dialect, type EditionSchema } from './migrate.ts';
import { fairSqliteDialect } from './fair-sqlite-dialect.ts';
import { observedDialect } from './observed-dialect.ts';
import { DEFAULT_DATABASE_WAIT_S, waitForDatabase } from './wait-for-database.ts';
import { startBackgroundCheckpoints } from './sqlite-checkpointer.ts';

export interface Database<Tables> {
  db: Kysely<Tables>;
  dialect: Dialect;
  /** The database's problem for /health (`component: database`) while it cannot be used; null when it answers. */
  problem(): WatcherProblem | null;
  close(): Promise<void>;
}

export interface OpenOptions {
  logger?: Logger;
  /** Long-running servers: SQLite checkpoints off the event loop. */
  backgroundCheckpoints?: boolean;
  /** Postgres: how long to wait at start for an unreachable database before giving up (DATABASE_WAIT_S). */
  waitS?: number;
}

/** Postgres: the longest wait for a new connection to the server before a query fails. */
export const CONNECT_TIMEOUT_MS = 5_000;

/** Postgres: the server cancels a statement that runs longer (migrations excepted). */
export const STATEMENT_TIMEOUT_MS = 20_000;

const PG_INT8 = 20;

/**
 * Opens `sqlite:<path>` (better-sqlite3, WAL) or `postgres://…` (pg pool) and migrates it to the
 * latest `schema` of an edition (`Tables` is that schema's type). Epoch-ms columns are bigint in
 * Postgres; they fit a JS number, so int8 is parsed as one instead of pg's default string.
 */
export async function openDatabase<Tables>(
  url: string,
  schema: EditionSchema,
  options: OpenOptions = {},
): Promise<Database<Tables>> {
  let db: Kysely<Tables>;
  let dialect: Dialect;
  let checkpoints: { stop(): Promise<void> } | undefined;
  const health = createDatabaseHealth(url.startsWith('sqlite:') ? 'sqlite' : 'postgres');
  if (url.startsWith('sqlite:')) {
    const path = url.slice('sqlite:'.length);
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    const sqlite = new SQLite(path);
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('busy_timeout = 5000');
    if (options.backgroundCheckpoints && path !== ':memory:') checkpoints = startBackgroundCheckpoints(sqlite, path, options.logger);
    db = new Kysely<Tables>({ dialect: observedDialect(fairSqliteDialect(withStatementCache(sqlite)), health) });
    dialect = 'sqlite';
  } else {
    const pool = postgresPool(url, options.logger, { statementTimeoutMs: STATEMENT_TIMEOUT_MS });
    db = new Kysely<Tables>({ dialect: observedDialect(new PostgresDialect({ pool }), health) });
    dialect = 'postgres';
  }
  try {
    if (dialect === 'sqlite') await migrateToLatest(db, dialect, schema, options.logger);
    else await waitForDatabase(() => migratePostgres(url, schema, options.logger), { waitS: options.waitS ?? DEFAULT_DATABASE_WAIT_S, logger: options.logger });
  } catch (error) {
    await checkpoints?.stop();
    await db.destroy();
    throw error;
  }
  return {
    db,
    dialect,
    problem: health.problem,
    async close() {
      await checkpoints?.stop();
      await db.destroy();
    },
  };
}

/**
 * A pg pool that survives its database going away: a client's connection dying (a failover, a
 * restart, pg_terminate_backend) is logged, never an unhandled 'error' event, and the pool makes a
 * new connection for the next query. Connecting waits CONNECT_TIMEOUT_MS at most, so during an
 * outage every query fails within a bounded time instead of hanging. Waiting for one of the
 * pool's connections while all are busy (a burst of requests) is not bounded: that is load, not an
 * outage. TCP keepalive notices a silent peer. Epoch-ms columns are bigint in Postgres; they fit a JS number, so int8 is parsed
 * as one instead of pg's default string.
 */
function postgresPool(url: string, logger: Logger | undefined, options: { statementTimeoutMs?: number; max?: number } = {}): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 10,
    Client: BoundedConnectClient,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    ...(options.statementTimeoutMs ? { statement_timeout: options.statementTimeoutMs } : {}),
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === PG_INT8 ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
    },
  });
  // An idle client's connection died: the pool drops it and reports here.
  pool.on('error', (error) => logger?.warn('database connection lost; a new one is made for the next query', { error: describeDatabaseError(error) }));
  // A checked-out client between two queries (inside a transaction) has no pool listener: its query fails instead.
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

/** A pg client that gives up connecting after CONNECT_TIMEOUT_MS (the pool's own timeout would also cut waits for a busy pool's connection). */
class BoundedConnectClient extends pg.Client {
  constructor(config: pg.ClientConfig = {}) {
    super({ ...config, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  }
}

/**
 * Migrations run over their own short-lived connections without the statement timeout: a
 * migration may rewrite a large table, and waiting for another instance's migrations to finish
 * (the schema lock) is not a hung statement.
 */
async function migratePostgres(url: string, schema: EditionSchema, logger: Logger | undefined): Promise<void> {
  const db = new Kysely<unknown>({ dialect: new PostgresDialect({ pool: postgresPool(url, logger, { max: 3 }) }) });
  try {
    await migrateToLatest(db, 'postgres', schema, logger);
  } finally {
    await db.destroy();
  }
}

const STATEMENT_CACHE_SIZE = 500;

/**
 * kysely prepares every query anew; better-sqlite3 statements are reusable, and kysely runs one
 * query at a time on its single connection, so the hot queries are prepared once. SQLite
 * re-prepares a cached statement by itself after a schema change.
 */
function withStatementCache(sqlite: SQLite.Database): SqliteDatabase {
  const cache = new Map<string, SQLite.Statement>();
  return {
    close: () => sqlite.close(),
    prepare(query: string) {
      let statement = cache.get(query);
      if (!statement) {
        if (cache.size >= STATEMENT_CACHE_SIZE) cache.clear();
        statement = sqlite.prepare(query);
        cache.set(query, statement);
      }
      return statement;
    },
  };
}
