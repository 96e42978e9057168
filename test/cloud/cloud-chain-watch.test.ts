import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { manualClock } from '../../core/clock.ts';
import type { RunningCloud } from '../../cloud/cloud-app.ts';
import { LocalBtcChain } from '../../sandbox/local-btc-chain.ts';
import { startLocalChainServer, type LocalChainServer } from '../../sandbox/local-chain-server.ts';
import { payeeOf, testAccountKey } from '../helpers/btc-chain.ts';
import { signupMerchant, startTestCloud } from '../helpers/cloud.ts';
import { postJson } from '../helpers/listener.ts';
import { waitForWatcher } from '../helpers/wait-for-watcher.ts';

/** Longer than the shared source's reuse window (2 s): the watchers' next passes ask the chain again. */
const PAST_REUSE_WINDOW_MS = 2_001;


function diff(before: Map<string, number>, after: Map<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [route, n] of after) if (n !== (before.get(route) ?? 0)) out[route] = n - (before.get(route) ?? 0);
  return out;
}

const total = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);

interface Measured {
  mempoolTx: Record<string, number>;
  newBlock: Record<string, number>;
}

/**
 * A real Cloud leader (SQLite: it always leads) with `merchants` merchants, each with a Bitcoin
 * invoice, watching the local regtest Esplora. The clock only moves when the test moves it, so
 * every answer the shared source may reuse stays reusable until then: the requests counted per
 * step are those the step caused, however often the watchers (every 20 ms) poll meanwhile.
 */
async function measure(merchants: number): Promise<Measured> {
  const clock = manualClock(Date.UTC(2026, 0, 1));
  const chain = new LocalBtcChain({ now: clock.now });
  const server: LocalChainServer = await startLocalChainServer(chain);
  let cloud: RunningCloud | undefined;
  try {
    cloud = await startTestCloud({
      // The full scan's sharing is measured here; address-scoped watching in cloud-chain-address.test.ts.
      env: { BTC_ESPLORA_URL: server.esploraUrl, BTC_ESPLORA_NETWORK: 'regtest', BTC_ESPLORA_SELF_HOSTED: 'true', CLOUD_WATCH: 'true', CLOUD_SIGNUP_RATE_LIMIT: 'off', CLOUD_INVOICE_RATE_LIMIT: 'off' },
      deps: { clock, chainWatch: { tuning: { bitcoin: { pollIntervalMs: 20 } }, refreshMs: 20 } },
    });
    const { db } = cloud.database;
    const watchers = () => ({ tip: chain.tip.height, watchers: cloud!.watcherStates() });
    const until = (what: string, check: () => Promise<boolean>) => waitForWatcher(what, check, Boolean, { watcher: watchers, timeoutMs: 15_000 });
    const invoices: { invoice_id: string; receive_address: string }[] = [];
    for (let i = 0; i < merchants; i++) {
      const m = await signupMerchant(cloud.url, { btc_xpub: testAccountKey(i + 1) });
      const created = await postJson(`${cloud.url}/api/v1/invoice`, { amount_sats: 50_000 }, { 'X-Service-Api-Key': m.api_key });
      assert.equal(created.status, 201, created.text);
      invoices.push(created.json);
    }
    // One watcher for every merchant: one progress row per block, under the watcher's scope key, never a merchant's.
    const tipProcessedByAll = async () => {
      const rows = await db.selectFrom('btc_blocks').select(['merchant_id', 'height']).where('height', '=', chain.tip.height).execute();
      assert.ok(rows.every((row) => row.merchant_id.startsWith('watch:btc:')), `progress is the watcher's: ${JSON.stringify(rows)}`);
      return rows.length === 1;
    };
    const paymentsIn = (status: string) => async () =>
      (await db.selectFrom('btc_payments').select('invoice_id').where('status', '=', status).execute()).length === merchants;
    await until('every merchant watches from the tip', tipProcessedByAll);
    // The watchers poll on: let them settle on the answers they reuse before counting.
    await new Promise((r) => setTimeout(r, 200));

    // One transaction pays every merchant's invoice: each watcher must see its own output.
    let before = server.requestsByRoute();
    chain.pay(invoices.map((invoice) => ({ ...payeeOf(invoice.receive_address), value: 50_000n })));
    clock.advance(PAST_REUSE_WINDOW_MS);
    await until('every merchant saw its payment in the mempool', paymentsIn('mempool'));
    await new Promise((r) => setTimeout(r, 200));
    const mempoolTx = diff(before, server.requestsByRoute());

    before = server.requestsByRoute();
    chain.mine(1);
    clock.advance(PAST_REUSE_WINDOW_MS);
    await until('every merchant processed the new block', async () => (await tipProcessedByAll()) && (await paymentsIn('block')()));
    await new Promise((r) => setTimeout(r, 200));
    const newBlock = diff(before, server.requestsByRoute());

    // Settling follows the block in the same pass: on a loaded machine it may still be under way.
    const statuses = async () =>
      (await db.selectFrom('invoices').select('status').where('invoice_id', 'in', invoices.map((i) => i.invoice_id)).execute()).map((r) => r.status);
    await waitForWatcher('every invoice confirmed', statuses, (all) => all.length === merchants && all.every((s) => s === 'confirmed'), {
      watcher: watchers,
      timeoutMs: 15_000,
    });
    return { mempoolTx, newBlock };
  } finally {
    await cloud?.stop();
    await server.close();
  }
}

describe('Cloud chain watching: one download per block, however many merchants', () => {
  it('1 vs 5 merchants: each block and each mempool transaction is downloaded once; tip, hash and mempool polls do not grow', async () => {
    const one = await measure(1);
    const five = await measure(5);
    console.log('esplora requests per step', JSON.stringify({ one, five }));
    for (const [name, m] of [
      ['1 merchant', one],
      ['5 merchants', five],
    ] as const) {
      assert.equal(m.mempoolTx['GET /api/tx/:hash/hex'], 1, `${name}: the new transaction is downloaded once`);
      assert.equal(m.mempoolTx['GET /api/block/:hash/raw'], undefined, `${name}: no block downloaded without a new block`);
      assert.equal(m.mempoolTx['GET /api/mempool/txids'], 1, `${name}: the mempool list is read once`);
      assert.equal(m.newBlock['GET /api/block/:hash/raw'], 1, `${name}: the new block is downloaded once`);
      assert.equal(m.newBlock['GET /api/tx/:hash/hex'], undefined, `${name}: the mined transaction is not downloaded again`);
      assert.equal(m.newBlock['GET /api/mempool/txids'], 1, `${name}: the mempool list is read once`);
      // The tip (its hash: one request tells a watcher at its last block that nothing happened)
      // read by the header sync at the pass's start and after the mempool list (the
      // left-the-mempool check); a new block's header once (the height of each block then comes
      // from the verified header chain, not the source); a pass that straddles the clock step may
      // read the tip once more.
      const tipReads = (step: Record<string, number>) => (step['GET /api/blocks/tip/height'] ?? 0) + (step['GET /api/blocks/tip/hash'] ?? 0);
      assert.ok(tipReads(m.mempoolTx) <= 3, `${name}: ${JSON.stringify(m.mempoolTx)}`);
      assert.ok(total(m.mempoolTx) <= 5, `${name}: ${JSON.stringify(m.mempoolTx)}`);
      assert.ok(tipReads(m.newBlock) <= 4, `${name}: ${JSON.stringify(m.newBlock)}`);
      assert.ok((m.newBlock['GET /api/block/:hash'] ?? 0) <= 2, `${name}: ${JSON.stringify(m.newBlock)}`);
      assert.equal(m.newBlock['GET /api/block-height/:n'], undefined, `${name}: heights are the verified chain's, never asked: ${JSON.stringify(m.newBlock)}`);
      assert.ok(total(m.newBlock) <= 8, `${name}: ${JSON.stringify(m.newBlock)}`);
    }
  });
});
