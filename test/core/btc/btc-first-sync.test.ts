import { test } from 'node:test';
import assert from 'node:assert/strict';
import { firstHeightMinedFrom } from '../../../core/btc/verified-chain-source.ts';
import { startBtcWatchContext, type BtcWatchContext } from '../../helpers/btc-chain.ts';
import { tempSqliteUrl } from '../../helpers/listener.ts';

// A fresh install whose header chain is still syncing when an invoice is paid: once synced, blocks
// are read from where the oldest open invoice could have been paid, not from the tip.

const BLOCK_MS = 600_000;

/** Mines `count` blocks ten minutes apart (the chain's times follow the manual clock). */
function mineSpaced(ctx: BtcWatchContext, count: number) {
  for (let i = 0; i < count; i++) {
    ctx.clock.advance(BLOCK_MS);
    ctx.chain.mine(1);
  }
}

const headerStatus = async (ctx: BtcWatchContext) =>
  ((await (await fetch(`${ctx.listener.url}/health`)).json()) as { btc_headers: { synced: boolean; height: number | null } }).btc_headers;

for (const mode of ['address', 'full'] as const) {
  test(`${mode} mode: an invoice created, paid and mined while the first header sync is behind confirms once the sync is done`, async () => {
    const env: Record<string, string> = mode === 'address' ? { BTC_ESPLORA_SELF_HOSTED: 'false', BTC_ESPLORA_WS_URL: 'off' } : {};
    const ctx = await startBtcWatchContext('esplora', { env });
    try {
      await ctx.listener.stop();
      // A chain long enough that one pass's request allowance (150 pages of 10 headers, and the
      // sprint while syncing) syncs only part of it.
      mineSpaced(ctx, 6_000);
      await ctx.restart({ DATABASE_URL: tempSqliteUrl() });
      await ctx.sync();
      assert.equal((await headerStatus(ctx)).synced, false, 'the first sync is still behind after one pass');

      const invoice = await ctx.createInvoice(25_000, 86_400);
      const txid = ctx.chain.pay([{ address: invoice.receive_address, value: 25_000n }]);
      mineSpaced(ctx, 1);
      const paidHeight = ctx.chain.tip.height;
      // More blocks on top: the paying block is well below the tip the sync ends at.
      mineSpaced(ctx, 3);
      let passes = 0;
      do {
        await ctx.sync();
        assert.ok(++passes < 20, 'the header sync ends');
      } while (!(await headerStatus(ctx)).synced);
      await ctx.sync();

      const paid = await ctx.invoice(invoice.invoice_id);
      assert.equal(paid.status, 'confirmed');
      assert.equal(paid.tx_hash, txid);
      const rows = await ctx.listener.database.db.selectFrom('btc_payments').select(['block_height', 'value_sats']).where('invoice_id', '=', invoice.invoice_id).execute();
      assert.deepEqual(rows.map((r) => [r.block_height, Number(r.value_sats)]), [[paidHeight, 25_000]]);
      assert.equal((await ctx.events('invoice.confirmed')).length, 1);
    } finally {
      await ctx.close();
    }
  });
}

test('a fresh install with no open invoice starts at the tip: no history is read', async () => {
  const ctx = await startBtcWatchContext('esplora');
  try {
    await ctx.listener.stop();
    mineSpaced(ctx, 50);
    const blockReads = () => [...ctx.server.requestsByRoute()].filter(([route]) => /\/raw$/.test(route)).reduce((sum, [, n]) => sum + n, 0);
    await ctx.restart({ DATABASE_URL: tempSqliteUrl() });
    const before = blockReads();
    await ctx.sync();
    assert.equal(blockReads() - before, 1, 'the tip block alone');
  } finally {
    await ctx.close();
  }
});

test('the first height a block mined from a time can have: 2 hours of header-time skew and the 11-block median span below it', () => {
  const start = 1_700_000_000;
  // Blocks 100..199 ten minutes apart; block 150 carries a time an hour behind (allowed above the median).
  const times = new Map(Array.from({ length: 100 }, (_, i) => [100 + i, start + i * 600]));
  times.set(150, start + 50 * 600 - 3_600);
  const chain = { baseHeight: 100, tip: { height: 199 }, at: (h: number) => (times.has(h) ? { time: times.get(h)! } : null) };
  const at = (height: number) => times.get(height)! * 1000;
  const cases: Array<[string, number, number]> = [
    // [what, time (ms), expected height]
    ['paid at block 180: below the last block over 2 hours older (167), 11 more', at(180), 156],
    ['paid at block 160: the lagging time of block 150 stops the walk there, lower and so safe', at(160), 139],
    ['paid before the chain known: its base', at(100) - 86_400_000, 100],
    ['paid after the tip: still 2 hours and 11 blocks below it', at(199) + 600_000, 176],
  ];
  for (const [what, time, expected] of cases) assert.equal(firstHeightMinedFrom(chain as never, time), expected, what);
});
