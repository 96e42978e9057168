import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ACCOUNT_XPUB, evmServices, startEvmTestChain } from '../../helpers/evm-chain.ts';
import type { Flood } from '../../helpers/flood.ts';
import { startRpcProxy } from '../../helpers/rpc-proxy.ts';

// A Base RPC source listed first that answers 100 MB, a stream without end, or headers then
// silence: the watcher leaves it out of the pass (sources_up counts it down), the process keeps its
// memory, and the two honest sources confirm the payment.

for (const flood of ['huge', 'endless', 'silent'] as Flood[]) {
  test(`an RPC source answering ${flood} listed first: left out of the pass, the payment confirms on the others`, { timeout: 120_000 }, async () => {
    const chain = await startEvmTestChain();
    const bad = await startRpcProxy(chain.anvil.url);
    const second = await startRpcProxy(chain.anvil.url);
    try {
      bad.mode = { kind: 'flood', flood };
      const config = chain.config({ MERCHANT_BASE_XPUB: ACCOUNT_XPUB, BASE_RPC_URL: `${bad.url},${chain.anvil.url},${second.url}` });
      const { create, invoice, watcher } = evmServices(chain, config, { sources: [chain.source(bad.url), chain.source(), chain.source(second.url)] });
      const created = (await create({ amount_usd: 3 })) as { invoice_id: string; receive_address: string };
      const paid = await chain.usdc.transfer(created.receive_address, 3_000_000n);
      await chain.anvil.mine(5);
      const heapBefore = process.memoryUsage().heapUsed;
      await watcher.tick();
      assert.ok(process.memoryUsage().heapUsed - heapBefore < 64 * 1024 * 1024, 'no flood was kept in memory');
      assert.equal(watcher.status().sources_up, 2, 'the flooding source is left out');
      const confirmed = await invoice(created.invoice_id);
      assert.equal(confirmed.status, 'confirmed');
      assert.equal(confirmed.tx_hash, paid.txHash);
    } finally {
      await bad.close();
      await second.close();
      await chain.close();
    }
  });
}
