import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startMainnetSimulator } from '../../../bench/support/mainnet-simulator.ts';
import { startBtcWatchContext, type BtcWatchContext } from '../../helpers/btc-chain.ts';
import { postJson, tempSqliteUrl } from '../../helpers/listener.ts';
import { startLyingEsplora } from '../../helpers/lying-esplora.ts';

// The header chain's sync as /health shows it, and against a public-style rate limit: while it
// syncs /health says so (height, target, time left), invoices are still created, every source has
// a standing; no request goes inside a Retry-After window the server gave.

interface HealthBody {
  ok: boolean;
  problems: { component: string; kind: string; reason: string }[];
  btc_headers?: { height: number | null; target_height: number | null; synced: boolean; estimated_seconds_left?: number | null; sources: { source: string; state: string }[] };
}

/** `/blocks/:height` pages the local chain server answered. */
const pageReads = (ctx: BtcWatchContext) => ctx.server.requestsByRoute().get('GET /api/blocks/:n') ?? 0;

const health = async (ctx: BtcWatchContext): Promise<HealthBody> => (await fetch(`${ctx.listener.url}/health`)).json() as Promise<HealthBody>;

/** Passes until the header chain is synced (at most `limit`); the passes it took. */
async function passesUntilSynced(ctx: BtcWatchContext, limit: number): Promise<number> {
  for (let pass = 1; pass <= limit; pass++) {
    await ctx.sync().catch(() => {});
    if ((await health(ctx)).btc_headers!.synced) return pass;
  }
  assert.fail(`not synced within ${limit} passes`);
}

test('while the header chain syncs /health is not ok: a syncing problem with height, target and time left; invoices are still created; every source has a standing', async () => {
  const relay = await startLyingEsplora();
  const ctx = await startBtcWatchContext('esplora');
  try {
    relay.target = ctx.server.esploraUrl;
    await ctx.listener.stop();
    // More blocks than a pass's allowance brings in (150 requests a source, 10 headers a page).
    ctx.chain.mine(3_500);
    // Each page read takes 50 ms of the listener's clock (the pace the estimate is made from); in
    // the second pass, /health and POST /invoice are asked while the sync waits for a page.
    let pages = 0;
    let during: { health: HealthBody; invoiceStatus: number } | null = null;
    relay.lie = async (path) => {
      if (!path.startsWith('/blocks/') || path.startsWith('/blocks/tip')) return null;
      ctx.clock.advance(50);
      if (++pages === 160) during = { health: await health(ctx), invoiceStatus: (await postJson(`${ctx.listener.url}/invoice`, { amount_sats: 10_000 })).status };
      return null;
    };
    const pagesBefore = pageReads(ctx);
    await ctx.restart({ DATABASE_URL: tempSqliteUrl(), BTC_ESPLORA_URL: `${relay.url},${ctx.server.esploraUrl}` });
    const before = await health(ctx);
    assert.ok(
      before.btc_headers!.sources.every((s) => s.state === 'syncing'),
      'not asked yet: syncing, never unknown',
    );
    await passesUntilSynced(ctx, 4);
    // The relay forwards to the honest server, whose count holds both: the pages went to both sources.
    const direct = pageReads(ctx) - pagesBefore - pages;
    assert.ok(pages > 100 && direct > 100 && Math.abs(pages - direct) < (pages + direct) / 4, `pages spread over both sources (${pages} and ${direct})`);
    assert.ok(during, 'the sync was seen under way');
    const h = (during as { health: HealthBody; invoiceStatus: number }).health;
    assert.equal(h.ok, false);
    assert.deepEqual(
      h.problems.map((p) => p.kind),
      ['syncing'],
    );
    assert.match(h.problems[0].reason, /^the header chain is syncing: height \d+ of \d+, about \d+ min left; payments confirm once it is synced$/);
    assert.equal(h.btc_headers!.target_height, ctx.chain.tip.height);
    assert.ok(h.btc_headers!.height! > 0 && h.btc_headers!.height! < ctx.chain.tip.height);
    assert.ok(typeof h.btc_headers!.estimated_seconds_left === 'number' && h.btc_headers!.estimated_seconds_left > 0);
    assert.deepEqual(
      h.btc_headers!.sources.map((s) => s.state),
      ['syncing', 'syncing'],
    );
    assert.equal((during as { invoiceStatus: number }).invoiceStatus, 201, 'invoices are created during the sync');
    const after = await health(ctx);
    assert.equal(after.ok, true);
    assert.deepEqual(after.problems, []);
    assert.deepEqual(
      after.btc_headers!.sources.map((s) => s.state),
      ['ok', 'ok'],
    );
    assert.equal(after.btc_headers!.estimated_seconds_left, null);
  } finally {
    await ctx.close();
    await relay.close();
  }
});

test('a sync against a rate-limited public-style server (429 with Retry-After beyond its limit) sends no request inside a Retry-After window', async () => {
  const ctx = await startBtcWatchContext('esplora');
  ctx.chain.mine(200);
  // Stricter than the sync's sprint (5 requests a second, bursts of 20), so 429s do come.
  const simulator = await startMainnetSimulator(ctx.chain, { ratePerSecond: 3, burst: 5 });
  try {
    await ctx.listener.stop();
    // A fresh database: the whole chain to sync, from a public-style source (its request budget, address-mode watching).
    await ctx.restart({ DATABASE_URL: tempSqliteUrl(), BTC_ESPLORA_URL: simulator.esploraUrl, BTC_ESPLORA_SELF_HOSTED: 'false', BTC_ESPLORA_WS_URL: 'off' });
    await passesUntilSynced(ctx, 4);
    const stats = simulator.stats();
    assert.ok(stats.tooManyRequests > 0, 'the rate limit did answer 429');
    assert.equal(stats.insideRetryAfter, 0, 'no request inside a Retry-After window');
    assert.equal((await health(ctx)).btc_headers!.height, ctx.chain.tip.height);
  } finally {
    await ctx.close();
    await simulator.close();
  }
});
