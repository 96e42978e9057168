import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { expireLapsed, insertInvoice, type InvoiceRow } from '../../../core/invoices/invoice.repository.ts';
import { evmTransferSeenBeforeExpiry, seenUnitsOf } from '../../../core/evm/partial.ts';
import { fixedInvoiceMatching, type TransferRow } from '../../../core/evm/evm-transfer.repository.ts';
import { CHAIN_CLOCK_SKEW_MS } from '../../../core/evm/nonce.ts';
import type { CoreDatabase } from '../../../core/schema.ts';
import { FIXED_ADDRESS, MERCHANT } from '../../helpers/evm-chain.ts';
import { testDatabases } from '../../helpers/databases.ts';

/**
 * What counts toward a fixed-address invoice, read straight from the stored rows on each database:
 * the checkout, x402 and the invoice API read `seenUnitsOf`, expiry reads the guard, settlement
 * looks the invoice up with `fixedInvoiceMatching`. Two invoices hold one exact amount here with
 * windows closer than the quarantine allows (the rule must not rest on the quarantine alone).
 */
const T0 = Date.UTC(2026, 5, 1, 12);
const HOUR = 3_600_000;
const AMOUNT = '5000001';
const TOKEN = '0x036CbD53842c5426634e7929541eC2318f3dCF7e';

const invoiceRow = (id: string, createdAt: number): InvoiceRow => ({
  invoice_id: id,
  merchant_id: MERCHANT,
  chain: 'base',
  asset: 'USDC',
  network: '8453',
  receive_address: FIXED_ADDRESS,
  child_index: null,
  derivation_path: null,
  key_id: null,
  amount_sats: null,
  amount_units: AMOUNT,
  memo: null,
  status: 'pending',
  tx_hash: null,
  paid_at: null,
  verification: null,
  expires_at: createdAt + HOUR,
  created_at: createdAt,
  updated_at: createdAt,
  token_address: TOKEN,
  nonce: 1,
  amount_usd: '5',
  address_duplicate_of: null, order_id: null, metadata: null, redirect_url: null, price_amount: null, price_currency: null, rate: null, rate_sources: null, rate_at: null,
});

const transferRow = (blockTime: number, state: string, invoiceId: string | null): TransferRow => ({
  merchant_id: MERCHANT,
  chain: 'base',
  tx_hash: `0x${'ab'.repeat(32)}`,
  log_index: 0,
  block_number: 100,
  block_hash: `0x${'cd'.repeat(32)}`,
  block_time: blockTime,
  token_address: TOKEN,
  from_address: `0x${'11'.repeat(20)}`,
  to_address: FIXED_ADDRESS,
  value: AMOUNT,
  state,
  invoice_id: invoiceId,
  detected_at: blockTime,
});

for (const kind of testDatabases) describe(`what counts toward a fixed-address invoice (${kind.name})`, { skip: kind.skip }, () => {
  async function withDb(fn: (db: CoreDatabase['db']) => Promise<void>) {
    const created = await kind.create();
    const database = await created.open();
    try {
      await fn(database.db);
    } finally {
      await database.close();
      await created.drop();
    }
  }
  const row = (db: CoreDatabase['db'], id: string) => db.selectFrom('invoices').selectAll().where('invoice_id', '=', id).executeTakeFirstOrThrow();
  const guards = [evmTransferSeenBeforeExpiry('base')];

  test('a transfer applied to invoice A never counts for invoice B of the same amount, though mined inside B\'s window', () =>
    withDb(async (db) => {
      const a = invoiceRow('inv_a', T0);
      // B holds A's amount from A's expiry on; the transfer that paid A, a minute before A expired, lies within B's skew.
      const b = invoiceRow('inv_b', T0 + HOUR);
      await insertInvoice(db, { ...a, status: 'confirmed' });
      await insertInvoice(db, b);
      await db.insertInto('base_transfers').values(transferRow(T0 + HOUR - 60_000, 'applied', a.invoice_id)).execute();
      assert.equal(await seenUnitsOf(db, await row(db, 'inv_a')), BigInt(AMOUNT), 'it is A\'s');
      assert.equal(await seenUnitsOf(db, await row(db, 'inv_b')), 0n, 'checkout, x402 and the API see nothing toward B');
      const expired = await expireLapsed(db, guards, b.expires_at + 1);
      assert.deepEqual(expired.map((r) => r.invoice_id), ['inv_b'], 'B expires unpaid');
    }));

  test('a transfer not settled yet counts for the invoice it was mined during, not for one created after it (beyond the skew)', () =>
    withDb(async (db) => {
      const early = transferRow(T0 - CHAIN_CLOCK_SKEW_MS - 1, 'seen', null);
      await insertInvoice(db, invoiceRow('inv_late', T0));
      await db.insertInto('base_transfers').values(early).execute();
      assert.equal(await seenUnitsOf(db, await row(db, 'inv_late')), 0n);
      assert.equal(await fixedInvoiceMatching(db, early), undefined, 'settlement finds no invoice for it: an orphan');
      assert.deepEqual((await expireLapsed(db, guards, T0 + HOUR + 1)).map((r) => r.invoice_id), ['inv_late']);
    }));

  test('within the skew a waiting transfer counts; when two windows touch, settlement takes the older invoice and the other then sees nothing', () =>
    withDb(async (db) => {
      const a = invoiceRow('inv_a', T0);
      const b = invoiceRow('inv_b', T0 + HOUR);
      await insertInvoice(db, a);
      await insertInvoice(db, b);
      const near = transferRow(T0 + HOUR - 60_000, 'seen', null);
      await db.insertInto('base_transfers').values(near).execute();
      assert.equal(await seenUnitsOf(db, await row(db, 'inv_b')), BigInt(AMOUNT), 'mined a minute before B: within the skew, seen toward B');
      assert.equal((await fixedInvoiceMatching(db, near))?.invoice_id, 'inv_a', 'the older invoice takes it');
      await db.updateTable('base_transfers').set({ state: 'applied', invoice_id: 'inv_a' }).execute();
      assert.equal(await seenUnitsOf(db, await row(db, 'inv_b')), 0n, 'once applied to A it is A\'s alone');
      assert.equal(await seenUnitsOf(db, await row(db, 'inv_a')), BigInt(AMOUNT));
    }));
});
