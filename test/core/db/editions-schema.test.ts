import { defaultChains } from '../../../core/chains/default-chains.ts';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql, type Kysely } from 'kysely';
import { cloudSchema } from '../../../cloud/storage/cloud.schema.ts';
import type { Dialect } from '../../../core/db/migrate.ts';
import { coreMigrations } from '../../../core/schema.ts';
import { noShopColumns } from '../../../core/invoices/invoice.tables.ts';
import { testDatabases, type CreatedDatabase } from '../../helpers/databases.ts';
import { openPreEditionsSchema } from '../../helpers/old-schema.ts';

/** Migrations of releases after the split (the OAuth store, the expiry index; Cloud's key scopes): they run on an old database too. */
const LATER_CORE = ['0012_oauth_store', '0014_invoices_expiry_index', '0016_evm_chain_column', '0018_invoice_verification', '0019_oauth_grant_key', '0020_btc_headers', '0021_invoices_created_index', '0023_x402_settlements', '0024_x402_valid_before', '0025_invoice_shop_fields', '0026_invoice_list_indexes', '0028_btc_lightning'];
const LATER_CLOUD = ['0013_cloud_api_key_scopes', '0017_cloud_receive_methods', '0022_cloud_webhook_merchants_index', '0027_cloud_webhook_events', '0029_cloud_lightning', '0030_cloud_lightning_problem'];

const CLOUD_TABLES = ['cloud_api_keys', 'cloud_dashboard_sessions', 'cloud_merchants', 'cloud_rate_windows', 'cloud_stripe_events', 'cloud_subscriptions', 'cloud_usage'];
const FIXED_ADDRESS = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

async function tablesOf(db: Kysely<any>, dialect: Dialect): Promise<string[]> {
  const { rows } =
    dialect === 'sqlite'
      ? await sql<{ name: string }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`.execute(db)
      : await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = current_schema()`.execute(db);
  return rows.map((row) => row.name).filter((name) => !name.startsWith('kysely_')).sort();
}

async function executedMigrations(db: Kysely<any>): Promise<string[]> {
  const rows = await db.selectFrom('kysely_migration').select('name').orderBy('timestamp').orderBy('name').execute();
  return rows.map((row) => row.name);
}

/**
 * What the stored money and its outbox look like: compared before and after an edition opens the
 * database. Values as text: the old release's raw pg connection reads bigint columns as strings.
 */
async function storedRows(db: Kysely<any>) {
  const asText = (rows: Record<string, unknown>[]) => rows.map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, v === null ? null : String(v)])));
  return {
    invoices: asText(await db.selectFrom('invoices').selectAll().orderBy('invoice_id').execute()),
    events: asText(await db.selectFrom('events').selectAll().orderBy('seq').execute()),
    merchants: asText(await db.selectFrom('cloud_merchants').selectAll().orderBy('merchant_id').execute()),
    claims: asText(await db.selectFrom('base_address_claims').selectAll().orderBy('address').execute()),
  };
}

/**
 * The rows as Cloud reads them after 0017: the accounts' new receive_methods column empty (their
 * older columns say how they receive); after 0027, no opt-in webhook events subscribed.
 */
function withReceiveMethodsColumn(rows: Awaited<ReturnType<typeof storedRows>>) {
  return { ...rows, merchants: rows.merchants.map((merchant) => ({ ...merchant, receive_methods: null, webhook_events: null, lightning_nwc_url: null, lightning_network: null, lightning_problem: null, lightning_problem_since: null })) };
}

/**
 * Migration 0018 gives every stored invoice a `verification`, null: how an earlier confirmation was
 * verified was not recorded; 0025 its shop columns (order reference, fiat price), null: it had none.
 */
function withLaterInvoiceColumns(rows: Awaited<ReturnType<typeof storedRows>>) {
  return { ...rows, invoices: rows.invoices.map((invoice) => ({ ...noShopColumns, rate_at: null, lightning_invoice: null, payment_hash: null, payment_method: null, ...invoice, verification: null })) };
}

/** A database the last release before the split migrated, holding a Cloud merchant, an invoice and a webhook event. */
async function preEditionsDatabase(kind: Dialect, store: CreatedDatabase) {
  const old = await openPreEditionsSchema(kind, store.url);
  try {
    await old
      .insertInto('cloud_merchants')
      .values({ merchant_id: 'm_fixed', email: 'm@example.com', shop_name: 'Shop', base_address: FIXED_ADDRESS, webhook_url: 'https://shop.example/hook', webhook_secret: 'whsec_1', plan: 'pro', plan_expires_at: null, created_at: 1 })
      .execute();
    await old.insertInto('base_address_claims').values({ address: FIXED_ADDRESS, kind: 'fixed' }).execute();
    await old
      .insertInto('invoices')
      .values({
        invoice_id: 'inv_1', merchant_id: 'm_fixed', chain: 'base', asset: 'USDC', network: '8453', receive_address: FIXED_ADDRESS, child_index: null, derivation_path: null,
        key_id: null, amount_sats: null, amount_units: '5000001', memo: 'order 7', status: 'pending', tx_hash: null, paid_at: null, expires_at: 9_000, created_at: 1_000,
        updated_at: 1_000, token_address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', nonce: 1, amount_usd: '5', address_duplicate_of: null,
      })
      .execute();
    await old.insertInto('events').values({ event_id: 'evt_1', merchant_id: 'm_fixed', type: 'invoice.created', payload: '{"id":"evt_1"}', created_at: 1_000 }).execute();
    return { rows: await storedRows(old), migrations: await executedMigrations(old) };
  } finally {
    await old.destroy();
  }
}

for (const database of testDatabases) {
  describe(`editions' schemas on ${database.name}`, { skip: database.skip }, () => {
    it('a fresh listener database gets the core tables only, and runs none of the retired Cloud migrations', async () => {
      const store = await database.create();
      const { db, close } = await store.open();
      try {
        const tables = await tablesOf(db, database.name);
        assert.deepEqual(tables.filter((name) => /^cloud_|stripe|dashboard/.test(name)), []);
        for (const core of ['invoices', 'address_counters', 'events', 'webhook_attempts', 'btc_payments', 'btc_blocks', 'base_address_claims']) assert.ok(tables.includes(core), core);
        assert.deepEqual(await executedMigrations(db), Object.keys(coreMigrations(database.name, defaultChains)).sort());
      } finally {
        await close();
        await store.drop();
      }
    });

    it("a fresh Cloud database gets every table, its migrations run in name order among the core's", async () => {
      const store = await database.create();
      const { db, close } = await store.openCloud();
      try {
        const tables = await tablesOf(db, database.name);
        for (const table of [...CLOUD_TABLES, 'invoices', 'events', 'webhook_attempts', 'base_address_claims']) assert.ok(tables.includes(table), table);
        const names = Object.keys(cloudSchema(defaultChains).migrations(database.name)).sort();
        assert.ok(names.indexOf('0004_cloud_accounts') < names.indexOf('0009_key_identity'), 'interleaved by name');
        assert.deepEqual(await executedMigrations(db), names);
      } finally {
        await close();
        await store.drop();
      }
    });

    it('a database of the release before the split opens as the listener, then as Cloud, with everything stored intact', async () => {
      const store = await database.create();
      const before = await preEditionsDatabase(database.name, store);
      try {
        const listener = await store.open();
        try {
          assert.deepEqual(await storedRows(listener.db), withLaterInvoiceColumns(before.rows), 'Cloud tables and their rows stay, unused');
          assert.deepEqual(await executedMigrations(listener.db), [...before.migrations, ...LATER_CORE], 'only the migrations of later releases ran');
        } finally {
          await listener.close();
        }
        const cloud = await store.openCloud();
        try {
          assert.deepEqual(await storedRows(cloud.db), withReceiveMethodsColumn(withLaterInvoiceColumns(before.rows)), 'the split-out Cloud claims find the address claimed already: no row changes');
          // The listener ran the later core migrations first; Cloud's own ones run after them.
          assert.deepEqual(await executedMigrations(cloud.db), [...before.migrations, ...LATER_CORE, '0011_cloud_fixed_address_claims', ...LATER_CLOUD]);
        } finally {
          await cloud.close();
        }
      } finally {
        await store.drop();
      }
    });

    it('a Cloud database of the release before the split opens as Cloud with everything stored intact', async () => {
      const store = await database.create();
      const before = await preEditionsDatabase(database.name, store);
      const cloud = await store.openCloud();
      try {
        assert.deepEqual(await storedRows(cloud.db), withReceiveMethodsColumn(withLaterInvoiceColumns(before.rows)));
        // One run, in name order: Cloud's and the core's later migrations interleave.
        assert.deepEqual(await executedMigrations(cloud.db), [...before.migrations, '0011_cloud_fixed_address_claims', ...[...LATER_CORE, ...LATER_CLOUD].sort()]);
      } finally {
        await cloud.close();
        await store.drop();
      }
    });

    it('the listener refuses a database migrated by Cloud since the split: a migration it does not know is not taken as done', async () => {
      const store = await database.create();
      const cloud = await store.openCloud();
      await cloud.close();
      try {
        await assert.rejects(store.open(), /previously executed migration 0011_cloud_fixed_address_claims is missing/);
      } finally {
        await store.drop();
      }
    });
  });
}
