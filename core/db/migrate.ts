import { Migrator, sql, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import type { Logger } from '../log.ts';

export type Dialect = 'sqlite' | 'postgres';

/** What an edition's database is made of: its migrations, and what earlier versions left behind. */
export interface EditionSchema {
  /**
   * Ordered by name, the edition's own and those of the core together. Add a new entry for every
   * schema change; never edit one that has shipped. Each gets the dialect because a few column
   * types differ between SQLite and Postgres.
   */
  migrations(dialect: Dialect): Record<string, Migration>;
  /**
   * Migrations earlier versions ran on this edition's databases that it no longer owns. One found
   * executed stands as done (its tables and rows stay); one not executed is never run, so a fresh
   * database gets none of it.
   */
  retired: readonly string[];
}

/**
 * kysely's migrator reads the catalogue of every schema in the database (has_schema_privilege by
 * name), which fails when another schema is dropped meanwhile: other deployments or test
 * databases sharing the server. Migrations, and dropping a schema, hold this advisory lock.
 */
export const SCHEMA_CHANGE_LOCK = 7_318_402_951;

const MIGRATION_TABLE = 'kysely_migration';

export async function migrateToLatest(db: Kysely<any>, dialect: Dialect, schema: EditionSchema, logger?: Logger): Promise<void> {
  if (dialect === 'sqlite') return migrateWith(db, dialect, schema, undefined, logger);
  await db.connection().execute(async (lockHolder) => {
    await sql`select pg_advisory_lock(${sql.lit(SCHEMA_CHANGE_LOCK)})`.execute(lockHolder);
    try {
      // kysely looks for its bookkeeping tables in every schema unless told which one: name ours, or
      // another schema's tables (other databases sharing the server) would be taken for this one's.
      const current = (await sql<{ schema: string }>`select current_schema() as schema`.execute(lockHolder)).rows[0]?.schema;
      await migrateWith(db, dialect, schema, current, logger);
    } finally {
      await sql`select pg_advisory_unlock(${sql.lit(SCHEMA_CHANGE_LOCK)})`.execute(lockHolder);
    }
  });
}

async function migrateWith(db: Kysely<any>, dialect: Dialect, schema: EditionSchema, migrationTableSchema: string | undefined, logger?: Logger): Promise<void> {
  const provider = await editionProvider(db, dialect, schema, migrationTableSchema);
  // An edition's own migration can sort before a later core one its database already ran (a database
  // opened by the listener, then by Cloud): each runs once, in name order among those not yet run.
  const migrator = new Migrator({ db, provider, migrationTableSchema, allowUnorderedMigrations: true });
  const { error, results } = await migrator.migrateToLatest();
  for (const result of results ?? []) {
    if (result.status === 'Success') logger?.info('migration applied', { migration: result.migrationName });
  }
  if (error) throw error instanceof Error ? error : new Error(String(error));
}

/** Already done: a retired migration stands in its place, so kysely's order and completeness checks still hold. */
const alreadyApplied: Migration = {
  async up() {
    throw new Error('a retired migration never runs');
  },
};

/**
 * The edition's migrations plus the retired ones this database executed. kysely refuses a
 * database whose executed migrations are not all in the list (it takes it for a newer version's),
 * and the check still guards everything else.
 */
async function editionProvider(db: Kysely<any>, dialect: Dialect, schema: EditionSchema, migrationTableSchema: string | undefined): Promise<MigrationProvider> {
  const migrations = { ...schema.migrations(dialect) };
  const executed = new Set(await executedMigrations(db, dialect, migrationTableSchema));
  for (const name of schema.retired) {
    if (executed.has(name) && !(name in migrations)) migrations[name] = alreadyApplied;
  }
  return { getMigrations: async () => migrations };
}

async function executedMigrations(db: Kysely<any>, dialect: Dialect, migrationTableSchema: string | undefined): Promise<string[]> {
  const exists =
    dialect === 'sqlite'
      ? await sql`select 1 from sqlite_master where type = 'table' and name = ${MIGRATION_TABLE}`.execute(db)
      : await sql`select 1 from information_schema.tables where table_schema = ${migrationTableSchema} and table_name = ${MIGRATION_TABLE}`.execute(db);
  if (exists.rows.length === 0) return [];
  const table = migrationTableSchema ? db.withSchema(migrationTableSchema) : db;
  const rows = await table.selectFrom(MIGRATION_TABLE).select('name').execute();
  return rows.map((row) => row.name as string);
}
