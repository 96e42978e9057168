import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StoredInvoice } from '../../../shared/index.ts';
import { manualClock } from '../../../core/clock.ts';
import { ServiceError } from '../../../core/errors.ts';
import { silentLogger } from '../../../core/log.ts';
import type { ChainAdapter, ChainReceiver, InvoiceCreation } from '../../../core/invoices/chain-adapter.ts';
import { insertInvoice, type InvoiceRow } from '../../../core/invoices/invoice.repository.ts';
import { createInvoiceEngine } from '../../../core/invoices/invoice.service.ts';
import { testDatabases, withFreshDatabase } from '../../helpers/databases.ts';
import { createMemoryStatusFeed } from '../../../core/invoices/status-feed.ts';

const START = Date.UTC(2026, 5, 1, 12);
const SEEN_IN_TIME = 'a payment was seen in time';

/**
 * A stand-in chain the engine was never written for, registered under a name the contract accepts:
 * its receiver stores rows of its own making, its mapping and expiry guard are its own.
 */
function standInChain() {
  const created: { creation: InvoiceCreation; request: unknown }[] = [];
  const adapter: ChainAdapter = {
    chain: 'btc',
    toStoredInvoice: (row) => ({ invoice_id: row.invoice_id, status: row.status, mapped_by: 'stand-in' }) as unknown as StoredInvoice,
    // The stand-in's record of a payment is the memo, so the guard reads the invoice row alone.
    paymentSeenBeforeExpiry: (invoice) => invoice('invoices.memo', '=', SEEN_IN_TIME),
    disabled: () => new ServiceError('chain_disabled', 'the stand-in chain is off'),
  };
  const receiver: ChainReceiver = {
    async create(creation, request) {
      created.push({ creation, request });
      const now = creation.clock.now();
      const row: InvoiceRow = {
        invoice_id: creation.newInvoiceId(),
        merchant_id: creation.merchantId,
        chain: 'btc',
        asset: 'BTC',
        network: 'stand-in',
        receive_address: `stand-in-${created.length}`,
        child_index: created.length,
        derivation_path: null,
        key_id: null,
        amount_sats: request.amount_sats ?? 0,
        amount_units: null,
        token_address: null,
        nonce: null,
        amount_usd: null,
        memo: request.memo ?? null,
        status: 'pending',
        tx_hash: null,
        paid_at: null,
        verification: null,
        expires_at: now + (request.expires_in ?? 60) * 1000,
        created_at: now,
        updated_at: now,
        address_duplicate_of: null, order_id: null, metadata: null, redirect_url: null, price_amount: null, price_currency: null, rate: null, rate_sources: null, rate_at: null,
      };
      await creation.db.transaction().execute(async (trx) => {
        await creation.beforeInsert?.(trx);
        await insertInvoice(trx, row);
      });
      return { invoice_id: row.invoice_id, created_by: 'stand-in' } as unknown as Awaited<ReturnType<ChainReceiver['create']>>;
    },
  };
  return { adapter, receiver, created };
}

async function serviceCode(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => assert.fail('expected a ServiceError'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof ServiceError, String(error));
  return error.code;
}

const database = testDatabases[0];

describe('the invoice engine and its chain adapters', () => {
  it('creates through the receiver of the requested chain, reads through its adapter, and refuses a chain it has no adapter for', async () => {
    await withFreshDatabase(database, async (db) => {
      const clock = manualClock(START);
      const stand = standInChain();
      const engine = createInvoiceEngine({ db, clock, logger: silentLogger, chains: [stand.adapter], feed: createMemoryStatusFeed() });
      const baseCalls: unknown[] = [];
      const base: ChainReceiver = { create: async (...args) => (baseCalls.push(args), assert.fail('no Base adapter is registered')) };
      const merchant = { merchantId: 'm1', receivers: { btc: stand.receiver, base } };

      const created = (await engine.create(merchant, { amount_sats: 1500, memo: 'order 7' })) as unknown as { invoice_id: string; created_by: string };
      assert.equal(created.created_by, 'stand-in');
      assert.equal(stand.created.length, 1);
      assert.equal(stand.created[0].creation.merchantId, 'm1');
      assert.deepEqual(stand.created[0].request, { amount_sats: 1500, memo: 'order 7' });

      const stored = (await engine.get('m1', created.invoice_id)) as unknown as { mapped_by: string; status: string };
      // The engine adds what the chain adapter does not know: x402_url, null here (no x402 method is wired).
      assert.deepEqual(stored, { invoice_id: created.invoice_id, status: 'pending', mapped_by: 'stand-in', x402_url: null });

      // The merchant has a Base receiver, but the engine serves no Base: the spec's code for a disabled Base.
      assert.equal(await serviceCode(engine.create(merchant, { chain: 'base', amount_usd: 5 })), 'base_disabled');
      assert.equal(baseCalls.length, 0);
      // A merchant without a receiver for a registered chain: that chain is disabled for it.
      assert.equal(await serviceCode(engine.create({ merchantId: 'm2', receivers: {} }, { amount_sats: 1500 })), 'chain_disabled');
      assert.equal(stand.created.length, 1);
    });
  });

  it("expires a lapsed invoice unless the adapter's guard says a payment was seen in time", async () => {
    await withFreshDatabase(database, async (db) => {
      const clock = manualClock(START);
      const stand = standInChain();
      const engine = createInvoiceEngine({ db, clock, logger: silentLogger, chains: [stand.adapter], feed: createMemoryStatusFeed() });
      const merchant = { merchantId: 'm1', receivers: { btc: stand.receiver } };
      const paid = (await engine.create(merchant, { amount_sats: 1000, memo: SEEN_IN_TIME, expires_in: 60 })) as unknown as { invoice_id: string };
      const unpaid = (await engine.create(merchant, { amount_sats: 1000, memo: 'nothing seen', expires_in: 60 })) as unknown as { invoice_id: string };

      clock.advance(61_000);
      assert.equal((await engine.get('m1', paid.invoice_id)).status, 'pending');
      assert.equal((await engine.get('m1', unpaid.invoice_id)).status, 'expired');
    });
  });
});
