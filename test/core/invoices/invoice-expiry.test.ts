import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql, type Kysely } from 'kysely';
import { base } from '../../../core/evm/chains/base.ts';
const evmAdapter = base.adapter;
import { btcAdapter } from '../../../core/btc/btc-adapter.ts';
import type { CoreTables } from '../../../core/schema.ts';
import { expireIfPending, findInvoice, insertInvoice, type InvoiceRow } from '../../../core/invoices/invoice.repository.ts';
import { testDatabases, withFreshDatabase } from '../../helpers/databases.ts';

const MERCHANT = 'default';
const USDC = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
const EXPIRES = Date.UTC(2026, 5, 1, 12);
const AFTER = EXPIRES + 60_000;
let seq = 0;

function baseInvoice(overrides: Partial<InvoiceRow>): InvoiceRow {
  return {
    invoice_id: `inv_${++seq}`,
    merchant_id: MERCHANT,
    chain: 'base',
    asset: 'USDC',
    network: 'base',
    receive_address: `0x${String(seq).padStart(40, '0')}`,
    child_index: seq,
    derivation_path: `m/0/${seq}`,
    key_id: 'k1',
    amount_sats: null,
    amount_units: '25000000',
    memo: null,
    status: 'pending',
    tx_hash: null,
    paid_at: null,
    verification: null,
    expires_at: EXPIRES,
    created_at: EXPIRES - 3_600_000,
    updated_at: EXPIRES - 3_600_000,
    token_address: USDC,
    nonce: null,
    amount_usd: '25',
    address_duplicate_of: null, order_id: null, metadata: null, redirect_url: null, price_amount: null, price_currency: null, rate: null, rate_sources: null, rate_at: null,
    ...overrides,
  };
}

async function recordTransfer(db: Kysely<CoreTables>, to: string, value: string, blockTime: number, token = USDC) {
  await db
    .insertInto('base_transfers')
    .values({
      merchant_id: MERCHANT,
      tx_hash: `0x${(++seq).toString(16).padStart(64, '0')}`,
      log_index: 0,
      block_number: seq,
      block_hash: `0x${seq.toString(16).padStart(64, 'a')}`,
      block_time: blockTime,
      token_address: token,
      from_address: '0x00000000000000000000000000000000000000ff',
      to_address: to,
      value,
      state: 'seen',
      invoice_id: null,
      detected_at: blockTime,
    })
    .execute();
}

async function statusAfterExpiryRead(db: Kysely<CoreTables>, invoice: InvoiceRow) {
  await expireIfPending(db, [btcAdapter.paymentSeenBeforeExpiry, evmAdapter.paymentSeenBeforeExpiry], MERCHANT, invoice.invoice_id, AFTER);
  return (await findInvoice(db, MERCHANT, invoice.invoice_id))!.status;
}

for (const database of testDatabases) {
  describe(`reading a Base invoice past expiry on ${database.name}`, { skip: database.skip }, () => {
    it('stays pending while a transfer mined before expiry confirms; expires without one or with one mined later', async () => {
      await withFreshDatabase(database, async (db) => {
        const paidInTime = baseInvoice({});
        const paidLate = baseInvoice({});
        const unpaid = baseInvoice({});
        const otherToken = baseInvoice({});
        for (const invoice of [paidInTime, paidLate, unpaid, otherToken]) await insertInvoice(db, invoice);
        await recordTransfer(db, paidInTime.receive_address, '25000000', EXPIRES - 1_000);
        await recordTransfer(db, paidLate.receive_address, '25000000', EXPIRES + 1_000);
        const USDT = '0xfde4C96c8593536E31F229EA8f37b2ADa2699bb2';
        await recordTransfer(db, otherToken.receive_address, '25000000', EXPIRES - 1_000, USDT);

        assert.equal(await statusAfterExpiryRead(db, paidInTime), 'pending');
        assert.equal(await statusAfterExpiryRead(db, paidLate), 'expired');
        assert.equal(await statusAfterExpiryRead(db, unpaid), 'expired');
        assert.equal(await statusAfterExpiryRead(db, otherToken), 'expired', 'a transfer of another token pays nothing');
      });
    });

    it('fixed address: only a transfer of the invoice\'s exact amount keeps it pending', async () => {
      await withFreshDatabase(database, async (db) => {
        const shared = '0x00000000000000000000000000000000000000f1';
        const fixed = { receive_address: shared, child_index: null, derivation_path: null, key_id: null };
        const paid = baseInvoice({ ...fixed, amount_units: '25000017', nonce: 17 });
        const neighbour = baseInvoice({ ...fixed, amount_units: '25000018', nonce: 18 });
        await insertInvoice(db, paid);
        await insertInvoice(db, neighbour);
        await recordTransfer(db, shared, '25000017', EXPIRES - 1_000);

        assert.equal(await statusAfterExpiryRead(db, paid), 'pending');
        assert.equal(await statusAfterExpiryRead(db, neighbour), 'expired', "another invoice's payment to the shared address keeps nothing open");
      });
    });
  });
}

for (const database of testDatabases) {
  describe(`the expiry sweep's index on ${database.name}`, { skip: database.skip }, () => {
    it('invoices are indexed by (status, expires_at) (on SQLite, the sweep query\'s plan uses it)', async () => {
      await withFreshDatabase(database, async (db) => {
        if (database.name === 'sqlite') {
          const columns = await sql<{ name: string }>`select name from pragma_index_info('invoices_status_expires') order by seqno`.execute(db);
          assert.deepEqual(columns.rows.map((row) => row.name), ['status', 'expires_at']);
          const plan = await sql<{ detail: string }>`explain query plan select invoice_id from invoices where status = 'pending' and expires_at <= ${AFTER}`.execute(db);
          assert.match(plan.rows.map((row) => row.detail).join('\n'), /USING INDEX invoices_status_expires \(status=\? AND expires_at<\?\)/);
        } else {
          const found = await sql<{ indexdef: string }>`select indexdef from pg_indexes where schemaname = current_schema() and indexname = 'invoices_status_expires'`.execute(db);
          assert.equal(found.rows.length, 1, 'the index exists in this schema');
          assert.match(found.rows[0]!.indexdef, /ON \S*invoices USING btree \(status, expires_at\)$/);
        }
      });
    });
  });
}
