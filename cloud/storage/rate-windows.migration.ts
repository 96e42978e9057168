import type { Kysely, Migration } from 'kysely';

/** Cloud's request windows, kept in the shared database so every instance counts the same requests. */
export const rateWindowsMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('cloud_rate_windows')
      .addColumn('bucket', 'text', (c) => c.primaryKey())
      .addColumn('hits', 'text', (c) => c.notNull())
      .addColumn('last_hit_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('cloud_rate_windows_last_hit').on('cloud_rate_windows').columns(['last_hit_at']).execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropTable('cloud_rate_windows').execute();
  },
};
