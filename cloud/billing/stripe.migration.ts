import type { Kysely, Migration } from 'kysely';

/** Card plans: the Stripe ids a purchase is known by, and the Stripe events already handled. */
export const stripeBillingMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable('cloud_subscriptions').addColumn('provider_checkout_id', 'text').execute();
    await db.schema.alterTable('cloud_subscriptions').addColumn('provider_subscription_id', 'text').execute();
    await db.schema.createIndex('cloud_subscriptions_provider_sub').on('cloud_subscriptions').columns(['provider_subscription_id']).execute();
    await db.schema
      .createTable('cloud_stripe_events')
      .addColumn('event_id', 'text', (c) => c.primaryKey())
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('received_at', 'bigint', (c) => c.notNull())
      .execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropTable('cloud_stripe_events').execute();
    await db.schema.dropIndex('cloud_subscriptions_provider_sub').execute();
    await db.schema.alterTable('cloud_subscriptions').dropColumn('provider_subscription_id').execute();
    await db.schema.alterTable('cloud_subscriptions').dropColumn('provider_checkout_id').execute();
  },
};
