import type { Kysely, Migration } from 'kysely';

const columns = ['provider_customer_id', 'provider_status', 'provider_updated_at', 'cancels_at', 'payment_failed_at', 'last_paid_at'] as const;

/**
 * Card subscriptions: what Stripe last said about each one (customer, status, scheduled cancellation,
 * a failed charge), so the dashboard can show it and a stale or out-of-order event can be told apart.
 */
export const stripeSubscriptionStateMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable('cloud_subscriptions').addColumn('provider_customer_id', 'text').execute();
    await db.schema.alterTable('cloud_subscriptions').addColumn('provider_status', 'text').execute();
    await db.schema.alterTable('cloud_subscriptions').addColumn('provider_updated_at', 'bigint').execute();
    await db.schema.alterTable('cloud_subscriptions').addColumn('cancels_at', 'bigint').execute();
    await db.schema.alterTable('cloud_subscriptions').addColumn('payment_failed_at', 'bigint').execute();
    await db.schema.alterTable('cloud_subscriptions').addColumn('last_paid_at', 'bigint').execute();
  },
  async down(db: Kysely<any>) {
    for (const column of [...columns].reverse()) await db.schema.alterTable('cloud_subscriptions').dropColumn(column).execute();
  },
};
