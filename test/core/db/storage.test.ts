import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { base } from '../../../core/evm/chains/base.ts';
const evmAdapter = base.adapter;
import { btcAdapter } from '../../../core/btc/btc-adapter.ts';
import { enqueueEvent } from '../../../core/events/outbox.ts';
import {
  allocateChildIndex,
  expireIfPending,
  findInvoice,
  insertInvoice,
  peekNextChildIndex,
  type InvoiceRow,
} from '../../../core/invoices/invoice.repository.ts';
import { testDatabases } from '../../helpers/databases.ts';

function row(overrides: Partial<InvoiceRow>): InvoiceRow {
  return {
    invoice_id: 'inv_1',
    merchant_id: 'm1',
    chain: 'btc',
    asset: 'BTC',
    network: 'mainnet',
    receive_address: 'bc1qexample',
    child_index: 0,
    derivation_path: "m/84'/0'/0'/0/0",
    key_id: 'k1',
    amount_sats: 2_100_000_000_000_000,
    amount_units: null,
    token_address: null,
    nonce: null,
    amount_usd: null,
    memo: null,
    status: 'pending',
    tx_hash: null,
    paid_at: null,
    verification: null,
    expires_at: 1_800_000_000_000,
    created_at: 1_700_000_000_000,
    updated_at: 1_700_000_000_000,
    address_duplicate_of: null, order_id: null, metadata: null, redirect_url: null, price_amount: null, price_currency: null, rate: null, rate_sources: null, rate_at: null,
    lightning_invoice: null, payment_hash: null, payment_method: null,
    ...overrides,
  };
}

for (const database of testDatabases) {
  describe(`storage on ${database.name}`, { skip: database.skip }, () => {
    it('allocates indexes per wallet key, whichever merchant asks, starting at 0', async () => {
      const store = await database.create();
      const { db, close } = await store.open();
      try {
        assert.equal(await peekNextChildIndex(db, 'btc', 'k1'), 0);
        assert.equal(await allocateChildIndex(db, 'btc', 'k1'), 0);
        assert.equal(await allocateChildIndex(db, 'btc', 'k1'), 1);
        assert.equal(await allocateChildIndex(db, 'btc', 'k2'), 0, 'a new wallet key starts again');
        assert.equal(await allocateChildIndex(db, 'base', 'k1'), 0, 'each chain has its own sequences');
        assert.equal(await peekNextChildIndex(db, 'btc', 'k1'), 2);
      } finally {
        await close();
        await store.drop();
      }
    });

    it('a rolled-back transaction gives its index back', async () => {
      const store = await database.create();
      const { db, close } = await store.open();
      try {
        await assert.rejects(
          db.transaction().execute(async (trx) => {
            await allocateChildIndex(trx, 'btc', 'k1');
            throw new Error('insert failed');
          }),
        );
        assert.equal(await allocateChildIndex(db, 'btc', 'k1'), 0);
      } finally {
        await close();
        await store.drop();
      }
    });

    it('round-trips an invoice exactly and scopes reads by merchant', async () => {
      const store = await database.create();
      const { db, close } = await store.open();
      try {
        await insertInvoice(db, row({}));
        assert.deepEqual(await findInvoice(db, 'm1', 'inv_1'), row({}));
        assert.equal(await findInvoice(db, 'm2', 'inv_1'), undefined);
        await assert.rejects(insertInvoice(db, row({ invoice_id: 'inv_2', merchant_id: 'm2' })), 'an address is refused twice, even to another merchant');
        // Fixed-address invoices share their one address by design (the amount tells them apart).
        const fixed = { chain: 'base', network: '8453', receive_address: '0xfixed', child_index: null, key_id: null };
        await insertInvoice(db, row({ ...fixed, invoice_id: 'inv_fixed_1', nonce: 1 }));
        await insertInvoice(db, row({ ...fixed, invoice_id: 'inv_fixed_2', nonce: 2 }));
      } finally {
        await close();
        await store.drop();
      }
    });

    it('expires only pending invoices past their expiry', async () => {
      const store = await database.create();
      const { db, close } = await store.open();
      try {
        await insertInvoice(db, row({ invoice_id: 'a', child_index: 1, receive_address: 'bc1qa', expires_at: 100 }));
        await insertInvoice(db, row({ invoice_id: 'b', child_index: 2, receive_address: 'bc1qb', expires_at: 100, status: 'confirmed' }));
        await insertInvoice(db, row({ invoice_id: 'c', child_index: 3, receive_address: 'bc1qc', expires_at: 500 }));
        const guards = [btcAdapter.paymentSeenBeforeExpiry, evmAdapter.paymentSeenBeforeExpiry];
        for (const id of ['a', 'b', 'c']) await expireIfPending(db, guards, 'm1', id, 200);
        await expireIfPending(db, guards, 'm2', 'a', 200);
        assert.equal((await findInvoice(db, 'm1', 'a'))?.status, 'expired');
        assert.equal((await findInvoice(db, 'm1', 'a'))?.updated_at, 200);
        assert.equal((await findInvoice(db, 'm1', 'b'))?.status, 'confirmed');
        assert.equal((await findInvoice(db, 'm1', 'c'))?.status, 'pending');
      } finally {
        await close();
        await store.drop();
      }
    });

    it('stores outbox events only when their transaction commits', async () => {
      const store = await database.create();
      const { db, close } = await store.open();
      try {
        const payload = {
          event: 'invoice.confirmed' as const,
          invoice_id: 'inv_1',
          merchant_id: 'm1',
          chain: 'btc' as const,
          asset: 'BTC',
          amount: '0.00001000',
          address: 'bc1qexample',
          tx_hash: 'ab'.repeat(32),
          confirmations: 1,
          confirmed_at: '2026-11-22T12:00:00.000Z',
        };
        await assert.rejects(
          db.transaction().execute(async (trx) => {
            await enqueueEvent(trx, { merchantId: 'm1', payload, createdAt: 1 });
            throw new Error('status change failed');
          }),
        );
        const id = await db.transaction().execute((trx) => enqueueEvent(trx, { merchantId: 'm1', payload, createdAt: 2 }));
        const events = await db.selectFrom('events').selectAll().execute();
        assert.equal(events.length, 1);
        assert.equal(events[0].event_id, id);
        const { event, ...fields } = payload;
        assert.equal(events[0].payload, JSON.stringify({ event, event_id: id, ...fields }), 'the id goes inside the signed body');
      } finally {
        await close();
        await store.drop();
      }
    });
  });
}
