import { type Kysely, type Migration, type MigrationProvider } from 'kysely';
import { webhookDeliveryMigration } from '../webhooks/delivery-migration.ts';
import type { Dialect } from './database.ts';
import { baseStablecoinsDown, baseStablecoinsUp } from '../base/base.migration.ts';
import { cloudAccountsMigration } from '../../cloud/cloud.migration.ts';
import { dashboardSessionsMigration } from '../../cloud/dashboard/session.migration.ts';
import { stripeBillingMigration } from '../../cloud/stripe.migration.ts';
import { rateWindowsMigration } from '../../cloud/rate-windows.migration.ts';
import { stripeSubscriptionStateMigration } from '../../cloud/stripe-subscription.migration.ts';
import { keyIdentityMigration } from '../invoices/key-identity.migration.ts';
import { nonceLeasesByAddressMigration } from '../base/nonce-leases.migration.ts';
import { baseAddressClaimsMigration } from '../base/address-claims.ts';

/**
 * Ordered, named migrations. Add a new entry for every schema change; never edit one that has
 * shipped. Each gets the dialect because a few column types differ between SQLite and Postgres.
 */
export function migrations(dialect: Dialect): Record<string, Migration> {
  return {
    '0001_invoices_and_outbox': {
      async up(db: Kysely<any>) {
        await db.schema
          .createTable('invoices')
          .addColumn('invoice_id', 'text', (c) => c.primaryKey())
          .addColumn('merchant_id', 'text', (c) => c.notNull())
          .addColumn('chain', 'text', (c) => c.notNull())
          .addColumn('asset', 'text', (c) => c.notNull())
          .addColumn('network', 'text')
          .addColumn('receive_address', 'text', (c) => c.notNull())
          .addColumn('child_index', 'integer')
          .addColumn('derivation_path', 'text')
          .addColumn('key_id', 'text')
          .addColumn('amount_sats', 'bigint')
          .addColumn('amount_units', 'text')
          .addColumn('memo', 'text')
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('tx_hash', 'text')
          .addColumn('paid_at', 'bigint')
          .addColumn('expires_at', 'bigint', (c) => c.notNull())
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addColumn('updated_at', 'bigint', (c) => c.notNull())
          .execute();
        // A child index is never handed out twice for the same wallet key.
        await db.schema
          .createIndex('invoices_child_index_unique')
          .on('invoices')
          .columns(['merchant_id', 'chain', 'key_id', 'child_index'])
          .unique()
          .execute();
        await db.schema.createIndex('invoices_merchant_created').on('invoices').columns(['merchant_id', 'created_at']).execute();
        await db.schema.createIndex('invoices_status').on('invoices').columns(['status', 'chain']).execute();

        await db.schema
          .createTable('address_counters')
          .addColumn('merchant_id', 'text', (c) => c.notNull())
          .addColumn('chain', 'text', (c) => c.notNull())
          .addColumn('key_id', 'text', (c) => c.notNull())
          .addColumn('next_index', 'integer', (c) => c.notNull())
          .addPrimaryKeyConstraint('address_counters_pk', ['merchant_id', 'chain', 'key_id'])
          .execute();

        await db.schema
          .createTable('events')
          .addColumn('seq', dialect === 'postgres' ? 'bigserial' : 'integer', (c) =>
            dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement(),
          )
          .addColumn('event_id', 'text', (c) => c.notNull().unique())
          .addColumn('merchant_id', 'text', (c) => c.notNull())
          .addColumn('type', 'text', (c) => c.notNull())
          .addColumn('payload', 'text', (c) => c.notNull())
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .execute();
        await db.schema.createIndex('events_merchant').on('events').columns(['merchant_id', 'seq']).execute();
      },
      async down(db: Kysely<any>) {
        await db.schema.dropTable('events').execute();
        await db.schema.dropTable('address_counters').execute();
        await db.schema.dropTable('invoices').execute();
      },
    },
    '0002_btc_watching': {
      async up(db: Kysely<any>) {
        await db.schema
          .createTable('btc_payments')
          .addColumn('merchant_id', 'text', (c) => c.notNull())
          .addColumn('invoice_id', 'text', (c) => c.notNull())
          .addColumn('txid', 'text', (c) => c.notNull())
          .addColumn('vout', 'integer', (c) => c.notNull())
          .addColumn('value_sats', 'bigint', (c) => c.notNull())
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('block_height', 'integer')
          .addColumn('block_hash', 'text')
          .addColumn('first_seen_at', 'bigint', (c) => c.notNull())
          .addColumn('reported', 'integer', (c) => c.notNull().defaultTo(0))
          .addPrimaryKeyConstraint('btc_payments_pk', ['merchant_id', 'txid', 'vout'])
          .execute();
        await db.schema.createIndex('btc_payments_invoice').on('btc_payments').columns(['merchant_id', 'invoice_id']).execute();
        await db.schema.createIndex('btc_payments_unreported').on('btc_payments').columns(['merchant_id', 'reported']).execute();
        await db.schema
          .createTable('btc_blocks')
          .addColumn('merchant_id', 'text', (c) => c.notNull())
          .addColumn('height', 'integer', (c) => c.notNull())
          .addColumn('hash', 'text', (c) => c.notNull())
          .addColumn('processed_at', 'bigint', (c) => c.notNull())
          .addPrimaryKeyConstraint('btc_blocks_pk', ['merchant_id', 'height'])
          .execute();
      },
      async down(db: Kysely<any>) {
        await db.schema.dropTable('btc_blocks').execute();
        await db.schema.dropTable('btc_payments').execute();
      },
    },
    '0002_webhook_delivery': webhookDeliveryMigration,
    '0003_base_stablecoins': {
      async up(db: Kysely<any>) {
        await baseStablecoinsUp(db);
      },
      async down(db: Kysely<any>) {
        await baseStablecoinsDown(db);
      },
    },
    '0004_cloud_accounts': cloudAccountsMigration,
    '0005_dashboard_sessions': dashboardSessionsMigration,
    '0006_stripe_billing': stripeBillingMigration,
    '0007_cloud_rate_windows': rateWindowsMigration,
    '0008_stripe_subscription_state': stripeSubscriptionStateMigration,
    '0009_key_identity': keyIdentityMigration,
    '0010_nonce_leases_by_address': nonceLeasesByAddressMigration,
    '0011_base_address_claims': baseAddressClaimsMigration,
  };
}

export function migrationProvider(dialect: Dialect): MigrationProvider {
  return { getMigrations: async () => migrations(dialect) };
}
