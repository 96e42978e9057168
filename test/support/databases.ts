import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Kysely } from 'kysely';
import { openDatabase, SCHEMA_CHANGE_LOCK, type Database } from '../../core/db/database.ts';
import type { Tables } from '../../core/db/tables.ts';
import { tempSqliteUrl } from './listener.ts';

export interface TestDatabase {
  name: 'sqlite' | 'postgres';
  /** Why this database is skipped, or undefined when it runs. */
  skip?: string;
  /** A fresh, migrated, empty database; the URL can be opened again (e.g. by a restarted listener). */
  create(): Promise<{ url: string; open(): Promise<Database>; drop(): Promise<void> }>;
}

const pgUrl = process.env.TEST_DATABASE_URL;

/**
 * SQLite always; Postgres when TEST_DATABASE_URL is set. Each Postgres database is a schema of its
 * own (search_path in the URL), so tests never see each other's rows.
 */
export const testDatabases: TestDatabase[] = [
  {
    name: 'sqlite',
    async create() {
      const url = tempSqliteUrl();
      return { url, open: () => openDatabase(url), drop: async () => {} };
    },
  },
  {
    name: 'postgres',
    skip: pgUrl ? undefined : 'TEST_DATABASE_URL is not set: Postgres storage tests skipped',
    async create() {
      const schema = `t_${randomBytes(6).toString('hex')}`;
      const admin = new pg.Client({ connectionString: pgUrl });
      await admin.connect();
      await admin.query(`create schema ${schema}`);
      await admin.end();
      const url = new URL(pgUrl!);
      url.searchParams.set('options', `-c search_path=${schema}`);
      return {
        url: url.toString(),
        open: () => openDatabase(url.toString()),
        async drop() {
          const client = new pg.Client({ connectionString: pgUrl });
          await client.connect();
          // Not while a migration elsewhere reads every schema's catalogue (see SCHEMA_CHANGE_LOCK).
          await client.query(`select pg_advisory_lock(${SCHEMA_CHANGE_LOCK})`);
          await client.query(`drop schema ${schema} cascade`);
          await client.end();
        },
      };
    },
  },
];

/** Runs `use` on a fresh, migrated database of this kind, then closes and drops it. */
export async function withFreshDatabase<T>(kind: TestDatabase, use: (db: Kysely<Tables>) => Promise<T>): Promise<T> {
  const created = await kind.create();
  const { db, close } = await created.open();
  try {
    return await use(db);
  } finally {
    await close();
    await created.drop();
  }
}
