import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { manualClock } from '../../../core/clock.ts';
import { chainFacts } from '../../../shared/index.ts';
import { createServiceMetrics } from '../../../core/metrics.ts';
import { ACCOUNT_XPUB, FIXED_ADDRESS, evmServices, evmTestChains, startEvmTestChain, type EvmTestChain } from '../../helpers/evm-chain.ts';
import { startRpcProxy } from '../../helpers/rpc-proxy.ts';
import { testDatabases } from '../../helpers/databases.ts';

for (const kind of testDatabases) for (const evmChain of evmTestChains) describe(`EVM watcher on ${evmChain} (${kind.name})`, { skip: kind.skip }, () => {
  /** A hang (a node that never answers) fails the one test, with its name, instead of the run. */
  const TEST_TIMEOUT_MS = 90_000;

  async function withChain(fn: (chain: EvmTestChain) => Promise<void>) {
    const chain = await startEvmTestChain(kind, evmChain);
    try {
      await fn(chain);
    } finally {
      await chain.close();
    }
  }

  test('xpub invoice paid in one transfer confirms after the required confirmations, with its tx_hash', { timeout: TEST_TIMEOUT_MS }, () =>
    withChain(async (chain) => {
      const metrics = createServiceMetrics();
      const { create, invoice, watcher, events } = evmServices(chain, chain.config({ MERCHANT_BASE_XPUB: ACCOUNT_XPUB }), { metrics });
      const created = (await create({ amount_usd: 12.34 })) as { invoice_id: string; receive_address: string; amount_usdc_units: number; child_index: number };
      assert.equal(created.child_index, 0);
      assert.equal(created.receive_address, '0x9858EfFD232B4033E47d90003D41EC34EcaEda94');
      assert.equal(created.amount_usdc_units, 12_340_000);

      const paid = await chain.usdc.transfer(created.receive_address, 12_340_000n);
      await watcher.tick();
      assert.equal((await invoice(created.invoice_id)).status, 'pending', 'one confirmation of three');
      await chain.anvil.mine(2);
      await watcher.tick();
      const confirmed = await invoice(created.invoice_id);
      assert.equal(confirmed.status, 'confirmed');
      assert.equal(confirmed.tx_hash, paid.txHash);
      assert.ok(confirmed.paid_at);
      const [event] = await events();
      assert.equal(event.type, 'invoice.confirmed');
      assert.deepEqual(
        { ...event.payload, confirmed_at: undefined },
        {
          event: 'invoice.confirmed',
          event_id: event.eventId,
          invoice_id: created.invoice_id,
          merchant_id: 'm_test',
          chain: evmChain,
          asset: 'USDC',
          amount: '12.340000',
          address: created.receive_address,
          tx_hash: paid.txHash,
          confirmations: 3,
          confirmed_at: undefined,
          // The test's one node, declared trusted (BASE_MIN_SOURCES=1).
          verification: 'own-node',
          // Created without order fields: each is sent, null.
          order_id: null,
          metadata: null,
          memo: null,
          redirect_url: null,
          // Priced in its asset: no fiat price, no rate.
          price_amount: null,
          price_currency: null,
          rate: null,
          rate_sources: null,
          rate_at: null,
        },
      );
      await chain.anvil.mine(2);
      await watcher.tick();
      assert.equal((await events()).length, 1, 'a confirmed invoice is never confirmed twice');
      // One latency each; the head that confirmed it was read after the transfer was first seen.
      const observed = async (histogram: typeof metrics.settlementSeconds, suffix: string) => {
        const { name, values } = await histogram.get();
        return values.find((v) => v.metricName === `${name}_${suffix}` && v.labels.chain === evmChain)?.value;
      };
      assert.equal(await observed(metrics.blockToConfirmedSeconds, 'count'), 1);
      assert.equal(await observed(metrics.settlementSeconds, 'count'), 1);
      assert.ok((await observed(metrics.blockToConfirmedSeconds, 'sum'))! <= (await observed(metrics.settlementSeconds, 'sum'))!);
    }));

  test('xpub invoice paid in two transfers confirms on the one that completes it', { timeout: TEST_TIMEOUT_MS }, () =>
    withChain(async (chain) => {
      const { create, invoice, watcher } = evmServices(chain, chain.config({ MERCHANT_BASE_XPUB: ACCOUNT_XPUB }));
      const first = (await create({ amount_usd: 1 })) as { invoice_id: string; receive_address: string };
      const created = (await create({ amount_usd: 5 })) as { invoice_id: string; receive_address: string; child_index: number };
      assert.equal(created.child_index, 1);
      assert.notEqual(created.receive_address, first.receive_address);

      await chain.usdc.transfer(created.receive_address, 2_000_000n, 1);
      await watcher.tick();
      assert.equal((await invoice(created.invoice_id)).status, 'partial', '2 of 5 USDC seen, 1 confirmation');
      await chain.anvil.mine(3);
      await watcher.tick();
      assert.equal((await invoice(created.invoice_id)).status, 'partial', '2 of 5 USDC confirmed');
      const second = await chain.usdc.transfer(created.receive_address, 3_000_000n, 2);
      await watcher.tick();
      assert.equal((await invoice(created.invoice_id)).status, 'pending', 'covered, waiting for the confirmations of the second transfer');
      await chain.anvil.mine(2);
      await watcher.tick();
      const confirmed = await invoice(created.invoice_id);
      assert.equal(confirmed.status, 'confirmed');
      assert.equal(confirmed.tx_hash, second.txHash);
      assert.equal((await invoice(first.invoice_id)).status, 'pending', 'another invoice is untouched');
    }));

  test('a part-paid xpub invoice reads partial; a reorg dropping the part payment makes it pending; past expiry it reads expired', { timeout: TEST_TIMEOUT_MS }, () =>
    withChain(async (chain) => {
      const later = manualClock(Date.now());
      const { create, invoice, watcher } = evmServices(chain, chain.config({ MERCHANT_BASE_XPUB: ACCOUNT_XPUB }), { watcherClock: later });
      await watcher.tick();
      const created = (await create({ amount_usd: 8 })) as { invoice_id: string; receive_address: string };
      await chain.usdc.transfer(created.receive_address, 3_000_000n);
      await watcher.tick();
      assert.equal((await invoice(created.invoice_id)).status, 'partial');

      await chain.anvil.rpc('anvil_reorg', [1, []]);
      await watcher.tick();
      assert.equal((await invoice(created.invoice_id)).status, 'pending', 'the part payment is gone');

      await chain.usdc.transfer(created.receive_address, 1_000_000n);
      await chain.anvil.mine(3);
      await watcher.tick();
      assert.equal((await invoice(created.invoice_id)).status, 'partial');
      later.advance(2 * 3_600_000);
      await watcher.tick();
      assert.equal((await invoice(created.invoice_id)).status, 'expired', '1 of 8 USDC when the invoice expired');
    }));

  test('a transfer of the other token to an xpub address pays nothing', { timeout: TEST_TIMEOUT_MS }, () =>
    withChain(async (chain) => {
      const { create, invoice, watcher, events } = evmServices(chain, chain.config({ MERCHANT_BASE_XPUB: ACCOUNT_XPUB, MERCHANT_BASE_ADDRESS: FIXED_ADDRESS }));
      const created = (await create({ amount_usd: 3 })) as { invoice_id: string; receive_address: string };
      await chain.usdt.transfer(created.receive_address, 3_000_000n);
      await chain.anvil.mine(3);
      await watcher.tick();
      assert.equal((await invoice(created.invoice_id)).status, 'pending');
      assert.deepEqual(await events(), []);
    }));

  test('fixed-address: the exact amount confirms when two sources agree; an inexact amount is an orphan', { timeout: TEST_TIMEOUT_MS }, () =>
    withChain(async (chain) => {
      const proxy = await startRpcProxy(chain.anvil.url);
      try {
        const config = chain.config({ MERCHANT_BASE_ADDRESS: FIXED_ADDRESS, BASE_RPC_URL: `${chain.anvil.url},${proxy.url}` });
        const { create, invoice, watcher, events } = evmServices(chain, config, { sources: [chain.source(), chain.source(proxy.url)] });
        const a = (await create({ amount_usd: 12.34 })) as { invoice_id: string; amount_usdc_units: number; amount_usdc: string; nonce: number; mode: string; token_address: string };
        const b = (await create({ amount_usd: 12.34, asset: 'usdt' })) as { invoice_id: string; amount_usdc_units: number; nonce: number; asset: string };
        assert.equal(a.mode, 'fixed-address');
        assert.equal(a.token_address, chain.usdc.address);
        assert.deepEqual([a.nonce, a.amount_usdc, b.nonce, b.asset], [1, '12.340001', 2, 'USDT'], 'one amount reservation spans both tokens');

        const exact = await chain.usdc.transfer(FIXED_ADDRESS, BigInt(a.amount_usdc_units));
        const inexact = await chain.usdt.transfer(FIXED_ADDRESS, 12_340_000n);
        await chain.anvil.mine(3);
        await watcher.tick();
        const paid = await invoice(a.invoice_id);
        assert.equal(paid.status, 'confirmed');
        assert.equal(paid.tx_hash, exact.txHash);
        assert.equal((await invoice(b.invoice_id)).status, 'pending', 'the rounded amount pays no invoice');
        const orphan = (await events()).find((e) => e.type === 'payment.orphan');
        assert.deepEqual(
          { ...orphan?.payload, detected_at: undefined },
          {
            event: 'payment.orphan',
            event_id: orphan?.eventId,
            chain: evmChain,
            asset: 'USDT',
            token_address: chain.usdt.address,
            address: FIXED_ADDRESS,
            tx_hash: inexact.txHash,
            value: '12.340000',
            detected_at: undefined,
          },
        );
        assert.ok(!Number.isNaN(Date.parse(String(orphan?.payload.detected_at))));

        // Paying the confirmed invoice's amount again matches no open invoice: orphan, nothing paid twice.
        await chain.usdc.transfer(FIXED_ADDRESS, BigInt(a.amount_usdc_units));
        await chain.anvil.mine(3);
        await watcher.tick();
        assert.equal((await events()).filter((e) => e.type === 'payment.orphan').length, 2);
        assert.equal((await events()).filter((e) => e.type === 'invoice.confirmed').length, 1);
      } finally {
        await proxy.close();
      }
    }));

  test('fixed-address: a payment after expiry is an orphan and marks nothing paid', { timeout: TEST_TIMEOUT_MS }, () =>
    withChain(async (chain) => {
      const proxy = await startRpcProxy(chain.anvil.url);
      try {
        const clock = manualClock(Date.now() - 2 * 3_600_000);
        const config = chain.config({ MERCHANT_BASE_ADDRESS: FIXED_ADDRESS, BASE_RPC_URL: `${chain.anvil.url},${proxy.url}` });
        const { create, invoice, watcher, events } = evmServices(chain, config, { clock, sources: [chain.source(), chain.source(proxy.url)] });
        const old = (await create({ amount_usd: 7 })) as { invoice_id: string; amount_usdc_units: number };
        const late = await chain.usdc.transfer(FIXED_ADDRESS, BigInt(old.amount_usdc_units));
        await chain.anvil.mine(3);
        await watcher.tick();
        assert.notEqual((await invoice(old.invoice_id)).status, 'confirmed');
        const [orphan] = await events();
        assert.equal(orphan.type, 'payment.orphan');
        assert.equal(orphan.payload.tx_hash, late.txHash);
        assert.equal(orphan.payload.value, '7.000001');
      } finally {
        await proxy.close();
      }
    }));

  test('fixed-address with a single RPC source stays pending and says so', { timeout: TEST_TIMEOUT_MS }, () =>
    withChain(async (chain) => {
      const { create, invoice, watcher, events } = evmServices(chain, chain.config({ MERCHANT_BASE_ADDRESS: FIXED_ADDRESS }));
      const created = (await create({ amount_usd: 2 })) as { invoice_id: string; amount_usdc_units: number };
      await chain.usdc.transfer(FIXED_ADDRESS, BigInt(created.amount_usdc_units));
      await chain.anvil.mine(10);
      await watcher.tick();
      await watcher.tick();
      assert.equal((await invoice(created.invoice_id)).status, 'pending');
      assert.deepEqual(await events(), []);
      const status = watcher.status();
      assert.equal(status.fixed_address_confirming, false);
      assert.equal(status.awaiting_second_source, 1);
    }));

  test('fixed-address: a lagging second source delays confirmation, a down one blocks it, a third source suffices', { timeout: TEST_TIMEOUT_MS }, () =>
    withChain(async (chain) => {
      const second = await startRpcProxy(chain.anvil.url);
      const third = await startRpcProxy(chain.anvil.url);
      try {
        const config = chain.config({ MERCHANT_BASE_ADDRESS: FIXED_ADDRESS, BASE_RPC_URL: `${chain.anvil.url},${second.url}` });
        const two = evmServices(chain, config, { sources: [chain.source(), chain.source(second.url)] });
        const created = (await two.create({ amount_usd: 4.5 })) as { invoice_id: string; amount_usdc_units: number };
        await chain.usdc.transfer(FIXED_ADDRESS, BigInt(created.amount_usdc_units));
        await chain.anvil.mine(2);

        second.mode = { kind: 'lag', blocks: 5 };
        await two.watcher.tick();
        assert.equal((await two.invoice(created.invoice_id)).status, 'pending', 'second source has not seen the block yet');
        second.mode = { kind: 'down' };
        await two.watcher.tick();
        assert.equal((await two.invoice(created.invoice_id)).status, 'pending', 'second source is down');
        assert.equal(two.watcher.status().sources_up, 1);

        const three = evmServices(chain, config, { sources: [chain.source(), chain.source(second.url), chain.source(third.url)] });
        await three.watcher.tick();
        assert.equal((await three.invoice(created.invoice_id)).status, 'confirmed', 'scanner and third source agree');
      } finally {
        await second.close();
        await third.close();
      }
    }));

  test('a reorg that drops a payment rolls it back; the rescan finds the payment in its new block', { timeout: TEST_TIMEOUT_MS }, () =>
    withChain(async (chain) => {
      const { create, invoice, watcher } = evmServices(chain, chain.config({ MERCHANT_BASE_XPUB: ACCOUNT_XPUB }));
      await watcher.tick(); // steady state: the block before the payment is a stored range end
      const created = (await create({ amount_usd: 9 })) as { invoice_id: string; receive_address: string };
      await chain.usdc.transfer(created.receive_address, 9_000_000n);
      await watcher.tick();
      const seen = await chain.database.db.selectFrom('base_transfers').selectAll().execute();
      assert.equal(seen.length, 1);

      await chain.anvil.rpc('anvil_reorg', [1, []]);
      await chain.anvil.mine(3);
      const result = await watcher.tick();
      assert.equal(result?.reorgDepth, 1);
      assert.equal((await chain.database.db.selectFrom('base_transfers').selectAll().execute()).length, 0, 'the dropped transfer is forgotten');
      assert.equal((await invoice(created.invoice_id)).status, 'pending');

      const again = await chain.usdc.transfer(created.receive_address, 9_000_000n);
      await chain.anvil.mine(2);
      await watcher.tick();
      const confirmed = await invoice(created.invoice_id);
      assert.equal(confirmed.status, 'confirmed');
      assert.equal(confirmed.tx_hash, again.txHash);
    }));

  test('after an RPC outage the watcher catches up from the last processed block', { timeout: TEST_TIMEOUT_MS }, () =>
    withChain(async (chain) => {
      const proxy = await startRpcProxy(chain.anvil.url);
      try {
        const { create, invoice, watcher } = evmServices(chain, chain.config({ MERCHANT_BASE_XPUB: ACCOUNT_XPUB, BASE_RPC_URL: proxy.url }), {
          sources: [chain.source(proxy.url)],
        });
        await watcher.tick();
        const before = watcher.status().last_block_height!;
        const created = (await create({ amount_usd: 1.5 })) as { invoice_id: string; receive_address: string };
        proxy.mode = { kind: 'down' };
        const paid = await chain.usdc.transfer(created.receive_address, 1_500_000n);
        await chain.anvil.mine(20);
        await assert.rejects(watcher.tick(), new RegExp(`no ${chainFacts[evmChain].name} RPC source answers`));
        assert.equal(watcher.status().sources_up, 0);

        proxy.mode = { kind: 'pass' };
        await watcher.tick();
        assert.ok(watcher.status().last_block_height! > before + 20);
        const confirmed = await invoice(created.invoice_id);
        assert.equal(confirmed.status, 'confirmed');
        assert.equal(confirmed.tx_hash, paid.txHash);
      } finally {
        await proxy.close();
      }
    }));

  test('eth_getLogs calls per block grow with address chunks, not with invoices, and go in one batch', { timeout: TEST_TIMEOUT_MS }, () =>
    withChain(async (chain) => {
      let getLogs = 0;
      let getLogsRequests = 0;
      const counting: typeof fetch = async (input, init) => {
        const calls = String(init?.body).split('"eth_getLogs"').length - 1;
        getLogs += calls;
        if (calls > 0) getLogsRequests++;
        return fetch(input, init);
      };
      const { createRpcSource } = await import('../../../core/evm/rpc.ts');
      const source = createRpcSource(chain.anvil.url, { fetch: counting, sleep: async () => {} });
      const { create, watcher } = evmServices(chain, chain.config({ MERCHANT_BASE_XPUB: ACCOUNT_XPUB }), { sources: [source], recipientsPerCall: 2 });
      await watcher.tick();
      for (let i = 0; i < 5; i++) await create({ amount_usd: 1 });
      await chain.anvil.mine(1);
      getLogs = 0;
      getLogsRequests = 0;
      await watcher.tick();
      assert.equal(getLogs, 3, '5 addresses in chunks of 2');
      assert.equal(getLogsRequests, 1, 'anvil takes batches: the three calls share one request');
    }));
});
