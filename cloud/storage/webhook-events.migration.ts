import type { Kysely, Migration } from 'kysely';

/** The opt-in webhook events each merchant subscribes to (space-separated names); null: none, as before. */
export const webhookEventsMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable('cloud_merchants').addColumn('webhook_events', 'text').execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.alterTable('cloud_merchants').dropColumn('webhook_events').execute();
  },
};
