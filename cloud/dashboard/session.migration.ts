import type { Kysely, Migration } from 'kysely';

export const dashboardSessionsMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('cloud_dashboard_sessions')
      .addColumn('session_hash', 'text', (c) => c.primaryKey())
      .addColumn('merchant_id', 'text', (c) => c.notNull())
      .addColumn('key_hash', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('cloud_dashboard_sessions_merchant').on('cloud_dashboard_sessions').columns(['merchant_id']).execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropTable('cloud_dashboard_sessions').execute();
  },
};
