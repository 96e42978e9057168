import type { Kysely, Migration } from 'kysely';

/**
 * The webhook worker claims the due events of merchants with a webhook URL about once a second:
 * this index lists those merchants without reading every account (at 100,000 merchants that read
 * was tens of milliseconds of every idle second).
 */
export const webhookMerchantsIndexMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.createIndex('cloud_merchants_webhook').on('cloud_merchants').columns(['webhook_url', 'merchant_id']).execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropIndex('cloud_merchants_webhook').execute();
  },
};
