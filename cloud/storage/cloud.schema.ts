import { receiveMethodsMigration } from '../merchants/receive-methods.migration.ts';
import { webhookMerchantsIndexMigration } from './webhook-merchants-index.migration.ts';
import { webhookEventsMigration } from './webhook-events.migration.ts';
import { lightningConnectionMigration } from './lightning-connection.migration.ts';
import { lightningProblemMigration } from './lightning-problem.migration.ts';
import type { Kysely } from 'kysely';
import { openDatabase, type Database, type OpenOptions } from '../../core/db/database.ts';
import type { EditionSchema } from '../../core/db/migrate.ts';
import type { KeyIdRenames } from '../../core/invoices/key-identity.migration.ts';
import type { ChainWithMerchants } from '../../core/merchant-chain.ts';
import { legacyChains, servedChain } from '../merchants/receive-methods.ts';
import { coreMigrations } from '../../core/schema.ts';
import type { ChainDefinition } from '../../core/chain-definition.ts';
import { apiKeyScopesMigration } from '../keys/api-key-scopes.migration.ts';
import { cloudAccountsMigration } from './cloud.migration.ts';
import type { CloudTables } from './cloud.tables.ts';
import { dashboardSessionsMigration } from '../dashboard/session.migration.ts';
import { fixedAddressClaimsMigration } from '../merchants/fixed-address-claims.migration.ts';
import { rateWindowsMigration } from './rate-windows.migration.ts';
import { stripeSubscriptionStateMigration } from '../billing/stripe-subscription.migration.ts';
import { stripeBillingMigration } from '../billing/stripe.migration.ts';

/**
 * Core migration 0009: Cloud merchants' xpub invoices and counters of the chain the older base_xpub
 * column speaks for move from the id of the key's text to the id of the key itself, as that chain
 * tells them. A key that does not parse keeps its id. Stored keys of a chain not served cannot be
 * moved: the migration stops rather than leave them behind.
 */
const keyIdRenamesOf =
  (chains: readonly ChainWithMerchants[]): KeyIdRenames =>
  async (db) => {
    const merchants = await (db as Kysely<CloudTables>)
      .selectFrom('cloud_merchants')
      .select(['merchant_id', 'base_xpub'])
      .where('base_xpub', 'is not', null)
      .$narrowType<{ base_xpub: string }>()
      .execute();
    if (merchants.length === 0) return [];
    const chain = servedChain(chains, legacyChains.evm, 'base_xpub');
    return merchants.flatMap(({ merchant_id, base_xpub }) => {
      const rename = chain.merchant.keyIdRename(base_xpub);
      return rename ? [{ merchant_id, chain: chain.chain, ...rename }] : [];
    });
  };

/**
 * Cloud's schema with these chains: the core's migrations and its own, run together in name order
 * (a fresh database gets them interleaved exactly as the releases that shipped them ran them).
 */
export const cloudSchema = (chains: readonly ChainDefinition[]): EditionSchema => ({
  migrations: (dialect) => ({
    ...coreMigrations(dialect, chains, { keyIdRenames: keyIdRenamesOf(chains) }),
    '0004_cloud_accounts': cloudAccountsMigration,
    '0005_dashboard_sessions': dashboardSessionsMigration,
    '0006_stripe_billing': stripeBillingMigration,
    '0007_cloud_rate_windows': rateWindowsMigration,
    '0008_stripe_subscription_state': stripeSubscriptionStateMigration,
    '0011_cloud_fixed_address_claims': fixedAddressClaimsMigration,
    '0013_cloud_api_key_scopes': apiKeyScopesMigration,
    '0017_cloud_receive_methods': receiveMethodsMigration,
    '0022_cloud_webhook_merchants_index': webhookMerchantsIndexMigration,
    '0027_cloud_webhook_events': webhookEventsMigration,
    '0029_cloud_lightning': lightningConnectionMigration,
    '0030_cloud_lightning_problem': lightningProblemMigration,
  }),
  retired: [],
});

export function openCloudDatabase(url: string, chains: readonly ChainDefinition[], options: OpenOptions = {}): Promise<Database<CloudTables>> {
  return openDatabase<CloudTables>(url, cloudSchema(chains), options);
}
