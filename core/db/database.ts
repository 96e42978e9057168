import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, Migrator, sql, PostgresDialect, type SqliteDatabase } from 'kysely';
import pg from 'pg';
import type { Logger } from '../log.ts';
import { migrationProvider } from './migrations.ts';
import { fairSqliteDialect } from './fair-sqlite-dialect.ts';
import { startBackgroundCheckpoints } from './sqlite-checkpointer.ts';
import type { Tables } from './tables.ts';

export type Dialect = 'sqlite' | 'postgres';

export interface Database {
  db: Kysely<Tables>;
  dialect: Dialect;
  close(): Promise<void>;
}

const PG_INT8 = 20;

/**
 * Opens `sqlite:<path>` (better-sqlite3, WAL) or `postgres://…` (pg pool) and migrates it to the
 * latest schema. Epoch-ms columns are bigint in Postgres; they fit a JS number, so int8 is parsed
 * as one instead of pg's default string.
 */
export async function openDatabase(
  url: string,
  options: { logger?: Logger; /** Long-running servers: SQLite checkpoints off the event loop. */ backgroundCheckpoints?: boolean } = {},
): Promise<Database> {
  let db: Kysely<Tables>;
  let dialect: Dialect;
  let checkpoints: { stop(): Promise<void> } | undefined;
  if (url.startsWith('sqlite:')) {
    const path = url.slice('sqlite:'.length);
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    const sqlite = new SQLite(path);
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('busy_timeout = 5000');
    if (options.backgroundCheckpoints && path !== ':memory:') checkpoints = startBackgroundCheckpoints(sqlite, path, options.logger);
    db = new Kysely<Tables>({ dialect: fairSqliteDialect(withStatementCache(sqlite)) });
    dialect = 'sqlite';
  } else {
    const pool = new pg.Pool({
      connectionString: url,
      max: 10,
      types: {
        getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
          oid === PG_INT8 ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
      },
    });
    db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool }) });
    dialect = 'postgres';
  }
  try {
    await migrateToLatest(db, dialect, options.logger);
  } catch (error) {
    await checkpoints?.stop();
    throw error;
  }
  return {
    db,
    dialect,
    async close() {
      await checkpoints?.stop();
      await db.destroy();
    },
  };
}

/**
 * kysely's migrator reads the catalogue of every schema in the database (has_schema_privilege by
 * name), which fails when another schema is dropped meanwhile: other deployments or test
 * databases sharing the server. Migrations, and dropping a schema, hold this advisory lock.
 */
export const SCHEMA_CHANGE_LOCK = 7_318_402_951;

export async function migrateToLatest(db: Kysely<Tables>, dialect: Dialect, logger?: Logger): Promise<void> {
  if (dialect === 'sqlite') return migrateWith(db, dialect, undefined, logger);
  await db.connection().execute(async (lockHolder) => {
    await sql`select pg_advisory_lock(${sql.lit(SCHEMA_CHANGE_LOCK)})`.execute(lockHolder);
    try {
      // kysely looks for its bookkeeping tables in every schema unless told which one: name ours, or
      // another schema's tables (other databases sharing the server) would be taken for this one's.
      const schema = (await sql<{ schema: string }>`select current_schema() as schema`.execute(lockHolder)).rows[0]?.schema;
      await migrateWith(db, dialect, schema, logger);
    } finally {
      await sql`select pg_advisory_unlock(${sql.lit(SCHEMA_CHANGE_LOCK)})`.execute(lockHolder);
    }
  });
}

async function migrateWith(db: Kysely<Tables>, dialect: Dialect, migrationTableSchema: string | undefined, logger?: Logger): Promise<void> {
  const migrator = new Migrator({ db, provider: migrationProvider(dialect), migrationTableSchema });
  const { error, results } = await migrator.migrateToLatest();
  for (const result of results ?? []) {
    if (result.status === 'Success') logger?.info('migration applied', { migration: result.migrationName });
  }
  if (error) throw error instanceof Error ? error : new Error(String(error));
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
