import type { Kysely, Migration } from 'kysely';

export const cloudAccountsMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('cloud_merchants')
      .addColumn('merchant_id', 'text', (c) => c.primaryKey())
      .addColumn('email', 'text', (c) => c.notNull().unique())
      .addColumn('shop_name', 'text', (c) => c.notNull())
      .addColumn('btc_xpub', 'text')
      .addColumn('base_xpub', 'text')
      .addColumn('base_address', 'text')
      .addColumn('webhook_url', 'text')
      .addColumn('webhook_secret', 'text')
      .addColumn('plan', 'text', (c) => c.notNull())
      .addColumn('plan_expires_at', 'bigint')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('cloud_api_keys')
      .addColumn('key_hash', 'text', (c) => c.primaryKey())
      .addColumn('merchant_id', 'text', (c) => c.notNull())
      .addColumn('prefix', 'text', (c) => c.notNull())
      .addColumn('label', 'text', (c) => c.notNull())
      .addColumn('revoked', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('cloud_api_keys_merchant').on('cloud_api_keys').columns(['merchant_id']).execute();
    await db.schema
      .createTable('cloud_usage')
      .addColumn('merchant_id', 'text', (c) => c.notNull())
      .addColumn('month', 'text', (c) => c.notNull())
      .addColumn('invoices', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('cloud_usage_pk', ['merchant_id', 'month'])
      .execute();
    await db.schema
      .createTable('cloud_subscriptions')
      .addColumn('subscription_id', 'text', (c) => c.primaryKey())
      .addColumn('merchant_id', 'text', (c) => c.notNull())
      .addColumn('plan', 'text', (c) => c.notNull())
      .addColumn('method', 'text', (c) => c.notNull())
      .addColumn('amount_usd', 'integer', (c) => c.notNull())
      .addColumn('invoice_id', 'text')
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('applied_at', 'bigint')
      .execute();
    await db.schema.createIndex('cloud_subscriptions_status').on('cloud_subscriptions').columns(['status']).execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropTable('cloud_subscriptions').execute();
    await db.schema.dropTable('cloud_usage').execute();
    await db.schema.dropTable('cloud_api_keys').execute();
    await db.schema.dropTable('cloud_merchants').execute();
  },
};
