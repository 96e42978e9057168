import { test } from 'node:test';
import assert from 'node:assert/strict';
import { manualClock } from '../../../core/clock.ts';
import { createSourceStandings } from '../../../core/btc/header-source-standings.ts';
import { silentLogger } from '../../../core/log.ts';
import { startBtcWatchContext, type BtcWatchContext } from '../../helpers/btc-chain.ts';
import { inventedBranch, startLyingEsplora, type LyingEsplora } from '../../helpers/lying-esplora.ts';

// One Esplora source that claims a tip it cannot prove (a made-up branch with real regtest proof of
// work whose lowest header links to nothing), or that stays silent, listed first or second beside
// an honest one: real payments confirm within a few passes, and /health names the liar.

interface HealthBody {
  ok: boolean;
  problems: { component: string; kind: string; reason: string }[];
  btc_headers?: { height: number | null; target_height: number | null; synced: boolean; sources: { source: string; state: string; tip_height: number | null; problem: string | null }[] };
}

const health = async (ctx: BtcWatchContext): Promise<HealthBody> => (await fetch(`${ctx.listener.url}/health`)).json() as Promise<HealthBody>;
const labelOf = (url: string) => new URL(url).origin;

async function rejectionsCounted(ctx: BtcWatchContext, reason: string): Promise<number> {
  const text = await (await fetch(`${ctx.listener.url}/metrics`)).text();
  return [...text.matchAll(/^service_chain_source_rejected_total\{([^}]*)\} (\d+)$/gm)].filter((m) => m[1].includes(`reason="${reason}"`)).reduce((sum, m) => sum + Number(m[2]), 0);
}

/** A listener reading `liar` (relaying the local chain until told to lie) and the honest server, in the order given. */
async function withSources(liarPosition: 'first' | 'second'): Promise<{ ctx: BtcWatchContext; liar: LyingEsplora }> {
  const liar = await startLyingEsplora();
  const ctx = await startBtcWatchContext('esplora');
  liar.target = ctx.server.esploraUrl;
  await ctx.listener.stop();
  const urls = liarPosition === 'first' ? [liar.url, ctx.server.esploraUrl] : [ctx.server.esploraUrl, liar.url];
  await ctx.restart({ BTC_ESPLORA_URL: urls.join(',') });
  return { ctx, liar };
}

/** Pays a fresh invoice, mines `blocks`, and runs passes until it confirms (at most `passes`); the passes it took. */
async function payAndConfirm(ctx: BtcWatchContext, blocks: number, passes: number): Promise<{ invoice_id: string; passes: number }> {
  const invoice = await ctx.createInvoice(25_000);
  ctx.chain.pay([{ address: invoice.receive_address, value: 25_000n }]);
  ctx.chain.mine(blocks);
  for (let pass = 1; pass <= passes; pass++) {
    await ctx.sync().catch(() => {});
    if ((await ctx.invoice(invoice.invoice_id)).status === 'confirmed') return { invoice_id: invoice.invoice_id, passes: pass };
  }
  assert.fail(`the invoice did not confirm within ${passes} passes`);
}

// Near: a tip 3 above the real one, followed by hash (the walk back finds no verified ancestor).
// Far: 200 above, reached by pages of height (its pages do not link, nor does walking back from them).
for (const position of ['first', 'second'] as const) {
  for (const [distance, above] of [
    ['near', 3],
    ['far', 200],
  ] as const) {
    test(`a source listed ${position} claiming a made-up tip ${distance} above the real one: payments confirm, /health names it unproven-tip`, async () => {
      const { ctx, liar } = await withSources(position);
      try {
        await ctx.sync();
        liar.lie = inventedBranch(ctx.chain.tip.height + 6 + above, 400, Math.floor(ctx.clock.now() / 1000));
        const { passes } = await payAndConfirm(ctx, 6, 3);
        assert.ok(passes <= 2, `confirmed within ${passes} passes`);
        const h = await health(ctx);
        assert.equal(h.ok, false);
        assert.deepEqual(
          h.problems.map((p) => p.kind),
          ['unproven-tip'],
        );
        assert.match(h.problems[0].reason, new RegExp(`^${labelOf(liar.url)} claims a tip it cannot prove: `));
        const standings = Object.fromEntries(h.btc_headers!.sources.map((s) => [s.source, s.state]));
        assert.deepEqual(standings, { [labelOf(liar.url)]: 'unproven-tip', [labelOf(ctx.server.esploraUrl)]: 'ok' });
        assert.equal(h.btc_headers!.synced, true);
        assert.equal(h.btc_headers!.target_height, ctx.chain.tip.height, "the liar's height is no target");
        assert.ok((await rejectionsCounted(ctx, 'unproven-tip')) >= 1, 'counted in /metrics');
        // Set aside: the next passes do not ask it, and later payments confirm at the usual pace.
        const asked = liar.requests;
        const next = await payAndConfirm(ctx, 6, 1);
        assert.equal(next.passes, 1);
        assert.equal(liar.requests, asked, 'a source set aside is not asked');
      } finally {
        await ctx.close();
        await liar.close();
      }
    });
  }

  test(`a silent source listed ${position}: payments confirm on the other, /health shows it unreachable`, async () => {
    const { ctx, liar } = await withSources(position);
    try {
      await ctx.sync();
      liar.target = null;
      const { passes } = await payAndConfirm(ctx, 6, 2);
      assert.equal(passes, 1);
      const h = await health(ctx);
      const standings = Object.fromEntries(h.btc_headers!.sources.map((s) => [s.source, s.state]));
      assert.deepEqual(standings, { [labelOf(liar.url)]: 'unreachable', [labelOf(ctx.server.esploraUrl)]: 'ok' });
      assert.ok(h.btc_headers!.sources.every((s) => s.state !== 'unknown'));
    } finally {
      await ctx.close();
      await liar.close();
    }
  });
}

test('a source set aside again and again is asked ever less often (10 min, 20 min, … up to a day); a valid tip resets it', () => {
  const clock = manualClock(Date.UTC(2026, 0, 1));
  const standings = createSourceStandings([{ label: 'https://liar.example', headers: null as never }], { clock, log: silentLogger });
  const [liar] = standings.sources;
  const setAsideFor = () => {
    standings.markUnproven(liar, 'made up');
    const from = clock.now();
    while (!standings.usable(liar)) clock.advance(60_000);
    return (clock.now() - from) / 60_000;
  };
  assert.deepEqual([setAsideFor(), setAsideFor(), setAsideFor()], [10, 20, 40]);
  for (let i = 0; i < 10; i++) setAsideFor();
  assert.equal(setAsideFor(), 24 * 60, 'at most a day');
  assert.equal(liar.status.state, 'unproven-tip');
  const entry = { height: 1 } as never;
  standings.markVerified(liar, { tip: entry, best: entry, behind: false });
  assert.equal(setAsideFor(), 10, 'back to 10 minutes once it served a valid tip');
});
