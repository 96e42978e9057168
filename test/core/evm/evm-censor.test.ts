import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { evmHealth } from '../../../core/evm/evm-health.ts';
import { createServiceMetrics } from '../../../core/metrics.ts';
import { startAnvil } from '../../../sandbox/anvil.ts';
import { ACCOUNT_XPUB, evmServices, evmSpecOf, evmTestChains, FIXED_ADDRESS, startEvmTestChain, type EvmTestChain } from '../../helpers/evm-chain.ts';
import { startRpcProxy, type RpcProxy } from '../../helpers/rpc-proxy.ts';
import { testDatabases } from '../../helpers/databases.ts';
import { unitsToDecimal } from '../../../core/invoices/token-amount.ts';
import { Health, type EvmChainName } from '../../../shared/index.ts';
import { defaultChains } from '../../../core/chains/default-chains.ts';
import { startLocalEvm } from '../../../sandbox/local-evm.ts';
import { HDNodeWallet, Wallet } from 'ethers';
import { randomBytes } from 'node:crypto';
import { ACCOUNT_PATH } from '../../../core/evm/keys.ts';
import { postJson, startTestListener } from '../../helpers/listener.ts';
import { getJson, signupMerchant, startTestCloud } from '../../helpers/cloud.ts';
import { waitForWatcher } from '../../helpers/wait-for-watcher.ts';

/**
 * One source that hides a payment (its Transfer logs and receipts), lies about `finalized`, stays
 * silent or serves another chain, beside honest ones in front of the same real anvil node: the
 * honest sources' agreement counts whichever source is listed first, and the culprit is named.
 */
const sqlite = testDatabases[0];
const TEST_TIMEOUT_MS = 90_000;
const labelOf = (url: string) => url.replace(/\/$/, '');

interface Setup {
  chain: EvmTestChain;
  /** The misbehaving source, and two honest proxies in front of the same node. */
  odd: RpcProxy;
  honest: RpcProxy[];
}

async function withSources(evmChain: EvmChainName, fn: (setup: Setup) => Promise<void>) {
  const chain = await startEvmTestChain(sqlite, evmChain, { mainnetId: true });
  const proxies = await Promise.all([0, 1, 2].map(() => startRpcProxy(chain.anvil.url)));
  try {
    await fn({ chain, odd: proxies[0]!, honest: proxies.slice(1) });
  } finally {
    await Promise.all(proxies.map((p) => p.close()));
    await chain.close();
  }
}

/** The listener's services over `urls` in that order, two sources needed. */
function services(chain: EvmTestChain, urls: string[], env: Record<string, string>) {
  const metrics = createServiceMetrics();
  const config = chain.config({ ...env, BASE_RPC_URL: urls.join(','), BASE_MIN_SOURCES: '2' });
  return { metrics, ...evmServices(chain, config, { sources: urls.map((url) => chain.source(url)), metrics }) };
}

const disagreementsOf = async (metrics: ReturnType<typeof createServiceMetrics>, chain: string, url: string) =>
  (await metrics.sourceDisagreements.get()).values.find((v) => v.labels.chain === chain && v.labels.source === labelOf(url))?.value ?? 0;

const MODES = {
  xpub: { env: { MERCHANT_BASE_XPUB: ACCOUNT_XPUB }, payTo: (created: { receive_address: string }) => created.receive_address },
  'fixed-address': { env: { MERCHANT_BASE_ADDRESS: FIXED_ADDRESS }, payTo: () => FIXED_ADDRESS },
} as const;

for (const evmChain of evmTestChains) {
  describe(`a censoring source on ${evmChain} (chain id ${evmSpecOf(evmChain).mainnetChainId})`, () => {
    for (const [mode, { env, payTo }] of Object.entries(MODES)) {
      test(`${mode}: a censor listed first beside two honest sources; the real payment confirms on sources:2 and the censor is named and counted`, { timeout: TEST_TIMEOUT_MS }, () =>
        withSources(evmChain, async ({ chain, odd: censor, honest }) => {
          const { create, invoice, watcher, events, metrics } = services(chain, [censor.url, ...honest.map((h) => h.url)], env);
          await watcher.tick();
          const created = (await create({ amount_usd: 7 })) as { invoice_id: string; receive_address: string; amount_usdc_units: number };
          const to = payTo(created);
          censor.mode = { kind: 'censor', recipients: [to] };
          const paid = await chain.usdc.transfer(to, BigInt(created.amount_usdc_units));
          await chain.anvil.mine(3);
          await watcher.tick();
          const confirmed = await invoice(created.invoice_id);
          assert.equal(confirmed.status, 'confirmed', 'two honest sources agreeing are enough, whoever is listed first');
          assert.equal(confirmed.tx_hash, paid.txHash);
          assert.equal((confirmed as { verification: string | null }).verification, 'sources:2');
          const confirmedEvents = (await events()).filter((e) => e.type === 'invoice.confirmed');
          assert.equal(confirmedEvents.length, 1);
          assert.equal(confirmedEvents[0]!.payload.amount, unitsToDecimal(BigInt(created.amount_usdc_units)));
          const status = watcher.status();
          assert.deepEqual([...new Set(status.disagreeing_sources.map((d) => d.source))], [labelOf(censor.url)], 'the censor, and only the censor, is named');
          assert.match(status.disagreeing_sources[0]!.reason, new RegExp(`does not report transfer ${paid.txHash}`));
          assert.equal(watcher.problem()?.kind, 'disagreeing');
          assert.ok((await disagreementsOf(metrics, evmChain, censor.url)) >= 1, 'counted in /metrics');
          for (const h of honest) assert.equal(await disagreementsOf(metrics, evmChain, h.url), 0);
        }));
    }
  });
}

describe('a source that misbehaves beside two honest ones (Base)', () => {
  test('a censor listed second: the real payment confirms and the censor is named', { timeout: TEST_TIMEOUT_MS }, () =>
    withSources('base', async ({ chain, odd: censor, honest }) => {
      const { create, invoice, watcher } = services(chain, [honest[0]!.url, censor.url, honest[1]!.url], MODES.xpub.env);
      const created = (await create({ amount_usd: 3 })) as { invoice_id: string; receive_address: string };
      censor.mode = { kind: 'censor', recipients: [created.receive_address] };
      await chain.usdc.transfer(created.receive_address, 3_000_000n);
      await chain.anvil.mine(3);
      await watcher.tick();
      assert.equal((await invoice(created.invoice_id)).status, 'confirmed');
      assert.deepEqual([...new Set(watcher.status().disagreeing_sources.map((d) => d.source))], [labelOf(censor.url)]);
    }));

  test('a silent source listed first: the two honest ones confirm the payment; nobody is named', { timeout: TEST_TIMEOUT_MS }, () =>
    withSources('base', async ({ chain, odd: silent, honest }) => {
      const { create, invoice, watcher } = services(chain, [silent.url, ...honest.map((h) => h.url)], MODES['fixed-address'].env);
      silent.mode = { kind: 'down' };
      const created = (await create({ amount_usd: 5 })) as { invoice_id: string; amount_usdc_units: number };
      await chain.usdc.transfer(FIXED_ADDRESS, BigInt(created.amount_usdc_units));
      await chain.anvil.mine(3);
      await watcher.tick();
      assert.equal((await invoice(created.invoice_id)).status, 'confirmed');
      assert.equal(watcher.status().sources_up, 2);
      assert.deepEqual(watcher.status().disagreeing_sources, []);
    }));

  test('a censor beside one honest source and one silent: nothing is recorded, the range waits, and the payment confirms once the silent one answers', { timeout: TEST_TIMEOUT_MS }, () =>
    withSources('base', async ({ chain, odd: censor, honest }) => {
      const { create, invoice, watcher } = services(chain, [censor.url, ...honest.map((h) => h.url)], MODES.xpub.env);
      await watcher.tick();
      const created = (await create({ amount_usd: 4 })) as { invoice_id: string; receive_address: string };
      censor.mode = { kind: 'censor', recipients: [created.receive_address] };
      honest[1]!.mode = { kind: 'down' };
      const paid = await chain.usdc.transfer(created.receive_address, 4_000_000n);
      await chain.anvil.mine(3);
      const result = await watcher.tick();
      assert.equal(result?.held, true, 'one report against one denial, with a source unheard: undecided');
      assert.ok(watcher.status().last_block_height! < paid.blockNumber, 'the range ends below the disputed block, so nothing is skipped');
      assert.equal(await chain.database.db.selectFrom('base_transfers').select('tx_hash').execute().then((rows) => rows.length), 0, 'one source alone records nothing');
      honest[1]!.mode = { kind: 'pass' };
      await watcher.tick();
      assert.equal((await invoice(created.invoice_id)).status, 'confirmed');
    }));

  test('a source on another chain id is refused, naming the setting; the others still confirm', { timeout: TEST_TIMEOUT_MS }, () =>
    withSources('base', async ({ chain, honest }) => {
      const other = await startAnvil({ chainId: 1 });
      try {
        const { create, invoice, watcher } = services(chain, [other.url, ...honest.map((h) => h.url)], MODES.xpub.env);
        await watcher.tick();
        const status = watcher.status();
        assert.deepEqual(status.refused_sources.map((r) => r.source), [labelOf(other.url)]);
        const reason = status.refused_sources[0]!.reason;
        assert.match(reason, /^BASE_RPC_URL lists http:\/\/127\.0\.0\.1:\d+, which answers eth_chainId 1, not 8453 \(BASE_CHAIN_ID, Base\)/);
        assert.equal(evmHealth(status, 'base').warning, reason, '/health says it');
        const problem = watcher.problem();
        assert.equal(problem?.kind, 'invalid-source');
        assert.equal(problem?.reason, reason);
        assert.equal(status.sources_up, 2);
        const created = (await create({ amount_usd: 2 })) as { invoice_id: string; receive_address: string };
        await chain.usdc.transfer(created.receive_address, 2_000_000n);
        await chain.anvil.mine(3);
        await watcher.tick();
        assert.equal((await invoice(created.invoice_id)).status, 'confirmed');
      } finally {
        await other.stop();
      }
    }));
});

describe('a source that lies about finalized (Ethereum, settled by the tag)', () => {
  for (const claims of ['head', 'genesis'] as const) {
    test(`claiming the ${claims === 'head' ? 'head (too high)' : 'genesis block (too low)'} neither finalizes early nor stalls finality`, { timeout: TEST_TIMEOUT_MS }, () =>
      withSources('eth', async ({ chain, odd: liar, honest }) => {
        const { create, invoice, watcher } = services(chain, [liar.url, ...honest.map((h) => h.url)], { ...MODES.xpub.env, BASE_FINALITY: 'tag' });
        liar.mode = { kind: 'finalized', claims };
        const created = (await create({ amount_usd: 6 })) as { invoice_id: string; receive_address: string };
        const paid = await chain.usdc.transfer(created.receive_address, 6_000_000n);
        await chain.anvil.mine(3);
        await watcher.tick();
        // anvil calls final the block 64 below its head.
        const head = Number(await chain.source().call<string>('eth_blockNumber', []));
        assert.equal(watcher.status().finalized_block_height, Math.max(0, head - 64), 'the honest sources agree on the finalized block');
        assert.equal((await invoice(created.invoice_id)).status, 'pending', 'not final yet, whatever the liar claims');
        await chain.anvil.mine(paid.blockNumber + 64 - head);
        await watcher.tick();
        assert.equal(watcher.status().finalized_block_height, paid.blockNumber);
        assert.equal((await invoice(created.invoice_id)).status, 'confirmed', 'final once the honest sources say so');
      }));
  }
});

describe('end to end: a censor listed first, a source on another chain', () => {
  const readHealth = async (url: string) => Health.parse(await (await fetch(url)).json());

  for (const [mode, { env, payTo }] of Object.entries(MODES)) test(`the listener (${mode}): the real payment confirms on sources:2, /health names the censor`, { timeout: 120_000 }, () =>
    withSources('base', async ({ chain, odd: censor, honest }) => {
      const listener = await startTestListener({
        env: {
          MERCHANT_BTC_XPUB: '',
          ...env,
          BASE_RPC_URL: [censor.url, ...honest.map((h) => h.url)].join(','),
          BASE_TOKENS: `usdc:${chain.usdc.address}`,
          BASE_CHAIN_ID: String(chain.anvil.chainId),
          BASE_CONFIRMATIONS: '2',
          BASE_FINALITY: 'count',
        },
      });
      try {
        const created = await postJson(`${listener.url}/invoice`, { chain: 'base', amount_usd: 9 });
        assert.equal(created.status, 201, created.text);
        censor.mode = { kind: 'censor', recipients: [payTo(created.json)] };
        const paid = await chain.usdc.transfer(payTo(created.json), BigInt(created.json.amount_usdc_units));
        await chain.anvil.mine(3);
        const read = async () => (await fetch(`${listener.url}/invoice/${created.json.invoice_id}`)).json() as Promise<{ status: string; verification: string | null; tx_hash: string | null }>;
        const health = () => readHealth(`${listener.url}/health`);
        const confirmed = await waitForWatcher('the censored payment confirmed', read, (i) => i.status === 'confirmed', { watcher: health });
        assert.equal(confirmed.verification, 'sources:2');
        assert.equal(confirmed.tx_hash, paid.txHash);
        const named = await waitForWatcher('the censor named in /health', health, (h) => (h.base?.disagreeing_sources ?? []).length > 0, { watcher: health });
        assert.deepEqual([...new Set(named.base!.disagreeing_sources!.map((d) => d.source))], [labelOf(censor.url)]);
        assert.equal(named.ok, false);
        assert.ok(named.problems!.some((p) => p.kind === 'disagreeing' && p.reason.includes(labelOf(censor.url))));
        const metrics = await (await fetch(`${listener.url}/metrics`)).text();
        assert.match(metrics, new RegExp(`source="${labelOf(censor.url).replace(/[.:/]/g, '\\$&')}"[^\\n]*\\} [1-9]`), 'counted in /metrics');
      } finally {
        await listener.stop();
      }
    }));

  test('the listener refuses a source on another chain id at start, naming BASE_RPC_URL in /health', { timeout: 120_000 }, () =>
    withSources('base', async ({ chain, honest }) => {
      const other = await startAnvil({ chainId: 1 });
      const listener = await startTestListener({
        env: {
          MERCHANT_BTC_XPUB: '',
          MERCHANT_BASE_XPUB: ACCOUNT_XPUB,
          BASE_RPC_URL: [other.url, ...honest.map((h) => h.url)].join(','),
          BASE_TOKENS: `usdc:${chain.usdc.address}`,
          BASE_CHAIN_ID: String(chain.anvil.chainId),
          BASE_FINALITY: 'count',
        },
      });
      try {
        const health = () => readHealth(`${listener.url}/health`);
        const refused = await waitForWatcher('the other chain refused', health, (h) => (h.problems ?? []).some((p) => p.kind === 'invalid-source') && h.base?.rpc_sources_up === 2, { watcher: health });
        assert.equal(refused.ok, false);
        const problem = refused.problems!.find((p) => p.kind === 'invalid-source')!;
        assert.equal(problem.component, 'base');
        assert.match(problem.reason, new RegExp(`^BASE_RPC_URL lists ${labelOf(other.url).replace(/[.:/]/g, '\\$&')}, which answers eth_chainId 1, not ${chain.anvil.chainId} \\(BASE_CHAIN_ID`));
        assert.equal(refused.base!.warning, problem.reason);
        assert.equal(refused.base!.rpc_sources_up, 2);
      } finally {
        await listener.stop();
        await other.stop();
      }
    }));

  for (const mode of Object.keys(MODES)) test(`Cloud's all-merchant watcher (${mode}): the real payment confirms on sources:2, /api/v1/health names the censor`, { timeout: 120_000 }, async () => {
    const evm = await startLocalEvm({ chains: defaultChains, chain: 'base' });
    const proxies = await Promise.all([0, 1, 2].map(() => startRpcProxy(evm.anvil.url)));
    const [censor, ...honest] = proxies as [RpcProxy, RpcProxy, RpcProxy];
    const { MERCHANT_EVM_XPUB: _xpub, MERCHANT_EVM_ADDRESS: _address, BASE_MIN_SOURCES: _trusted, ...platform } = evm.env;
    const cloud = await startTestCloud({
      env: { ...platform, BASE_RPC_URL: proxies.map((p) => p.url).join(','), CLOUD_WATCH: 'true', CLOUD_SIGNUP_RATE_LIMIT: 'off', CLOUD_INVOICE_RATE_LIMIT: 'off' },
      deps: { chainWatch: { tuning: { evm: { pollIntervalMs: 50 } }, refreshMs: 50 } },
    });
    try {
      const fixed = Wallet.createRandom().address;
      const xpub = HDNodeWallet.fromSeed(randomBytes(32)).derivePath(ACCOUNT_PATH).neuter().extendedKey;
      const merchant = await signupMerchant(cloud.url, { receive_methods: [mode === 'xpub' ? { chain: 'base', xpub } : { chain: 'base', address: fixed }] });
      const key = { 'X-Service-Api-Key': merchant.api_key };
      const created = await postJson(`${cloud.url}/api/v1/invoice`, { chain: 'base', amount_usd: 2 }, key);
      assert.equal(created.status, 201, created.text);
      const address: string = mode === 'xpub' ? created.json.receive_address : fixed;
      censor.mode = { kind: 'censor', recipients: [address] };
      const paid = await evm.tokens.usdc.transfer(address, BigInt(created.json.amount_usdc_units), 0);
      await evm.anvil.mine(3);
      const watchers = () => cloud.watcherStates();
      const invoice = async () => (await getJson(`${cloud.url}/api/v1/invoice/${created.json.invoice_id}`, key)).json as { status: string; verification: string | null; tx_hash: string | null };
      const confirmed = await waitForWatcher('the censored fixed-address payment confirmed', invoice, (i) => i.status === 'confirmed', { watcher: watchers });
      assert.equal(confirmed.verification, 'sources:2');
      assert.equal(confirmed.tx_hash, paid.txHash);
      const health = await waitForWatcher(
        'the censor named in /api/v1/health',
        async () => (await getJson(`${cloud.url}/api/v1/health`)).json as { ok: boolean; problems?: Array<{ component: string; kind: string; reason: string }> },
        (h) => (h.problems ?? []).some((p) => p.kind === 'disagreeing'),
        { watcher: watchers },
      );
      assert.equal(health.ok, false);
      const problem = health.problems!.find((p) => p.kind === 'disagreeing')!;
      assert.ok(problem.reason.includes(`disagree: ${labelOf(censor.url)}`), problem.reason);
      for (const h of honest) assert.ok(!problem.reason.includes(`disagree: ${labelOf(h.url)}`));
    } finally {
      await cloud.stop();
      await Promise.all(proxies.map((p) => p.close()));
      await evm.close();
    }
  });
});
