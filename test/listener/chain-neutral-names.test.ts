import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chainFacts, CheckoutView, Health } from '../../shared/index.ts';
import { FIXED_ADDRESS, ACCOUNT_XPUB, startEvmTestChain } from '../helpers/evm-chain.ts';
import { postJson, startTestListener } from '../helpers/listener.ts';

type Json = Record<string, unknown>;

/** The chain-neutral amount fields equal the deprecated ones they stand beside, in every answer that carries them. */
function assertTokenAmounts(answer: Json, what: string) {
  assert.equal(typeof answer.amount_token, 'string', `${what}: amount_token`);
  assert.equal(answer.amount_token, answer.amount_usdc, `${what}: amount_token is amount_usdc`);
  assert.equal(typeof answer.amount_token_units, 'number', `${what}: amount_token_units`);
  assert.equal(answer.amount_token_units, answer.amount_usdc_units, `${what}: amount_token_units is amount_usdc_units`);
}

test('chain-neutral names on a real listener: token amounts on every EVM invoice kind, /health chains, and the disabled condition beside both codes', { timeout: 120_000 }, async () => {
  const chain = await startEvmTestChain();
  const tokens = `usdc:${chain.usdc.address},usdt:${chain.usdt.address}`;
  const listener = await startTestListener({
    env: {
      DATABASE_URL: chain.databaseUrl,
      // Base: USDC per derived address, USDT at the fixed address.
      MERCHANT_BASE_XPUB: ACCOUNT_XPUB,
      MERCHANT_BASE_ADDRESS: FIXED_ADDRESS,
      BASE_TOKENS: tokens,
      BASE_RPC_URL: chain.anvil.url,
      BASE_MIN_SOURCES: '1',
      BASE_CHAIN_ID: String(chain.anvil.chainId),
      BASE_FINALITY: 'count',
      // Ethereum (the same test node): USDC at the fixed address.
      MERCHANT_ETH_ADDRESS: FIXED_ADDRESS,
      ETH_TOKENS: `usdc:${chain.usdc.address}`,
      ETH_RPC_URL: chain.anvil.url,
      ETH_MIN_SOURCES: '1',
      ETH_CHAIN_ID: String(chain.anvil.chainId),
      ETH_FINALITY: 'count',
    },
  }).catch(async (error: unknown) => {
    await chain.close();
    throw error;
  });
  try {
    const kinds: Array<[string, object, 'xpub' | 'fixed']> = [
      ['Base USDC, derived address', { chain: 'base', amount_usd: 12.5 }, 'xpub'],
      ['Base USDT, fixed address', { chain: 'base', amount_usd: 3, asset: 'usdt' }, 'fixed'],
      ['Ethereum USDC, fixed address', { chain: 'eth', amount_usd: 7.25 }, 'fixed'],
    ];
    for (const [what, body, mode] of kinds) {
      const created = await postJson(`${listener.url}/invoice`, body);
      assert.equal(created.status, 201, `${what}: ${created.text}`);
      assert.equal(created.json.mode, mode === 'fixed' ? 'fixed-address' : undefined, what);
      assertTokenAmounts(created.json, `${what}, created`);
      const stored = (await (await fetch(`${listener.url}/invoice/${created.json.invoice_id}`)).json()) as Json;
      assertTokenAmounts(stored, `${what}, stored`);
      assert.equal(stored.amount_token, created.json.amount_token, what);
      const view = CheckoutView.parse(await (await fetch(`${listener.url}/checkout/${created.json.invoice_id}`)).json()) as Json;
      assertTokenAmounts(view, `${what}, checkout view`);
      assert.equal(view.amount_token, created.json.amount_token, what);
    }

    const btc = await postJson(`${listener.url}/invoice`, { amount_sats: 1000 });
    assert.equal(btc.status, 201, btc.text);
    const btcView = (await (await fetch(`${listener.url}/checkout/${btc.json.invoice_id}`)).json()) as Json;
    for (const answer of [btc.json, btcView]) {
      for (const field of ['amount_token', 'amount_token_units', 'amount_usdc', 'amount_usdc_units']) assert.equal(field in answer, false, `a Bitcoin invoice has no ${field}`);
    }

    const health = Health.parse(await (await fetch(`${listener.url}/health`)).json());
    assert.deepEqual(Object.keys(health.chains ?? {}).sort(), ['base', 'btc', 'eth'], 'every configured chain, and no other');
    for (const [name, entry] of Object.entries(health.chains!)) assert.equal(entry!.family, chainFacts[name as keyof typeof chainFacts].family, name);
    const { btc: btcHealth, base, eth } = health.chains!;
    assert.deepEqual(base!.evm, health.base, 'chains.base.evm is the deprecated base');
    assert.deepEqual(base!.evm, health.evm_chains!.base);
    assert.deepEqual(eth!.evm, health.evm_chains!.eth);
    assert.match(eth!.evm!.warning ?? '', /\bETH_RPC_URL\b/, "Ethereum's warning names Ethereum's setting");
    assert.equal(base!.watched_addresses, base!.evm!.watched_addresses);
    assert.deepEqual(btcHealth!.progress, health.btc_progress);
    assert.deepEqual(btcHealth!.bitcoin!.watch, health.btc_watch);
    assert.equal(btcHealth!.bitcoin!.source, health.btc_source);
    assert.equal(btcHealth!.bitcoin!.source_error, health.btc_source_error);
    assert.equal(btcHealth!.watched_addresses, health.subscribed_count, 'Bitcoin, the first chain, gives the headline figures');
    assert.equal(btcHealth!.last_block_height, health.last_block_height);

    const polygon = await postJson(`${listener.url}/invoice`, { chain: 'polygon', amount_usd: 5 });
    assert.deepEqual([polygon.status, polygon.json.error.code, polygon.json.error.condition], [400, 'base_disabled', 'chain_not_configured']);
  } finally {
    await listener.stop();
    await chain.close();
  }

  const withoutBitcoin = await startTestListener({ env: { MERCHANT_BTC_XPUB: '' } });
  try {
    const refused = await postJson(`${withoutBitcoin.url}/invoice`, { amount_sats: 1000 });
    assert.deepEqual([refused.status, refused.json.error.code, refused.json.error.condition], [400, 'chain_disabled', 'chain_not_configured']);
    const other = await postJson(`${withoutBitcoin.url}/invoice`, { chain: 'doge', amount_sats: 1000 });
    assert.equal(other.json.error.code, 'unsupported_chain');
    assert.equal('condition' in other.json.error, false, 'a code that shares no meaning carries no condition');
    const health = Health.parse(await (await fetch(`${withoutBitcoin.url}/health`)).json());
    assert.deepEqual(health.chains, {}, 'no chain configured, no entry');
  } finally {
    await withoutBitcoin.stop();
  }
});
