import { defaultChains } from '../../core/chains/default-chains.ts';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { cloudSchema } from '../../cloud/storage/cloud.schema.ts';
import { migrateToLatest, type Dialect } from '../../core/db/migrate.ts';
import type { TestDatabase } from './databases.ts';

/**
 * A database as an older release left it: by default the one before 0009 (migrated up to 0008
 * only). Releases before the editions were split ran one list on every database, the listener's
 * and Cloud's alike: Cloud's list is that one, with 0011's Cloud claims split out after 0011.
 */
export async function openOldSchema(kind: TestDatabase['name'], url: string, lastMigration = '0008_stripe_subscription_state'): Promise<Kysely<any>> {
  const db =
    kind === 'sqlite'
      ? new Kysely<any>({ dialect: new SqliteDialect({ database: new SQLite(url.slice('sqlite:'.length)) }) })
      : new Kysely<any>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 2 }) }) });
  const upTo = (dialect: Dialect) => Object.fromEntries(Object.entries(cloudSchema(defaultChains).migrations(dialect)).filter(([name]) => name <= lastMigration));
  await migrateToLatest(db, kind, { migrations: upTo, retired: [] });
  return db;
}

/**
 * A database exactly as the last release before the editions were split left it: every migration
 * through 0011 run, Cloud's included, with 0011's Cloud claims done inside 0011.
 */
export async function openPreEditionsSchema(kind: TestDatabase['name'], url: string): Promise<Kysely<any>> {
  const db = await openOldSchema(kind, url, '0011_cloud_fixed_address_claims');
  await db.deleteFrom('kysely_migration').where('name', '=', '0011_cloud_fixed_address_claims').execute();
  return db;
}
