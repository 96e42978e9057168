import { defaultChains } from '../../../core/chains/default-chains.ts';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { evmHealth } from '../../../core/evm/evm-health.ts';
import { parseEvmConfig } from '../../../core/evm/evm-config.ts';
import { createServiceMetrics } from '../../../core/metrics.ts';
import { ACCOUNT_XPUB, evmSpecOf, FIXED_ADDRESS, evmServices, evmTestChains, settingsFor, startEvmTestChain, type EvmTestChain } from '../../helpers/evm-chain.ts';
import { FAKE_TX_HASH, startRpcProxy, type RpcProxy } from '../../helpers/rpc-proxy.ts';
import { testDatabases } from '../../helpers/databases.ts';
import { postJson, startTestListener, tempSqliteUrl } from '../../helpers/listener.ts';
import { runCli } from '../../helpers/process.ts';
import { waitForWatcher } from '../../helpers/wait-for-watcher.ts';
import { tmpdir } from 'node:os';
import { Health } from '../../../shared/index.ts';
import { randomBytes } from 'node:crypto';
import { HDNodeWallet } from 'ethers';
import { ACCOUNT_PATH } from '../../../core/evm/keys.ts';
import { startLocalEvm } from '../../../sandbox/local-evm.ts';
import { getJson, signupMerchant, startTestCloud } from '../../helpers/cloud.ts';

/**
 * Lying JSON-RPC sources in front of a real anvil node, beside an honest one: nothing one source
 * alone reports confirms a payment, the liar is named as disagreeing, and honest pairs still
 * confirm real payments, saying how (`sources:2`).
 */
const sqlite = testDatabases[0];

for (const evmChain of evmTestChains) describe(`EVM source agreement on ${evmChain}`, () => {
  const TEST_TIMEOUT_MS = 90_000;
  const prefix = evmSpecOf(evmChain).envPrefix;

  async function withLiar(fn: (chain: EvmTestChain, liar: RpcProxy) => Promise<void>) {
    const chain = await startEvmTestChain(sqlite, evmChain);
    const liar = await startRpcProxy(chain.anvil.url);
    try {
      await fn(chain, liar);
    } finally {
      await liar.close();
      await chain.close();
    }
  }

  /** The listener's services over two sources, in the given order, with the default rule (two must agree). */
  function twoSources(chain: EvmTestChain, urls: string[], env: Record<string, string> = { MERCHANT_BASE_XPUB: ACCOUNT_XPUB }) {
    const metrics = createServiceMetrics();
    const config = chain.config({ ...env, BASE_RPC_URL: urls.join(','), BASE_MIN_SOURCES: '2' });
    assert.equal(config.minSources, 2);
    return { metrics, ...evmServices(chain, config, { sources: urls.map((url) => chain.source(url)), metrics }) };
  }

  const disagreementsOf = async (metrics: ReturnType<typeof createServiceMetrics>, url: string) =>
    (await metrics.sourceDisagreements.get()).values.find((v) => v.labels.chain === evmChain && v.labels.source === labelOf(url))?.value ?? 0;

  for (const order of ['first', 'second'] as const) {
    test(`a made-up Transfer from a lying source listed ${order} never confirms; the liar is named; a real payment still confirms on sources:2`, { timeout: TEST_TIMEOUT_MS }, () =>
      withLiar(async (chain, liar) => {
        const urls = order === 'first' ? [liar.url, chain.anvil.url] : [chain.anvil.url, liar.url];
        const { create, invoice, watcher, events, metrics } = twoSources(chain, urls);
        const faked = (await create({ amount_usd: 25 })) as { invoice_id: string; receive_address: string };
        const head = await chain.anvil.provider.getBlockNumber();
        liar.mode = { kind: 'fake-transfer', token: chain.usdc.address, to: faked.receive_address, value: 25_000_000n, blockNumber: head };
        await watcher.tick();
        await chain.anvil.mine(5);
        await watcher.tick();
        await watcher.tick();
        assert.equal((await invoice(faked.invoice_id)).status === 'confirmed', false, 'the made-up transfer confirms nothing');
        assert.deepEqual(await events(), []);
        const status = watcher.status();
        assert.deepEqual(
          status.disagreeing_sources.map((d) => d.source),
          [labelOf(liar.url)],
          'the liar, and only the liar, is named',
        );
        assert.match(status.disagreeing_sources[0]!.reason, new RegExp(FAKE_TX_HASH));
        assert.match(evmHealth(status, evmChain).warning ?? '', /disagree/);
        const problem = watcher.problem();
        assert.equal(problem?.kind, 'disagreeing', '/health turns ok false and lists the problem');
        assert.match(problem!.reason, new RegExp(`disagree: ${labelOf(liar.url).replace(/[.:/]/g, '\\$&')}`));
        assert.ok((await disagreementsOf(metrics, liar.url)) >= 1, 'counted in /metrics');
        assert.equal(await disagreementsOf(metrics, chain.anvil.url), 0);

        // The lying source passes real answers through: a real payment is reported by both.
        const real = (await create({ amount_usd: 3 })) as { invoice_id: string; receive_address: string };
        const paid = await chain.usdc.transfer(real.receive_address, 3_000_000n);
        await chain.anvil.mine(2);
        await watcher.tick();
        const confirmed = await invoice(real.invoice_id);
        assert.equal(confirmed.status, 'confirmed');
        assert.equal(confirmed.tx_hash, paid.txHash);
        assert.equal((confirmed as { verification: string | null }).verification, 'sources:2');
        const [event] = await events();
        assert.equal(event?.payload.verification, 'sources:2');
        assert.notEqual((await invoice(faked.invoice_id)).status, 'confirmed');
      }));
  }

  test('a source whose receipts carry another block hash blocks confirmation and is named', { timeout: TEST_TIMEOUT_MS }, () =>
    withLiar(async (chain, liar) => {
      const { create, invoice, watcher } = twoSources(chain, [chain.anvil.url, liar.url]);
      liar.mode = { kind: 'other-block-receipts' };
      const created = (await create({ amount_usd: 4 })) as { invoice_id: string; receive_address: string };
      await chain.usdc.transfer(created.receive_address, 4_000_000n);
      await chain.anvil.mine(4);
      await watcher.tick();
      await watcher.tick();
      assert.notEqual((await invoice(created.invoice_id)).status, 'confirmed');
      const named = watcher.status().disagreeing_sources;
      assert.ok(named.some((d) => d.source === labelOf(liar.url) && /reports block 0x[0-9a-f]+deadbeef/.test(d.reason)), JSON.stringify(named));
      assert.equal(watcher.status().awaiting_second_source, 1);
    }));

  test('a source listed first that rewrites a block gets nothing in it recorded or confirmed and is named', { timeout: TEST_TIMEOUT_MS }, () =>
    withLiar(async (chain, liar) => {
      const { create, invoice, watcher } = twoSources(chain, [liar.url, chain.anvil.url]);
      const created = (await create({ amount_usd: 6 })) as { invoice_id: string; receive_address: string };
      const paid = await chain.usdc.transfer(created.receive_address, 6_000_000n);
      liar.mode = { kind: 'rewrite-block', blockNumber: paid.blockNumber };
      await chain.anvil.mine(4);
      await watcher.tick();
      await watcher.tick();
      const recorded = await chain.database.db.selectFrom('base_transfers').select('block_hash').execute();
      assert.deepEqual(recorded, [], 'two sources on two blocks agree on neither: nothing of that block is recorded');
      assert.ok(watcher.status().last_block_height! < paid.blockNumber, 'the range holds below the block the two sources disagree on');
      assert.notEqual((await invoice(created.invoice_id)).status, 'confirmed');
      const named = watcher.status().disagreeing_sources.map((d) => d.source);
      assert.ok(named.includes(labelOf(liar.url)), JSON.stringify(named));
    }));

  test('honest pair: a fixed-address payment confirms on sources:2', { timeout: TEST_TIMEOUT_MS }, () =>
    withLiar(async (chain, second) => {
      const { create, invoice, watcher, events } = twoSources(chain, [chain.anvil.url, second.url], { MERCHANT_BASE_ADDRESS: FIXED_ADDRESS });
      const created = (await create({ amount_usd: 8 })) as { invoice_id: string; amount_usdc_units: number };
      await chain.usdc.transfer(FIXED_ADDRESS, BigInt(created.amount_usdc_units));
      await chain.anvil.mine(2);
      await watcher.tick();
      const confirmed = await invoice(created.invoice_id);
      assert.equal(confirmed.status, 'confirmed');
      assert.equal((confirmed as { verification: string | null }).verification, 'sources:2');
      assert.equal((await events())[0]?.payload.verification, 'sources:2');
      assert.deepEqual(watcher.status().disagreeing_sources, []);
    }));

  test(`${prefix}_MIN_SOURCES=1: one source confirms, says own-node, and /health warns`, { timeout: TEST_TIMEOUT_MS }, async () => {
    const chain = await startEvmTestChain(sqlite, evmChain);
    try {
      const { create, invoice, watcher, events } = evmServices(chain, chain.config({ MERCHANT_BASE_XPUB: ACCOUNT_XPUB }));
      const created = (await create({ amount_usd: 2 })) as { invoice_id: string; receive_address: string };
      assert.equal((await invoice(created.invoice_id) as { verification: string | null }).verification, null, 'null while unconfirmed');
      await chain.usdc.transfer(created.receive_address, 2_000_000n);
      await chain.anvil.mine(2);
      await watcher.tick();
      const confirmed = await invoice(created.invoice_id);
      assert.equal(confirmed.status, 'confirmed');
      assert.equal((confirmed as { verification: string | null }).verification, 'own-node');
      assert.equal((await events())[0]?.payload.verification, 'own-node');
      assert.match(evmHealth(watcher.status(), evmChain).warning ?? '', new RegExp(`${prefix}_MIN_SOURCES=1: payments are confirmed on one RPC source's word`));
    } finally {
      await chain.close();
    }
  });
});

test('a chain with a single RPC URL is refused at start, naming the fix; MIN_SOURCES=1 accepts it', () => {
  for (const chain of evmTestChains) {
    const spec = evmSpecOf(chain);
    const parse = (env: Record<string, string>) => {
      const problems: string[] = [];
      const config = parseEvmConfig(spec, settingsFor(chain, { MERCHANT_BASE_XPUB: ACCOUNT_XPUB, ...env }), problems);
      return { config, problems };
    };
    const single = parse({ BASE_RPC_URL: 'https://rpc.example' });
    assert.equal(single.config, null);
    assert.equal(single.problems.length, 1);
    assert.match(single.problems[0]!, new RegExp(`${spec.envPrefix}_RPC_URL has a single source`));
    assert.match(single.problems[0]!, /add a second independent JSON-RPC URL/);
    assert.match(single.problems[0]!, new RegExp(`set ${spec.envPrefix}_MIN_SOURCES=1 if this one source is your own node`));
    assert.equal(parse({ BASE_RPC_URL: 'https://rpc.example', BASE_MIN_SOURCES: '1' }).config?.minSources, 1);
    assert.equal(parse({ BASE_RPC_URL: 'https://a.example,https://b.example' }).config?.minSources, 2);
    assert.match(parse({ BASE_RPC_URL: 'https://a.example,https://b.example', BASE_MIN_SOURCES: '3' }).problems.join(), new RegExp(`${spec.envPrefix}_MIN_SOURCES is 3 but ${spec.envPrefix}_RPC_URL lists 2`));
    assert.match(parse({ BASE_RPC_URL: 'https://rpc.example', BASE_MIN_SOURCES: '0' }).problems.join(), new RegExp(`${spec.envPrefix}_MIN_SOURCES must be an integer >= 1`));
  }
});

test('the listener: a lying source beside an honest node turns /health ok false naming it; its made-up payment stays pending', { timeout: 120_000 }, async () => {
  const chain = await startEvmTestChain(sqlite, 'base');
  const liar = await startRpcProxy(chain.anvil.url);
  const listener = await startTestListener({
    env: {
      MERCHANT_BTC_XPUB: '',
      MERCHANT_BASE_XPUB: ACCOUNT_XPUB,
      BASE_RPC_URL: `${liar.url},${chain.anvil.url}`,
      BASE_TOKENS: `usdc:${chain.usdc.address}`,
      BASE_CHAIN_ID: String(chain.anvil.chainId),
      BASE_CONFIRMATIONS: '2',
      BASE_FINALITY: 'count',
    },
  });
  try {
    const created = await postJson(`${listener.url}/invoice`, { chain: 'base', amount_usd: 40 });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.json.verification, null);
    // The made-up transfer is in the next block: one the watcher cannot have scanned before the lie starts.
    liar.mode = { kind: 'fake-transfer', token: chain.usdc.address, to: created.json.receive_address, value: 40_000_000n, blockNumber: (await chain.anvil.provider.getBlockNumber()) + 1 };
    await chain.anvil.mine(4);
    const readHealth = async () => Health.parse(await (await fetch(`${listener.url}/health`)).json());
    const health = await waitForWatcher('the lying source named in /health', readHealth, (h) => (h.base?.disagreeing_sources ?? []).length > 0, { watcher: readHealth });
    assert.equal(health.ok, false);
    assert.deepEqual(
      health.problems?.map((p) => [p.component, p.kind]),
      [['base', 'disagreeing']],
    );
    assert.ok(health.problems![0]!.reason.includes(labelOf(liar.url)));
    assert.deepEqual(health.base!.disagreeing_sources!.map((d) => d.source), [labelOf(liar.url)]);
    assert.match(health.base!.warning ?? '', /^RPC sources disagree/);
    const stored = await (await fetch(`${listener.url}/invoice/${created.json.invoice_id}`)).json();
    assert.notEqual(stored.status, 'confirmed');
    assert.equal(stored.verification, null);
  } finally {
    await listener.stop();
    await liar.close();
    await chain.close();
  }
});

test("Cloud's all-merchant watcher: a lying source beside an honest node confirms nothing and is named in /api/v1/health; a real payment confirms on sources:2", { timeout: 120_000 }, async () => {
  const evm = await startLocalEvm({ chains: defaultChains, chain: 'base' });
  const liar = await startRpcProxy(evm.anvil.url);
  const { MERCHANT_EVM_XPUB: _xpub, MERCHANT_EVM_ADDRESS: _address, BASE_MIN_SOURCES: _trusted, ...platform } = evm.env;
  const cloud = await startTestCloud({
    env: { ...platform, BASE_RPC_URL: `${liar.url},${evm.anvil.url}`, CLOUD_WATCH: 'true', CLOUD_SIGNUP_RATE_LIMIT: 'off', CLOUD_INVOICE_RATE_LIMIT: 'off' },
    deps: { chainWatch: { tuning: { evm: { pollIntervalMs: 50 } }, refreshMs: 50 } },
  });
  try {
    const xpub = HDNodeWallet.fromSeed(randomBytes(32)).derivePath(ACCOUNT_PATH).neuter().extendedKey;
    const merchant = await signupMerchant(cloud.url, { receive_methods: [{ chain: 'base', xpub }] });
    const key = { 'X-Service-Api-Key': merchant.api_key };
    const faked = await postJson(`${cloud.url}/api/v1/invoice`, { chain: 'base', amount_usd: 30 }, key);
    const real = await postJson(`${cloud.url}/api/v1/invoice`, { chain: 'base', amount_usd: 2 }, key);
    assert.equal(faked.status, 201, faked.text);
    // The made-up log sits in the next block, which no pass can have read before the liar lies.
    liar.mode = { kind: 'fake-transfer', token: evm.tokens.usdc.address, to: faked.json.receive_address, value: 30_000_000n, blockNumber: Number(await evm.anvil.rpc<string>('eth_blockNumber')) + 1 };
    await evm.tokens.usdc.transfer(real.json.receive_address, 2_000_000n, 0);
    await evm.anvil.mine(3);
    const watchers = () => cloud.watcherStates();
    const invoice = async (id: string) => (await getJson(`${cloud.url}/api/v1/invoice/${id}`, key)).json as { status: string; verification: string | null };
    const confirmed = await waitForWatcher('the real payment confirmed', () => invoice(real.json.invoice_id), (i) => i.status === 'confirmed', { watcher: watchers });
    assert.equal(confirmed.verification, 'sources:2');
    // The chain goes on as a real one does: the watcher takes its passes from new heads (the local
    // node's WebSocket), and the liar's log is judged on a pass after it reached its depth.
    const health = await waitForWatcher(
      'the liar named in /api/v1/health',
      async () => {
        await evm.anvil.mine(1);
        return (await getJson(`${cloud.url}/api/v1/health`)).json as { ok: boolean; problems?: Array<{ component: string; kind: string; reason: string }> };
      },
      (h) => (h.problems ?? []).some((p) => p.kind === 'disagreeing'),
      { watcher: watchers },
    );
    assert.equal(health.ok, false);
    const problem = health.problems!.find((p) => p.kind === 'disagreeing')!;
    assert.equal(problem.component, 'base');
    assert.ok(problem.reason.includes(labelOf(liar.url)), problem.reason);
    assert.ok(!problem.reason.includes(`disagree: ${labelOf(evm.anvil.url)}`));
    assert.notEqual((await invoice(faked.json.invoice_id)).status, 'confirmed');
    const events = await cloud.database.db.selectFrom('events').select('payload').where('type', '=', 'invoice.confirmed').execute();
    assert.deepEqual(events.map((e) => JSON.parse(e.payload).invoice_id), [real.json.invoice_id], 'only the real payment is confirmed');
  } finally {
    await cloud.stop();
    await liar.close();
    await evm.close();
  }
});

test('service start with a single BASE_RPC_URL exits 1 naming both fixes', async () => {
  const result = await runCli(['start'], {
    env: { MERCHANT_BTC_XPUB: '', MERCHANT_BASE_XPUB: ACCOUNT_XPUB, BASE_RPC_URL: 'https://mainnet.base.org', DATABASE_URL: tempSqliteUrl() },
    cwd: tmpdir(),
  });
  assert.equal(result.code, 1);
  assert.match(result.stderr, /BASE_RPC_URL has a single source/);
  assert.match(result.stderr, /add a second independent JSON-RPC URL \(comma-separated\), or set BASE_MIN_SOURCES=1/);
});

const labelOf = (url: string) => url.replace(/\/$/, '');
