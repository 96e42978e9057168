import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { RpcError, createRpcSource } from '../../../core/evm/rpc.ts';
import { createSharedRpcSource } from '../../../core/evm/shared-rpc-source.ts';
import { manualClock, systemClock } from '../../../core/clock.ts';
import { budgetedFetch, createRequestBudget, sourceLabel, type RequestBudget } from '../../../core/net/request-budget.ts';
import { ACCOUNT_XPUB, FIXED_ADDRESS, evmServices, startEvmTestChain, type EvmTestChain } from '../../helpers/evm-chain.ts';
import { startPublicRpcProxy, type PublicProviderRules, type PublicRpcProxy } from '../../helpers/public-rpc-proxy.ts';
import { testDatabases } from '../../helpers/databases.ts';

const TEST_TIMEOUT_MS = 120_000;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** An RPC source through its own request budget, generous enough that only the provider's 429s pace it. */
function budgetedSource(url: string) {
  const budget = createRequestBudget({ label: sourceLabel(url), ratePerSec: 50, burst: 100, clock: systemClock, sleep, baseBackoffMs: 200 });
  const refusals: string[] = [];
  const source = createRpcSource(url, {
    fetch: budgetedFetch(fetch, budget),
    sleep,
    attempts: 6,
    backoffMs: 10,
    logger: { warn: (_message, fields) => refusals.push(String((fields as { source: string }).source)) },
  });
  return { source, budget, refusals };
}

/** Ticks until `done`, failing with what the watcher last reported rather than a bare timeout. */
async function tickUntil(watcher: { tick(): Promise<unknown>; status(): unknown }, done: () => Promise<boolean>, what: string) {
  for (let i = 0; i < 20; i++) {
    await watcher.tick().catch(() => {});
    if (await done()) return;
  }
  assert.fail(`${what} did not happen after 20 polls; watcher status: ${JSON.stringify(watcher.status())}`);
}

function assertPolite(proxy: PublicRpcProxy, budget: RequestBudget) {
  assert.equal(proxy.counts.insideWindow, 0, 'no request was sent inside a Retry-After window');
  const stats = budget.stats();
  assert.equal(stats.http_429, proxy.counts.http429, 'the budget counted every 429 the provider sent');
  assert.equal(stats.requests, proxy.counts.requests, 'the budget counted every request the provider received');
  assert.ok(!stats.label.includes('SECRET_KEY'), 'the label never shows the path, where providers put API keys');
}

for (const kind of testDatabases) describe(`Base against a public-provider-shaped RPC (${kind.name})`, { skip: kind.skip }, () => {
  async function withChain(fn: (chain: EvmTestChain, proxies: (rules: PublicProviderRules) => Promise<PublicRpcProxy>) => Promise<void>) {
    const chain = await startEvmTestChain(kind);
    const started: PublicRpcProxy[] = [];
    try {
      await fn(chain, async (rules) => {
        const proxy = await startPublicRpcProxy(chain.anvil.url, rules);
        started.push(proxy);
        return proxy;
      });
    } finally {
      await Promise.all(started.map((p) => p.close()));
      await chain.close();
    }
  }

  test('xpub invoice paid in two transfers confirms through 429s, a result limit and refused batches', { timeout: TEST_TIMEOUT_MS }, () =>
    withChain(async (chain, proxied) => {
      const proxy = await proxied({ every429: 5, retryAfterS: 1, maxLogResults: 1, refuseBatches: true });
      const { source, budget, refusals } = budgetedSource(proxy.url);
      const { create, invoice, watcher } = evmServices(chain, chain.config({ MERCHANT_BASE_XPUB: ACCOUNT_XPUB }), { sources: [source] });
      await chain.anvil.mine(6);
      const created = (await create({ amount_usd: 2 })) as { invoice_id: string; receive_address: string };
      await chain.usdc.transfer(created.receive_address, 1_000_000n);
      await chain.usdc.transfer(created.receive_address, 1_000_000n);
      await chain.anvil.mine(3);

      await tickUntil(watcher, async () => (await invoice(created.invoice_id)).status === 'confirmed', 'confirmation');

      assert.ok(proxy.counts.http429 > 0, 'the provider did answer 429');
      assert.ok(proxy.counts.resultErrors > 0, 'a range with too many results was refused and split where the provider suggested');
      assert.equal(proxy.counts.refusedBatches, 1, 'a refused batch is tried once, then the source sends single calls');
      assert.deepEqual(refusals, [sourceLabel(proxy.url)]);
      assertPolite(proxy, budget);
    }));

  test('fixed-address: a range limit is split; the second source is held to the same rules; batches go where accepted', { timeout: TEST_TIMEOUT_MS }, () =>
    withChain(async (chain, proxied) => {
      const scanning = await proxied({ every429: 4, retryAfterS: 1, maxLogRange: 3 });
      const second = await proxied({ every429: 3, retryAfterS: 1, refuseBatches: true });
      const a = budgetedSource(scanning.url);
      const b = budgetedSource(second.url);
      const config = chain.config({ MERCHANT_BASE_ADDRESS: FIXED_ADDRESS, BASE_RPC_URL: `${scanning.url},${second.url}` });
      const { create, invoice, watcher } = evmServices(chain, config, { sources: [a.source, b.source] });
      const created = (await create({ amount_usd: 3.21 })) as { invoice_id: string; amount_usdc_units: number };
      await chain.usdc.transfer(FIXED_ADDRESS, BigInt(created.amount_usdc_units));
      await chain.anvil.mine(3);

      await tickUntil(watcher, async () => (await invoice(created.invoice_id)).status === 'confirmed', 'confirmation by two sources');

      assert.ok(scanning.counts.rangeErrors > 0, 'a range too wide was refused and split');
      assert.ok(scanning.counts.batches > 0 && scanning.counts.refusedBatches === 0, 'the scanning source took batches');
      assert.equal(second.counts.refusedBatches, 1, 'the second source refused one batch and got single calls after');
      assert.ok(second.counts.http429 > 0, 'the second source did answer 429');
      assertPolite(scanning, a.budget);
      assertPolite(second, b.budget);
    }));

  test("Cloud's shared source: the head comes from its cache, the other calls go to the node as one batch", { timeout: TEST_TIMEOUT_MS }, () =>
    withChain(async (_chain, proxied) => {
      const proxy = await proxied({});
      const shared = createSharedRpcSource(budgetedSource(proxy.url).source, { clock: manualClock() });
      const head = await shared.call<string>('eth_blockNumber', []);
      const before = proxy.counts.requests;
      const answers = await shared.batch([
        { method: 'eth_blockNumber', params: [] },
        { method: 'eth_getTransactionReceipt', params: [`0x${'00'.repeat(32)}`] },
        { method: 'eth_getBalance', params: [FIXED_ADDRESS, 'latest'] },
        { method: 'eth_getBalance', params: ['not an address', 'latest'] },
      ]);
      assert.equal(answers[0], head, 'the head is the cached one');
      assert.equal(answers[1], null, 'an unknown transaction has no receipt');
      assert.equal(answers[2], '0x0');
      assert.ok(answers[3] instanceof RpcError, "one call's error is that call's answer, not the batch's failure");
      assert.deepEqual([proxy.counts.requests - before, proxy.counts.batches], [1, 1]);
    }));
});
