import { defaultChains } from '../../../core/chains/default-chains.ts';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'eth-url-parser';
import { startListener } from '../../../listener/app.ts';
import { manualClock } from '../../../core/clock.ts';
import { loadConfig } from '../../../listener/config.ts';
import { silentLogger } from '../../../core/log.ts';
import { BaseFixedInvoiceCreated, BaseXpubInvoiceCreated, Health } from '../../../shared/index.ts';
import { ACCOUNT_XPUB, FIXED_ADDRESS, startEvmTestChain } from '../../helpers/evm-chain.ts';
import { startRpcProxy } from '../../helpers/rpc-proxy.ts';
import { testDatabases } from '../../helpers/databases.ts';
import { waitForWatcher } from '../../helpers/wait-for-watcher.ts';
import { BIP84_ZPUB, NO_CHAIN_ESPLORA_URL, postJson, tempSqliteUrl } from '../../helpers/listener.ts';

for (const kind of testDatabases) {
  test(`POST /invoice on Base over HTTP (${kind.name}): both modes, errors, capacity, quarantine, and a payment confirmed by the running watcher`, { skip: kind.skip }, async () => {
    const chain = await startEvmTestChain(kind);
    const proxy = await startRpcProxy(chain.anvil.url);
    const clock = manualClock(Date.now());
    const config = loadConfig({
      PORT: '0',
      DATABASE_URL: chain.databaseUrl,
      SERVICE_RATE_LIMIT: 'off',
      MERCHANT_BASE_XPUB: ACCOUNT_XPUB,
      MERCHANT_BASE_ADDRESS: FIXED_ADDRESS,
      MERCHANT_EVM_TOKENS: `usdc:${chain.usdc.address},usdt:${chain.usdt.address}`,
      BASE_RPC_URL: `${chain.anvil.url},${proxy.url}`,
      BASE_CHAIN_ID: String(chain.anvil.chainId),
      BASE_CONFIRMATIONS: '2',
    }, defaultChains);
    const listener = await startListener(config, {
      clock,
      logger: silentLogger,
      tuning: { evm: { pollIntervalMs: 100, nonceDigits: 1, quarantineMs: 24 * 3_600_000 } },
    }).catch(async (error: unknown) => {
      await proxy.close();
      await chain.close();
      throw error;
    });
    const post = (body: unknown) => postJson(`${listener.url}/invoice`, body);
    try {
      const xpub = await post('{"chain":"base","amount_usd":10.000001}');
      assert.equal(xpub.status, 201, xpub.text);
      BaseXpubInvoiceCreated.parse(xpub.json);
      assert.equal(xpub.json.amount_usdc, '10.000001');
      assert.equal(xpub.json.derivation_path, "m/44'/60'/0'/0/0");
      assert.equal(xpub.json.verify_url, `http://127.0.0.1:8787/explorer/address/${xpub.json.receive_address}`);
      assert.deepEqual(parse(xpub.json.qr_uri), {
        scheme: 'ethereum',
        target_address: chain.usdc.address,
        chain_id: String(chain.anvil.chainId),
        function_name: 'transfer',
        parameters: { address: xpub.json.receive_address, uint256: '10000001' },
      });

      assert.equal((await post('{"chain":"base","amount_usd":1.0000001}')).json.error.code, 'invalid_amount');
      assert.equal((await post('{"chain":"base","amount_usd":10.000000000000000001}')).json.error.code, 'invalid_amount', 'the raw digits count, not the rounded double');
      assert.equal((await post({ chain: 'base', amount_usd: 0 })).json.error.code, 'invalid_amount');

      // USDT is fixed-address; nonce digits shrunk to 1 for this listener, so one amount has 9 nonces.
      const fixed = [];
      for (let i = 0; i < 9; i++) {
        const r = await post({ chain: 'base', amount_usd: 3.333, asset: 'usdt' });
        assert.equal(r.status, 201, r.text);
        fixed.push(BaseFixedInvoiceCreated.parse(r.json));
      }
      assert.deepEqual(fixed.map((f) => f.nonce), [1, 2, 3, 4, 5, 6, 7, 8, 9]);
      assert.equal(fixed[0].amount_usdc, '3.333001', 'with 1 nonce digit the nonce is the last decimal');
      assert.equal(fixed[0].receive_address, FIXED_ADDRESS);
      assert.equal(Date.parse(fixed[0].expires_at) - clock.now(), 3_600_000);
      const exhausted = await post({ chain: 'base', amount_usd: 3.333, asset: 'usdt' });
      assert.equal(exhausted.status, 503);
      assert.equal(exhausted.json.error.code, 'capacity');
      assert.equal((await post({ chain: 'base', amount_usd: 3.34, asset: 'usdt' })).status, 201, 'another amount has its own nonces');

      // Concurrent requests for one amount race for its nonces in the database: each nonce goes to one invoice.
      const raced = await Promise.all(Array.from({ length: 12 }, () => post({ chain: 'base', amount_usd: 5.55, asset: 'usdt' })));
      assert.deepEqual(raced.map((r) => r.status).sort(), [...Array(9).fill(201), ...Array(3).fill(503)], raced.map((r) => r.text).join('\n'));
      assert.deepEqual(raced.filter((r) => r.status === 201).map((r) => r.json.nonce).sort(), [1, 2, 3, 4, 5, 6, 7, 8, 9]);

      clock.advance(3_600_000 + 1);
      assert.equal((await post({ chain: 'base', amount_usd: 3.333, asset: 'usdt' })).status, 503, 'ended invoices keep their amount in quarantine');
      clock.advance(24 * 3_600_000);
      const reused = await post({ chain: 'base', amount_usd: 3.333, asset: 'usdt' });
      assert.equal(reused.status, 201);
      assert.equal(reused.json.nonce, 1, 'after the quarantine the amount is free again');

      // A real payment, found and confirmed by the listener's own watcher loop over two sources.
      const payable = (await post({ chain: 'base', amount_usd: 20 })).json;
      clock.set(Date.now());
      await chain.usdc.transfer(payable.receive_address, 20_000_000n);
      await chain.anvil.mine(2);
      const status = await waitForWatcher(
        'the payment confirmed by the running watcher',
        async () => (await (await fetch(`${listener.url}/invoice/${payable.invoice_id}`)).json()).status,
        (s) => s === 'confirmed',
        { watcher: async () => ({ health: await (await fetch(`${listener.url}/health`)).json(), tip: await chain.anvil.rpc('eth_blockNumber') }), timeoutMs: 30_000 },
      );
      assert.equal(status, 'confirmed');
      const health = Health.parse(await (await fetch(`${listener.url}/health`)).json());
      assert.equal(health.base?.rpc_sources, 2);
      assert.equal(health.base?.fixed_address_confirming, true);
      assert.equal(health.base?.warning, null);
      // Base is this listener's only chain, so the top-level chain fields are the Base watcher's.
      assert.ok(health.base?.last_block_height);
      assert.equal(health.last_block_height, health.base.last_block_height);
      assert.equal(health.subscribed_count, health.base.watched_addresses);
      assert.ok(health.subscribed_count >= 2, 'the fixed address and the open xpub invoice addresses');
      assert.ok(health.last_event_at);
    } finally {
      await listener.stop();
      await proxy.close();
      await chain.close();
    }
  });
}

test('Base settings: disabled chain, disabled asset, single source warning in /health, top-level /health fields with both chains, private key refused', async () => {
  const btcOnly = await startListener(loadConfig({ PORT: '0', DATABASE_URL: tempSqliteUrl(), SERVICE_RATE_LIMIT: 'off' }, defaultChains), { logger: silentLogger });
  try {
    const r = await postJson(`${btcOnly.url}/invoice`, { chain: 'base', amount_usd: 5 });
    assert.deepEqual([r.status, r.json.error.code], [400, 'base_disabled']);
  } finally {
    await btcOnly.stop();
  }

  const chain = await startEvmTestChain();
  try {
    const listener = await startListener(
      loadConfig({
        PORT: '0',
        DATABASE_URL: tempSqliteUrl(),
        SERVICE_RATE_LIMIT: 'off',
        MERCHANT_BASE_ADDRESS: FIXED_ADDRESS,
        MERCHANT_EVM_TOKENS: `usdc:${chain.usdc.address}`,
        BASE_RPC_URL: chain.anvil.url, BASE_MIN_SOURCES: '1',
        BASE_CHAIN_ID: String(chain.anvil.chainId),
      }, defaultChains),
      { logger: silentLogger, tuning: { evm: { pollIntervalMs: 100 } } },
    );
    try {
      const r = await postJson(`${listener.url}/invoice`, { chain: 'base', amount_usd: 5, asset: 'usdt' });
      assert.deepEqual([r.status, r.json.error.code], [400, 'asset_disabled']);
      const usdcFixed = await postJson(`${listener.url}/invoice`, { chain: 'base', amount_usd: 5 });
      assert.equal(usdcFixed.json.mode, 'fixed-address', 'USDC without an xpub is fixed-address');
      const health = Health.parse(await (await fetch(`${listener.url}/health`)).json());
      assert.equal(health.base?.fixed_address_confirming, false);
      assert.match(health.base?.warning ?? '', /single RPC source/);
    } finally {
      await listener.stop();
    }

    // Both chains: the top-level fields stay Bitcoin's (here its source is unreachable), Base's are in `base`.
    const both = await startListener(
      loadConfig({
        PORT: '0',
        DATABASE_URL: tempSqliteUrl(),
        SERVICE_RATE_LIMIT: 'off',
        MERCHANT_BTC_XPUB: BIP84_ZPUB,
        BTC_ESPLORA_URL: NO_CHAIN_ESPLORA_URL,
        MERCHANT_BASE_XPUB: ACCOUNT_XPUB,
        MERCHANT_EVM_TOKENS: `usdc:${chain.usdc.address}`,
        BASE_RPC_URL: chain.anvil.url, BASE_MIN_SOURCES: '1',
        BASE_CHAIN_ID: String(chain.anvil.chainId),
      }, defaultChains),
      { logger: silentLogger, tuning: { evm: { pollIntervalMs: 100 } } },
    );
    try {
      await postJson(`${both.url}/invoice`, { chain: 'base', amount_usd: 5 });
      const read = async () => Health.parse(await (await fetch(`${both.url}/health`)).json());
      const health = await waitForWatcher('the Base watcher watching the invoice', read, (h) => Boolean(h.base?.watched_addresses && h.base.last_block_height), {
        watcher: read,
        timeoutMs: 30_000,
      });
      assert.equal(health.base?.watched_addresses, 1);
      assert.ok(health.base?.last_block_height);
      assert.equal(health.last_block_height, null, "Bitcoin's: its source never answered");
      assert.equal(health.subscribed_count, both.watches.get('btc')!.health().headline.subscribed_count);
      assert.equal(health.subscribed_count, 0, 'no Bitcoin invoice yet');
      assert.deepEqual(health.enabled_assets, ['btc', 'usdc-base']);
      // One request budget per source, labelled without the path; Base's has served the watcher.
      const sources = new Map(health.chain_sources?.map((s) => [s.label, s]));
      assert.deepEqual([...sources.keys()].sort(), [new URL(NO_CHAIN_ESPLORA_URL).origin, new URL(chain.anvil.url).origin].sort());
      const baseSource = sources.get(new URL(chain.anvil.url).origin)!;
      assert.ok(baseSource.requests > 0);
      assert.equal(baseSource.http_429, 0);
    } finally {
      await both.stop();
    }
  } finally {
    await chain.close();
  }

  const xprv = 'xprv9s21ZrQH143K3QTDL4LXw2F7HEK3wJUD2nW2nRk4stbPy6cq3jPPqjiChkVvvNKmPGJxWUtg6LnF5kejMRNNU3TGtRBeJgk33yuGBxrMPHi';
  assert.throws(() => loadConfig({ MERCHANT_BASE_XPUB: xprv, BASE_RPC_URL: 'http://127.0.0.1:1', BASE_MIN_SOURCES: '1' }, defaultChains), /MERCHANT_BASE_XPUB holds an extended private key/);
  assert.throws(() => loadConfig({ MERCHANT_BASE_ADDRESS: FIXED_ADDRESS.toLowerCase(), BASE_RPC_URL: 'http://127.0.0.1:1', BASE_MIN_SOURCES: '1' }, defaultChains), /MERCHANT_BASE_ADDRESS give the EIP-55 checksummed form/);
  assert.throws(() => loadConfig({ MERCHANT_BASE_ADDRESS: FIXED_ADDRESS }, defaultChains), /BASE_RPC_URL is required/);
});
