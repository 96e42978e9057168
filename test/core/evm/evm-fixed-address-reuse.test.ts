import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { manualClock } from '../../../core/clock.ts';
import { seenUnitsOf } from '../../../core/evm/partial.ts';
import { CHAIN_CLOCK_SKEW_MS } from '../../../core/evm/nonce.ts';
import { FIXED_ADDRESS, evmServices, startEvmTestChain, type EvmTestChain } from '../../helpers/evm-chain.ts';
import { startRpcProxy, type RpcProxy } from '../../helpers/rpc-proxy.ts';
import { testDatabases } from '../../helpers/databases.ts';

/**
 * Fixed-address amounts come back after their quarantine: a shop selling at one price gets new
 * invoices with the exact amount of old paid ones. Each invoice confirms on its own transfer only,
 * on anvil with the real token contract, the service's clock moved by hand and the chain's block
 * times set to follow it (evm_setNextBlockTimestamp).
 */
const HOUR = 3_600_000;
const PRICE_USD = 5;

for (const kind of testDatabases) describe(`fixed-address amounts reused over time (${kind.name})`, { skip: kind.skip }, () => {
  const TEST_TIMEOUT_MS = 300_000;

  /** The chain, a second honest source (fixed-address transfers need two), and a clock an hour ahead of the chain's latest block. */
  async function withShop(fn: (shop: Awaited<ReturnType<typeof openShop>>) => Promise<void>) {
    const chain = await startEvmTestChain(kind, 'base');
    const second = await startRpcProxy(chain.anvil.url);
    try {
      await fn(await openShop(chain, [second]));
    } finally {
      await second.close();
      await chain.close();
    }
  }

  /** The test chain's BASE_MIN_SOURCES is 1 (its own node) unless `minSources` says otherwise; fixed-address matches need two whatever it is. */
  async function openShop(chain: EvmTestChain, others: RpcProxy[], order: 'proxies-first' | 'anvil-first' = 'anvil-first', minSources = '1') {
    const latest = await chain.anvil.rpc<{ timestamp: string }>('eth_getBlockByNumber', ['latest', false]);
    const clock = manualClock(Number(latest.timestamp) * 1000 + HOUR);
    const urls = order === 'anvil-first' ? [chain.anvil.url, ...others.map((p) => p.url)] : [...others.map((p) => p.url), chain.anvil.url];
    const config = chain.config({ MERCHANT_BASE_ADDRESS: FIXED_ADDRESS, BASE_RPC_URL: urls.join(','), BASE_MIN_SOURCES: minSources });
    // One-digit nonces: nine amounts per price, so amounts come back within days, as a busy shop's do within months.
    const services = evmServices(chain, config, { clock, watcherClock: clock, nonceDigits: 1, sources: urls.map((url) => chain.source(url)) });
    await services.watcher.tick();
    const row = (id: string) => chain.database.db.selectFrom('invoices').selectAll().where('invoice_id', '=', id).executeTakeFirstOrThrow();
    /** Sends `units` to the fixed address in a block stamped `at` (epoch ms), then mines up to `confirmations`. */
    const payAt = async (units: bigint, at: number, confirmations = 3) => {
      await chain.anvil.rpc('evm_setNextBlockTimestamp', [Math.floor(at / 1000)]);
      const sent = await chain.usdc.transfer(FIXED_ADDRESS, units);
      if (confirmations > 1) await chain.anvil.mine(confirmations - 1);
      return sent;
    };
    return { chain, clock, others, ...services, row, payAt, paidSoFar: async (id: string) => seenUnitsOf(chain.database.db, await row(id)) };
  }

  type Created = { invoice_id: string; amount_usdc_units: number; nonce: number };

  test('200 invoices at one price over a month: each confirms on its own transfer, no earlier transfer counts again, the unpaid ones expire', { timeout: TEST_TIMEOUT_MS }, () =>
    withShop(async ({ clock, create, invoice, watcher, events, payAt, paidSoFar, chain }) => {
      const INVOICES = 200;
      const every = (30 * 24 * HOUR) / INVOICES;
      const paidAmounts = new Set<number>();
      const paidBy = new Map<string, string>();
      let unpaidWithAnOldAmount = 0;
      let lastUnpaid: string | null = null;
      for (let i = 0; i < INVOICES; i++) {
        clock.advance(every);
        if (lastUnpaid) {
          assert.equal((await invoice(lastUnpaid)).status, 'expired', `unpaid invoice ${lastUnpaid} expires though an earlier invoice was paid its amount`);
          lastUnpaid = null;
        }
        const created = (await create({ amount_usd: PRICE_USD })) as Created;
        assert.equal(await paidSoFar(created.invoice_id), 0n, `invoice ${i} (amount ${created.amount_usdc_units}) counts no earlier transfer`);
        assert.equal((await invoice(created.invoice_id)).status, 'pending');
        if (i % 25 === 24) {
          if (paidAmounts.has(created.amount_usdc_units)) unpaidWithAnOldAmount++;
          lastUnpaid = created.invoice_id;
          continue;
        }
        const sent = await payAt(BigInt(created.amount_usdc_units), clock.now() + 60_000);
        await watcher.tick();
        const paid = await invoice(created.invoice_id);
        assert.equal(paid.status, 'confirmed', `invoice ${i} confirms on its own transfer`);
        assert.equal(paid.tx_hash, sent.txHash);
        paidAmounts.add(created.amount_usdc_units);
        paidBy.set(sent.txHash, created.invoice_id);
      }
      assert.ok(paidAmounts.size <= 9, 'nine amounts served the month: every one came back many times');
      assert.ok(unpaidWithAnOldAmount >= 1, 'an unpaid invoice had the amount of an earlier paid one');
      const confirmed = (await events()).filter((e) => e.type === 'invoice.confirmed');
      assert.equal(confirmed.length, paidBy.size, 'one confirmation per payment');
      assert.deepEqual(new Map(confirmed.map((e) => [e.payload.tx_hash as string, e.payload.invoice_id as string])), paidBy, 'each transfer confirmed its own invoice');
      const applied = await chain.database.db.selectFrom('base_transfers').select(['tx_hash', 'invoice_id']).where('state', '=', 'applied').execute();
      assert.equal(applied.length, paidBy.size, 'each transfer is applied once');
      assert.deepEqual(new Map(applied.map((t) => [t.tx_hash, t.invoice_id])), paidBy);
    }));

  test('a transfer mined before the invoice was created never counts for it (beyond the skew allowed); one within the skew does', { timeout: TEST_TIMEOUT_MS }, () =>
    withShop(async ({ chain, clock, create, invoice, watcher, events, payAt, paidSoFar }) => {
      // The amount the next invoice will get (a fresh pool starts at nonce 1), paid ten minutes early:
      // recorded while it waits for its confirmations, then the invoice is created.
      const early = await payAt(5_000_001n, clock.now() - 10 * 60_000, 1);
      await watcher.tick();
      const late = (await create({ amount_usd: PRICE_USD })) as Created;
      assert.equal(late.amount_usdc_units, 5_000_001);
      assert.equal(await paidSoFar(late.invoice_id), 0n, 'the earlier transfer, recorded and waiting, is not seen toward it');
      await chain.anvil.mine(3);
      await watcher.tick();
      assert.equal((await invoice(late.invoice_id)).status, 'pending');
      const [orphan] = await events();
      assert.deepEqual([orphan?.type, orphan?.payload.tx_hash], ['payment.orphan', early.txHash]);
      clock.advance(HOUR + 1);
      assert.equal((await invoice(late.invoice_id)).status, 'expired');

      // A host clock a little ahead of the chain's: a transfer stamped two minutes before the invoice still pays it.
      clock.advance(HOUR);
      const next = (await create({ amount_usd: PRICE_USD })) as Created;
      assert.ok(2 * 60_000 < CHAIN_CLOCK_SKEW_MS);
      const sent = await payAt(BigInt(next.amount_usdc_units), clock.now() - 2 * 60_000);
      await watcher.tick();
      const paid = await invoice(next.invoice_id);
      assert.deepEqual([paid.status, paid.tx_hash], ['confirmed', sent.txHash]);
    }));

  if (kind.name === 'sqlite') {
    // BASE_MIN_SOURCES 2: the scan records the log only with the time two sources give its block.
    // 1: the scan takes one source's header, and settlement asks every source for it (block-times.ts).
    for (const [minSources, order] of [['2', 'first'], ['2', 'second'], ['1', 'first'], ['1', 'second']] as const) {
      test(`BASE_MIN_SOURCES=${minSources}: a source listed ${order} that moves block times later cannot make an old transfer pay a new invoice; two honest sources correct the time and the liar is named`, { timeout: TEST_TIMEOUT_MS }, async () => {
        const chain = await startEvmTestChain(kind, 'base');
        const [liar, honest] = [await startRpcProxy(chain.anvil.url), await startRpcProxy(chain.anvil.url)];
        try {
          const shop = await openShop(chain, order === 'first' ? [liar, honest] : [honest, liar], order === 'first' ? 'proxies-first' : 'anvil-first', minSources);
          const early = await shop.payAt(5_000_001n, shop.clock.now() - HOUR / 2);
          // Half an hour later by its word: the block looks mined after the invoice below.
          liar.mode = { kind: 'shift-time', byS: 3_600 };
          const created = (await shop.create({ amount_usd: PRICE_USD })) as Created;
          assert.equal(created.amount_usdc_units, 5_000_001);
          await shop.watcher.tick();
          await shop.watcher.tick();
          assert.equal((await shop.invoice(created.invoice_id)).status, 'pending', 'the old transfer pays nothing');
          const orphan = (await shop.events()).find((e) => e.type === 'payment.orphan');
          assert.equal(orphan?.payload.tx_hash, early.txHash);
          const stored = await chain.database.db.selectFrom('base_transfers').select(['block_time', 'state']).where('tx_hash', '=', early.txHash).executeTakeFirstOrThrow();
          const block = await chain.anvil.rpc<{ timestamp: string }>('eth_getTransactionReceipt', [early.txHash]).then((r) => chain.anvil.rpc<{ timestamp: string }>('eth_getBlockByHash', [(r as unknown as { blockHash: string }).blockHash, false]));
          assert.deepEqual([Number(stored.block_time), stored.state], [Number(block.timestamp) * 1000, 'orphan'], 'the agreed block time is stored');
          assert.deepEqual(
            shop.watcher.status().disagreeing_sources.map((d) => d.source),
            [chain.source(liar.url).label],
            'the liar, and only the liar, is named',
          );
          assert.match(shop.watcher.status().disagreeing_sources[0]!.reason, /reports time/);
        } finally {
          await liar.close();
          await honest.close();
          await chain.close();
        }
      });
    }

    // With BASE_MIN_SOURCES 2 the scan itself records no log on one source's header (scan-agreement.ts).
    test('BASE_MIN_SOURCES=1: a source silent about block headers beside one honest source: the payment waits, never counted on one word; a third honest source lets it confirm', { timeout: TEST_TIMEOUT_MS }, async () => {
      const chain = await startEvmTestChain(kind, 'base');
      const [silent, third] = [await startRpcProxy(chain.anvil.url), await startRpcProxy(chain.anvil.url)];
      try {
        silent.mode = { kind: 'no-headers-by-hash' };
        const two = await openShop(chain, [silent]);
        const created = (await two.create({ amount_usd: PRICE_USD })) as Created;
        const sent = await two.payAt(BigInt(created.amount_usdc_units), two.clock.now() + 60_000);
        await two.watcher.tick();
        await two.watcher.tick();
        assert.equal((await two.invoice(created.invoice_id)).status, 'pending', 'one source alone gave the block time');
        assert.equal(two.watcher.status().awaiting_second_source, 1);
        const three = evmServices(chain, chain.config({ MERCHANT_BASE_ADDRESS: FIXED_ADDRESS, BASE_RPC_URL: [chain.anvil.url, silent.url, third.url].join(',') }), {
          clock: two.clock,
          watcherClock: two.clock,
          nonceDigits: 1,
          sources: [chain.anvil.url, silent.url, third.url].map((url) => chain.source(url)),
        });
        await three.watcher.tick();
        const paid = await three.invoice(created.invoice_id);
        assert.deepEqual([paid.status, paid.tx_hash, paid.verification], ['confirmed', sent.txHash, 'sources:2']);
      } finally {
        await silent.close();
        await third.close();
        await chain.close();
      }
    });
  }
});
