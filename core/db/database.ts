import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, type SqliteDatabase } from 'kysely';
import pg from 'pg';
import type { Logger } from '../log.ts';
import { migrateToLatest, type Dialect, type EditionSchema } from './migrate.ts';
import { fairSqliteDialect } from './fair-sqlite-dialect.ts';
import { startBackgroundCheckpoints } from './sqlite-checkpointer.ts';

export interface Database<Tables> {
  db: Kysely<Tables>;
  dialect: Dialect;
  close(): Promise<void>;
}

export interface OpenOptions {
  logger?: Logger;
  /** Long-running servers: SQLite checkpoints off the event loop. */
  backgroundCheckpoints?: boolean;
}

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
    await migrateToLatest(db, dialect, schema, options.logger);
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
