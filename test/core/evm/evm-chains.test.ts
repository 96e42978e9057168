import { test } from 'node:test';
import assert from 'node:assert/strict';
import { evmReceiver } from '../../../core/evm/evm-adapter.ts';
import { parseEvmConfig } from '../../../core/evm/evm-config.ts';
import { createRpcSource } from '../../../core/evm/rpc.ts';
import { createEvmWatcher } from '../../../core/evm/watcher.ts';
import { merchantEvmScope } from '../../../core/evm/evm-transfer.repository.ts';
import { systemClock } from '../../../core/clock.ts';
import { createInvoiceService } from '../../../core/invoices/invoice.service.ts';
import { createMemoryStatusFeed } from '../../../core/invoices/status-feed.ts';
import { silentLogger } from '../../../core/log.ts';
import { startAnvil } from '../../../sandbox/anvil.ts';
import { wantsSandbox } from '../../../sandbox/sandbox.ts';
import { deployTestToken } from '../../../sandbox/test-token.ts';
import { parse } from 'eth-url-parser';
import { chainFacts, evmChainNames, Health } from '../../../shared/index.ts';
import { chainIn } from '../../../core/chain-definition.ts';
import { defaultChains } from '../../../core/chains/default-chains.ts';
import { ACCOUNT_XPUB, evmSpecOf, FIXED_ADDRESS, MERCHANT, settingsFor, startEvmTestChain } from '../../helpers/evm-chain.ts';
import { postJson, startTestListener } from '../../helpers/listener.ts';

/**
 * One merchant key (MERCHANT_EVM_XPUB) on two EVM chains at once, each on its own anvil node: a
 * derived address is handed to one invoice on one chain, and each chain's watcher reads only its
 * own chain's transfers, even where both chains have a token at the same contract address.
 */
test('two EVM chains under one key: addresses are never shared, and a payment on one chain pays nothing on the other', { timeout: 120_000 }, async () => {
  const base = await startEvmTestChain();
  const ethNode = await startAnvil({ chainId: evmSpecOf('eth').mainnetChainId });
  try {
    const ethUsdc = await deployTestToken(ethNode, 'USDC', { fundAccounts: 1 });
    // Same deployer, same nonce: the test tokens sit at one address on both nodes.
    assert.equal(ethUsdc.address, base.usdc.address);
    const baseConfig = base.config({ MERCHANT_BASE_XPUB: ACCOUNT_XPUB });
    const problems: string[] = [];
    const ethConfig = parseEvmConfig(
      evmSpecOf('eth'),
      { MERCHANT_EVM_XPUB: ACCOUNT_XPUB, ETH_RPC_URL: ethNode.url, ETH_MIN_SOURCES: '1', ETH_CHAIN_ID: '1', ETH_TOKENS: `usdc:${ethUsdc.address}`, ETH_CONFIRMATIONS: '2', ETH_FINALITY: 'count' },
      problems,
    );
    assert.deepEqual(problems, []);
    assert.equal(ethConfig!.xpub!.keyId, baseConfig.xpub!.keyId, 'one key on both chains');

    const db = base.database.db;
    const feed = createMemoryStatusFeed();
    const invoices = createInvoiceService({
      db,
      feed,
      clock: systemClock,
      logger: silentLogger,
      chains: defaultChains.filter((chain) => chain.facts.family === 'evm').map((chain) => chain.adapter),
      merchantId: MERCHANT,
      receivers: { base: evmReceiver({ base: baseConfig }), eth: evmReceiver({ base: ethConfig! }) },
    });
    const source = (url: string) => createRpcSource(url, { fetch, sleep: (ms) => new Promise((r) => setTimeout(r, ms)), attempts: 2, backoffMs: 10 });
    const watcher = (config: typeof baseConfig, url: string) =>
      createEvmWatcher({ db, feed, clock: systemClock, logger: silentLogger, scope: merchantEvmScope(MERCHANT, config.chain), base: config, sources: [source(url)] });
    const baseWatcher = watcher(baseConfig, base.anvil.url);
    const ethWatcher = watcher(ethConfig!, ethNode.url);

    type Created = { invoice_id: string; chain: string; receive_address: string; child_index: number; qr_uri: string };
    const onBase = (await invoices.create({ chain: 'base', amount_usd: 2 })) as Created;
    const onEth = (await invoices.create({ chain: 'eth', amount_usd: 2 })) as Created;
    const onBaseAgain = (await invoices.create({ chain: 'base', amount_usd: 2 })) as Created;
    assert.deepEqual([onBase, onEth, onBaseAgain].map((i) => [i.chain, i.child_index]), [['base', 0], ['eth', 1], ['base', 2]], 'one counter for the key across EVM chains');
    assert.equal(new Set([onBase, onEth, onBaseAgain].map((i) => i.receive_address)).size, 3);
    assert.match(onEth.qr_uri, /@1\/transfer\?/, 'the Ethereum invoice asks for a payment on chain id 1');
    const claims = await db.selectFrom('base_address_claims').selectAll().orderBy('address').execute();
    assert.deepEqual(claims.map((c) => [c.address, c.kind]).sort(), [onBase, onEth, onBaseAgain].map((i) => [i.receive_address, 'derived']).sort());

    // The Ethereum invoice's address paid, but on Base: nothing on Ethereum moves.
    await base.usdc.transfer(onEth.receive_address, 2_000_000n);
    await base.anvil.mine(3);
    await baseWatcher.tick();
    await ethWatcher.tick();
    assert.equal((await invoices.get(onEth.invoice_id)).status, 'pending', 'a Base transfer never pays an Ethereum invoice');
    assert.deepEqual(await db.selectFrom('base_transfers').selectAll().execute(), [], 'Base\'s watcher watches Base\'s invoices\' addresses only');

    // Paid on Ethereum: confirmed there after its confirmations, by the Ethereum watcher only.
    const paid = await ethUsdc.transfer(onEth.receive_address, 2_000_000n);
    await ethWatcher.tick();
    assert.equal((await invoices.get(onEth.invoice_id)).status, 'pending', 'one confirmation of two');
    await ethNode.mine(1);
    await ethWatcher.tick();
    const confirmed = await invoices.get(onEth.invoice_id);
    assert.equal(confirmed.status, 'confirmed');
    assert.equal(confirmed.tx_hash, paid.txHash);
    assert.equal(confirmed.chain, 'eth');
    const event = await db.selectFrom('events').select('payload').where('merchant_id', '=', MERCHANT).executeTakeFirstOrThrow();
    assert.equal(JSON.parse(event.payload).chain, 'eth', 'the webhook names the chain it was paid on');
    assert.deepEqual(await db.selectFrom('base_transfers').select(['chain', 'to_address']).execute(), [{ chain: 'eth', to_address: onEth.receive_address }]);
    assert.equal((await invoices.get(onBase.invoice_id)).status, 'pending');
  } finally {
    await ethNode.stop();
    await base.close();
  }
});

test('the listener with MERCHANT_EVM_XPUB and an RPC URL per chain serves each chain: assets, health per chain, invoices on its chain id', { timeout: 120_000 }, async () => {
  const nodes = await Promise.all(evmChainNames.map((chain) => startAnvil({ chainId: evmSpecOf(chain).mainnetChainId })));
  try {
    const tokens = await Promise.all(nodes.map((node) => deployTestToken(node, 'USDC')));
    const env: Record<string, string> = { MERCHANT_EVM_XPUB: ACCOUNT_XPUB, MERCHANT_EVM_ADDRESS: FIXED_ADDRESS };
    evmChainNames.forEach((chain, i) => {
      Object.assign(env, settingsFor(chain, { BASE_RPC_URL: nodes[i]!.url, BASE_MIN_SOURCES: '1', BASE_TOKENS: `usdc:${tokens[i]!.address}`, BASE_CONFIRMATIONS: '2', BASE_FINALITY: 'count' }));
    });
    const listener = await startTestListener({ env });
    try {
      const health = Health.parse(await (await fetch(`${listener.url}/health`)).json());
      assert.deepEqual(health.enabled_assets, ['btc', ...evmChainNames.map((chain) => `usdc-${chain}`)]);
      assert.deepEqual(Object.keys(health.evm_chains ?? {}), [...evmChainNames], 'a watcher per EVM chain');
      for (const chain of evmChainNames) {
        assert.equal(health.evm_chains![chain]!.rpc_sources, 1);
        assert.match(health.evm_chains![chain]!.warning ?? '', new RegExp(`second independent ${evmSpecOf(chain).envPrefix}_RPC_URL`), 'one source: fixed-address invoices wait');
      }
      for (const [index, chain] of evmChainNames.entries()) {
        const created = await postJson(`${listener.url}/invoice`, { chain, amount_usd: 1.5 });
        assert.equal(created.status, 201, created.text);
        assert.equal(created.json.chain, chain);
        assert.equal(created.json.child_index, index, 'one counter for the key across EVM chains');
        assert.equal(parse(created.json.qr_uri).chain_id, String(evmSpecOf(chain).mainnetChainId));
        const stored = await (await fetch(`${listener.url}/invoice/${created.json.invoice_id}`)).json();
        assert.equal(stored.chain, chain);
      }
    } finally {
      await listener.stop();
    }
  } finally {
    await Promise.all(nodes.map((node) => node.stop()));
  }
});

test('each EVM chain tells the payer how long its own confirmations take', () => {
  const words = Object.fromEntries(evmChainNames.map((chain) => [chain, chainIn(defaultChains, chain).confirmingTakes(chainFacts[chain].name)]));
  assert.deepEqual(words, {
    base: 'the Base network is confirming it, which takes about a minute',
    eth: 'the Ethereum network is confirming it, which takes about 13 minutes',
    polygon: 'the Polygon network is confirming it, which takes about a minute',
    arbitrum: 'the Arbitrum One network is confirming it, which takes about half a minute',
  });
  assert.deepEqual(
    evmChainNames.map((chain) => evmSpecOf(chain).defaultConfirmations),
    [12, 64, 32, 100],
    'the defaults docs/chains.md justifies',
  );
});

test('the sandbox runs unless a merchant key of some chain (or a BASE_ setting) is set; an RPC URL of another chain alone does not stop it', () => {
  assert.equal(wantsSandbox({}, defaultChains), true);
  assert.equal(wantsSandbox({ ETH_RPC_URL: 'http://127.0.0.1:8545' }, defaultChains), true, "Foundry's ETH_RPC_URL in the shell");
  for (const name of ['MERCHANT_BTC_XPUB', 'MERCHANT_EVM_XPUB', 'MERCHANT_EVM_ADDRESS', 'MERCHANT_ETH_XPUB', 'MERCHANT_POLYGON_ADDRESS', 'BASE_RPC_URL']) {
    assert.equal(wantsSandbox({ [name]: 'set' }, defaultChains), false, name);
    assert.equal(wantsSandbox({ [name]: '  ' }, defaultChains), true, `${name} blank`);
  }
  assert.equal(wantsSandbox({ NODE_ENV: 'production' }, defaultChains), false);
});
