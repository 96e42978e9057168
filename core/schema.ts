import type { Migration } from 'kysely';
import { evmAddressClaimsMigration } from './evm/address-claims.migration.ts';
import { evmChainColumnMigration } from './evm/evm-chain-column.migration.ts';
import { baseStablecoinsDown, baseStablecoinsUp } from './evm/evm.migration.ts';
import type { EvmTables } from './evm/evm.tables.ts';
import { nonceLeasesByAddressMigration } from './evm/nonce-leases.migration.ts';
import { btcWatchingMigration } from './btc/btc.migration.ts';
import { btcHeadersMigration } from './btc/btc-headers.migration.ts';
import type { BtcBlocksTable, BtcHeadersTable, BtcPaymentsTable } from './btc/btc.tables.ts';
import { openDatabase, type Database, type OpenOptions } from './db/database.ts';
import type { Dialect, EditionSchema } from './db/migrate.ts';
import type { EventsTable } from './events/events.tables.ts';
import type { AddressCountersTable, InvoicesTable } from './invoices/invoice.tables.ts';
import { invoicesCreatedIndexMigration } from './invoices/created-index.migration.ts';
import { invoicesExpiryIndexMigration } from './invoices/expiry-index.migration.ts';
import { invoicesAndOutboxMigration } from './invoices/invoices.migration.ts';
import { invoiceVerificationMigration } from './invoices/verification.migration.ts';
import { keyIdentityMigration, noKeyIdRenames, type KeyIdRenames } from './invoices/key-identity.migration.ts';
import { webhookDeliveryMigration } from './webhooks/delivery-migration.ts';
import { oauthGrantKeyMigration, oauthStoreMigration } from './oauth/oauth.migration.ts';
import type { OAuthTables } from './oauth/oauth.tables.ts';
import type { EventDeliveryColumns, WebhookAttemptsTable } from './webhooks/delivery-tables.ts';
import { x402SettlementsMigration } from './x402/x402.migration.ts';
import type { X402Tables } from './x402/x402.tables.ts';

/** The core's tables, each defined by the module that owns it. An edition's tables extend these. */
export interface CoreTables extends EvmTables, OAuthTables, X402Tables {
  invoices: InvoicesTable;
  address_counters: AddressCountersTable;
  events: EventsTable & EventDeliveryColumns;
  btc_payments: BtcPaymentsTable;
  btc_blocks: BtcBlocksTable;
  btc_headers: BtcHeadersTable;
  webhook_attempts: WebhookAttemptsTable;
}

/** What an edition's stored data adds to the core's migrations. */
export interface CoreMigrationHooks {
  keyIdRenames: KeyIdRenames;
}

/** The core's migrations by name; an edition adds its own to these (see EditionSchema). */
export function coreMigrations(dialect: Dialect, hooks: CoreMigrationHooks = { keyIdRenames: noKeyIdRenames }): Record<string, Migration> {
  return {
    '0001_invoices_and_outbox': invoicesAndOutboxMigration(dialect),
    '0002_btc_watching': btcWatchingMigration,
    '0002_webhook_delivery': webhookDeliveryMigration,
    '0003_base_stablecoins': { up: baseStablecoinsUp, down: baseStablecoinsDown },
    '0009_key_identity': keyIdentityMigration(hooks.keyIdRenames),
    '0010_nonce_leases_by_address': nonceLeasesByAddressMigration,
    '0011_base_address_claims': evmAddressClaimsMigration,
    '0012_oauth_store': oauthStoreMigration,
    '0014_invoices_expiry_index': invoicesExpiryIndexMigration,
    '0016_evm_chain_column': evmChainColumnMigration,
    '0018_invoice_verification': invoiceVerificationMigration,
    '0019_oauth_grant_key': oauthGrantKeyMigration,
    '0021_invoices_created_index': invoicesCreatedIndexMigration,
    '0020_btc_headers': btcHeadersMigration(dialect),
    '0023_x402_settlements': x402SettlementsMigration,
  };
}

/**
 * The self-hosted listener's schema: the core's. Releases before the editions were split ran
 * Cloud's migrations on every database; those found executed stay done, their (empty) tables
 * stay too, and a fresh database gets none of them.
 */
export const coreSchema: EditionSchema = {
  migrations: (dialect) => coreMigrations(dialect),
  retired: ['0004_cloud_accounts', '0005_dashboard_sessions', '0006_stripe_billing', '0007_cloud_rate_windows', '0008_stripe_subscription_state'],
};

export function openCoreDatabase(url: string, options: OpenOptions = {}): Promise<CoreDatabase> {
  return openDatabase<CoreTables>(url, coreSchema, options);
}

/** A database opened with the core's schema (the listener's). */
export type CoreDatabase = Database<CoreTables>;
