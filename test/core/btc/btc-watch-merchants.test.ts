import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import * as bitcoin from 'bitcoinjs-lib';
import * as ecc from 'tiny-secp256k1';
import { createEsploraSource } from '../../../core/btc/esplora-source.ts';
import { createBtcWatcher } from '../../../core/btc/watcher.ts';
import { inTurnsByMerchant } from '../../../core/btc/watch-index.ts';
import { merchantScope, networksScope, type BtcWatchScope } from '../../../core/btc/btc-payment.repository.ts';
import { manualClock } from '../../../core/clock.ts';
import type { CoreDatabase } from '../../../core/schema.ts';
import { insertInvoice } from '../../../core/invoices/invoice.repository.ts';
import { createMemoryStatusFeed } from '../../../core/invoices/status-feed.ts';
import { silentLogger } from '../../../core/log.ts';
import { LocalBtcChain } from '../../../sandbox/local-btc-chain.ts';
import { startLocalChainServer } from '../../../sandbox/local-chain-server.ts';
import { testDatabases } from '../../helpers/databases.ts';

/**
 * One watcher for every merchant (Cloud's arrangement), against the local regtest chain through
 * its Esplora API, on SQLite and Postgres. Invoices are written directly with regtest addresses.
 */
async function setup(database: CoreDatabase, scope: BtcWatchScope) {
  const clock = manualClock(Date.UTC(2026, 0, 1));
  const chain = new LocalBtcChain({ now: clock.now });
  const server = await startLocalChainServer(chain);
  const feed = createMemoryStatusFeed();
  let created = 0;
  const watcher = createBtcWatcher({
    db: database.db,
    feed,
    scope,
    source: createEsploraSource({ baseUrl: server.esploraUrl, fetch }),
    mode: 'full',
    clock,
    logger: silentLogger,
    pollIntervalMs: 3_600_000,
  });
  return {
    chain,
    clock,
    watcher,
    async invoice(merchantId: string, amountSats: number, address?: string) {
      const receive = address ?? bitcoin.payments.p2wpkh({ pubkey: ecc.pointFromScalar(randomBytes(32), true)!, network: chain.network }).address!;
      const invoiceId = `inv_${++created}`;
      const now = clock.now() + created;
      await insertInvoice(database.db, {
        invoice_id: invoiceId, merchant_id: merchantId, chain: 'btc', asset: 'BTC', network: 'regtest', receive_address: receive,
        child_index: created, derivation_path: null, key_id: `key_${merchantId}`, amount_sats: amountSats, amount_units: null, memo: null,
        status: 'pending', tx_hash: null, paid_at: null, verification: null, expires_at: now + 3_600_000, created_at: now, updated_at: now,
        token_address: null, nonce: null, amount_usd: null, address_duplicate_of: null, order_id: null, metadata: null, redirect_url: null, price_amount: null, price_currency: null, rate: null, rate_sources: null, rate_at: null,
      });
      return { invoiceId, merchantId, address: receive };
    },
    state: () => JSON.stringify({ tip: chain.tip.height, watcher: watcher.status() }),
    async close() {
      await watcher.stop();
      await server.close();
    },
  };
}

for (const kind of testDatabases) {
  describe(`one Bitcoin watcher for every merchant (${kind.name})`, { skip: kind.skip }, () => {
    it('two merchants paid in one block: each payment and confirmation is its own merchant\'s, never the other\'s', async () => {
      const created = await kind.create();
      const database = await created.open();
      const ctx = await setup(database, networksScope(['regtest']));
      try {
        const a = await ctx.invoice('m_alice', 40_000);
        const b = await ctx.invoice('m_bob', 60_000);
        await ctx.watcher.syncOnce();
        // Both in one transaction, in one block: one pass matches both outputs.
        ctx.chain.pay([
          { address: a.address, value: 40_000n },
          { address: b.address, value: 60_000n },
        ]);
        ctx.chain.mine(1);
        await ctx.watcher.syncOnce();

        const payments = await database.db.selectFrom('btc_payments').select(['merchant_id', 'invoice_id', 'value_sats']).orderBy('value_sats').execute();
        assert.deepEqual(
          payments.map((p) => [p.merchant_id, p.invoice_id, Number(p.value_sats)]),
          [
            ['m_alice', a.invoiceId, 40_000],
            ['m_bob', b.invoiceId, 60_000],
          ],
          `each output is credited to its invoice's merchant; ${ctx.state()}`,
        );
        const invoices = await database.db.selectFrom('invoices').select(['merchant_id', 'invoice_id', 'status']).orderBy('invoice_id').execute();
        assert.deepEqual(invoices.map((i) => [i.merchant_id, i.status]), [
          ['m_alice', 'confirmed'],
          ['m_bob', 'confirmed'],
        ]);
        const events = await database.db.selectFrom('events').select(['merchant_id', 'payload']).where('type', '=', 'invoice.confirmed').execute();
        assert.deepEqual(
          events.map((e) => [e.merchant_id, JSON.parse(e.payload).merchant_id, JSON.parse(e.payload).invoice_id]).sort(),
          [
            ['m_alice', 'm_alice', a.invoiceId],
            ['m_bob', 'm_bob', b.invoiceId],
          ],
          'each merchant is told of its own invoice only',
        );
        const progress = await database.db.selectFrom('btc_blocks').select('merchant_id').distinct().execute();
        assert.deepEqual(progress.map((p) => p.merchant_id), ['watch:btc:regtest'], 'progress is the watcher\'s, not a merchant\'s');
      } finally {
        await ctx.close();
        await database.close();
        await created.drop();
      }
    });

    it("a merchant's unreadable invoice is left out for that merchant alone: the others' payments confirm", async () => {
      const created = await kind.create();
      const database = await created.open();
      const ctx = await setup(database, networksScope(['regtest']));
      try {
        // As a corrupt or foreign row would be: an address that is no Bitcoin address at all.
        await ctx.invoice('m_broken', 10_000, 'not-a-bitcoin-address');
        const good = await ctx.invoice('m_good', 25_000);
        await ctx.watcher.syncOnce();
        assert.equal(ctx.watcher.status().btc_progress.failing_since, null, `the pass did not fail; ${ctx.state()}`);
        assert.deepEqual([...ctx.watcher.refusedMerchants().keys()], ['m_broken']);
        assert.match(ctx.watcher.refusedMerchants().get('m_broken')!, /^invoice inv_1: /);
        ctx.chain.pay([{ address: good.address, value: 25_000n }]);
        ctx.chain.mine(1);
        await ctx.watcher.syncOnce();
        const row = await database.db.selectFrom('invoices').select('status').where('invoice_id', '=', good.invoiceId).executeTakeFirstOrThrow();
        assert.equal(row.status, 'confirmed', ctx.state());
        assert.equal(ctx.watcher.status().refused_merchants, 1);
      } finally {
        await ctx.close();
        await database.close();
        await created.drop();
      }
    });

    it("a listener's database keeps its progress: the upgraded watcher continues from the merchant's last block, no rescan, no skip", async () => {
      const created = await kind.create();
      const database = await created.open();
      const ctx = await setup(database, merchantScope('m_listener'));
      try {
        ctx.chain.mine(5);
        // What an earlier version left: processed blocks under the merchant id, up to the tip then.
        const stoppedAt = ctx.chain.tip.height;
        for (let height = stoppedAt - 2; height <= stoppedAt; height++) {
          const hash = ctx.chain.blockAt(height)!.hash;
          await database.db.insertInto('btc_blocks').values({ merchant_id: 'm_listener', height, hash, processed_at: ctx.clock.now() }).execute();
        }
        const paidMeanwhile = await ctx.invoice('m_listener', 30_000);
        // While it was stopped: a payment in the next block, then more blocks.
        ctx.chain.pay([{ address: paidMeanwhile.address, value: 30_000n }]);
        ctx.chain.mine(3);
        await ctx.watcher.syncOnce();
        const rows = await database.db.selectFrom('btc_blocks').select(['merchant_id', 'height']).orderBy('height').execute();
        assert.deepEqual(new Set(rows.map((r) => r.merchant_id)), new Set(['m_listener']), 'the progress stays under the merchant id');
        assert.deepEqual(
          rows.map((r) => r.height),
          Array.from({ length: 6 }, (_, i) => stoppedAt - 2 + i),
          `every block after the stop was read once, none before it again; ${ctx.state()}`,
        );
        const payment = await database.db.selectFrom('btc_payments').select(['merchant_id', 'block_height']).executeTakeFirstOrThrow();
        assert.deepEqual([payment.merchant_id, payment.block_height], ['m_listener', stoppedAt + 1], 'the payment made while stopped was found');
      } finally {
        await ctx.close();
        await database.close();
        await created.drop();
      }
    });
  });
}

for (const kind of testDatabases) {
  it(`a Cloud upgraded from per-merchant watchers continues from the merchant furthest behind, and finds the payment made meanwhile (${kind.name})`, { skip: kind.skip }, async () => {
    const created = await kind.create();
    const database = await created.open();
    const ctx = await setup(database, networksScope(['regtest']));
    try {
      const a = await ctx.invoice('m_a', 30_000);
      await ctx.invoice('m_b', 40_000);
      ctx.chain.mine(5);
      const stoppedAt = ctx.chain.tip.height;
      // What the per-merchant watchers left: m_a at the tip then, m_b one block behind.
      for (const [merchantId, last] of [['m_a', stoppedAt], ['m_b', stoppedAt - 1]] as const) {
        for (let height = last - 1; height <= last; height++) {
          await database.db.insertInto('btc_blocks').values({ merchant_id: merchantId, height, hash: ctx.chain.blockAt(height)!.hash, processed_at: ctx.clock.now() }).execute();
        }
      }
      ctx.chain.pay([{ address: a.address, value: 30_000n }]);
      ctx.chain.mine(2);
      await ctx.watcher.syncOnce();
      const rows = await database.db.selectFrom('btc_blocks').select(['merchant_id', 'height']).orderBy('height').execute();
      assert.deepEqual(
        rows.map((r) => [r.merchant_id, r.height]),
        [stoppedAt - 1, stoppedAt, stoppedAt + 1, stoppedAt + 2].map((height) => ['watch:btc:regtest', height]),
        `continued from m_b's last block under the watcher's key, the merchants' rows dropped; ${ctx.state()}`,
      );
      const invoice = await database.db.selectFrom('invoices').select('status').where('invoice_id', '=', a.invoiceId).executeTakeFirstOrThrow();
      assert.equal(invoice.status, 'confirmed', 'the payment made during the upgrade was found');
    } finally {
      await ctx.close();
      await database.close();
      await created.drop();
    }
  });
}

it('the socket tracks merchants in turns: each one\'s newest open invoice first, then each one\'s next', () => {
  // Newest first, as the open invoices are read: a busy shop's five invoices, then two quieter shops.
  const open = ['busy:5', 'busy:4', 'quiet:2', 'busy:3', 'busy:2', 'other:1', 'quiet:1', 'busy:1'].map((id) => ({ merchantId: id.split(':')[0], id }));
  assert.deepEqual(
    inTurnsByMerchant(open).map((o) => o.id),
    ['busy:5', 'quiet:2', 'other:1', 'busy:4', 'quiet:1', 'busy:3', 'busy:2', 'busy:1'],
  );
  assert.deepEqual(inTurnsByMerchant([]), []);
});
