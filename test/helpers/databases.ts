import { defaultChains } from '../../core/chains/default-chains.ts';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Kysely } from 'kysely';
import type { Database } from '../../core/db/database.ts';
import { SCHEMA_CHANGE_LOCK } from '../../core/db/migrate.ts';
import { openCoreDatabase, type CoreDatabase, type CoreTables } from '../../core/schema.ts';
import { openCloudDatabase } from '../../cloud/storage/cloud.schema.ts';
import type { CloudTables } from '../../cloud/storage/cloud.tables.ts';
import { tempSqliteUrl } from './listener.ts';

export interface TestDatabase {
  name: 'sqlite' | 'postgres';
  /** Why this database is skipped, or undefined when it runs. */
  skip?: string;
  /**
   * A fresh, empty database: `open` migrates it as the listener's, `openCloud` as Cloud's. The URL
   * can be opened again (e.g. by a restarted listener).
   */
  create(): Promise<CreatedDatabase>;
}

export interface CreatedDatabase {
  url: string;
  open(): Promise<CoreDatabase>;
  openCloud(): Promise<Database<CloudTables>>;
  drop(): Promise<void>;
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
      return { url, open: () => openCoreDatabase(url, defaultChains), openCloud: () => openCloudDatabase(url, defaultChains), drop: async () => {} };
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
        open: () => openCoreDatabase(url.toString(), defaultChains),
        openCloud: () => openCloudDatabase(url.toString(), defaultChains),
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

/** Runs `use` on a fresh database of this kind, migrated as the listener's, then closes and drops it. */
export function withFreshDatabase<T>(kind: TestDatabase, use: (db: Kysely<CoreTables>) => Promise<T>): Promise<T> {
  return withFresh(kind, (created) => created.open(), use);
}

/** Runs `use` on a fresh database of this kind, migrated as Cloud's, then closes and drops it. */
export function withFreshCloudDatabase<T>(kind: TestDatabase, use: (db: Kysely<CloudTables>) => Promise<T>): Promise<T> {
  return withFresh(kind, (created) => created.openCloud(), use);
}

async function withFresh<Tables, T>(kind: TestDatabase, open: (created: CreatedDatabase) => Promise<Database<Tables>>, use: (db: Kysely<Tables>) => Promise<T>): Promise<T> {
  const created = await kind.create();
  const { db, close } = await open(created);
  try {
    return await use(db);
  } finally {
    await close();
    await created.drop();
  }
}
