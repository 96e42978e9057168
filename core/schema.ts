import type { Migration } from 'kysely';
import { openDatabase, type Database, type OpenOptions } from './db/database.ts';
import type { Dialect, EditionSchema } from './db/migrate.ts';
import type { EventsTable } from './events/events.tables.ts';
import type { AddressCountersTable, InvoicesTable } from './invoices/invoice.tables.ts';
import { invoicesCreatedIndexMigration } from './invoices/created-index.migration.ts';
import { invoicesExpiryIndexMigration } from './invoices/expiry-index.migration.ts';
import { invoicesAndOutboxMigration } from './invoices/invoices.migration.ts';
import { invoiceVerificationMigration } from './invoices/verification.migration.ts';
import { invoiceShopFieldsMigration } from './invoices/shop-fields.migration.ts';
import { invoiceListIndexesMigration } from './invoices/list-indexes.migration.ts';
import { keyIdentityMigration, noKeyIdRenames, type KeyIdRenames } from './invoices/key-identity.migration.ts';
import { webhookDeliveryMigration } from './webhooks/delivery-migration.ts';
import { oauthGrantKeyMigration, oauthStoreMigration } from './oauth/oauth.migration.ts';
import type { OAuthTables } from './oauth/oauth.tables.ts';
import type { EventDeliveryColumns, WebhookAttemptsTable } from './webhooks/delivery-tables.ts';
import { x402SettlementsMigration, x402ValidBeforeMigration } from './x402/x402.migration.ts';
import type { X402Tables } from './x402/x402.tables.ts';

/**
 * The core's tables, each defined by the module that owns it; each chain folder adds its own to this
 * interface (btc.tables.ts, evm.tables.ts). An edition's tables extend these.
 */
export interface CoreTables extends OAuthTables, X402Tables {
  invoices: InvoicesTable;
  address_counters: AddressCountersTable;
  events: EventsTable & EventDeliveryColumns;
  webhook_attempts: WebhookAttemptsTable;
}

/** What the schema needs of a chain (ChainDefinition): its tables' migrations. */
export interface ChainTablesSource {
  migrations(dialect: Dialect): Record<string, Migration>;
}

/** What an edition's stored data adds to the core's migrations. */
export interface CoreMigrationHooks {
  keyIdRenames: KeyIdRenames;
}

/**
 * The core's migrations and its chains' by name (the migrator runs them in name order); an edition
 * adds its own to these (see EditionSchema).
 */
export function coreMigrations(dialect: Dialect, chains: readonly ChainTablesSource[], hooks: CoreMigrationHooks = { keyIdRenames: noKeyIdRenames }): Record<string, Migration> {
  return {
    // A family's chains share their tables: the same migrations under the same names, kept once.
    ...Object.assign({}, ...chains.map((chain) => chain.migrations(dialect))),
    '0001_invoices_and_outbox': invoicesAndOutboxMigration(dialect),
    '0002_webhook_delivery': webhookDeliveryMigration,
    '0009_key_identity': keyIdentityMigration(hooks.keyIdRenames),
    '0012_oauth_store': oauthStoreMigration,
    '0014_invoices_expiry_index': invoicesExpiryIndexMigration,
    '0018_invoice_verification': invoiceVerificationMigration,
    '0019_oauth_grant_key': oauthGrantKeyMigration,
    '0021_invoices_created_index': invoicesCreatedIndexMigration,
    '0023_x402_settlements': x402SettlementsMigration,
    '0024_x402_valid_before': x402ValidBeforeMigration,
    '0025_invoice_shop_fields': invoiceShopFieldsMigration,
    '0026_invoice_list_indexes': invoiceListIndexesMigration,
  };
}

/**
 * The self-hosted listener's schema: the core's. Releases before the editions were split ran
 * Cloud's migrations on every database; those found executed stay done, their (empty) tables
 * stay too, and a fresh database gets none of them.
 */
export const coreSchema = (chains: readonly ChainTablesSource[]): EditionSchema => ({
  migrations: (dialect) => coreMigrations(dialect, chains),
  retired: ['0004_cloud_accounts', '0005_dashboard_sessions', '0006_stripe_billing', '0007_cloud_rate_windows', '0008_stripe_subscription_state'],
});

export function openCoreDatabase(url: string, chains: readonly ChainTablesSource[], options: OpenOptions = {}): Promise<CoreDatabase> {
  return openDatabase<CoreTables>(url, coreSchema(chains), options);
}

/** A database opened with the core's schema (the listener's). */
export type CoreDatabase = Database<CoreTables>;
