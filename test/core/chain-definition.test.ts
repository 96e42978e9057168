import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tuningOf } from '../../core/chain-runtime.ts';
import { chainIn, configureListenerChains, listenerSettingNames, settingsOf } from '../../core/chain-definition.ts';
import { defaultChains } from '../../core/chains/default-chains.ts';
import { coreMigrations } from '../../core/schema.ts';
import { chainFacts } from '../../shared/index.ts';

test('tuning by family, a chain\'s own entry over its family\'s', () => {
  const tuning = { evm: { pollIntervalMs: 100, nonceDigits: 1 }, eth: { pollIntervalMs: 5 } };
  assert.deepEqual(tuningOf(tuning, 'base', chainFacts.base), { pollIntervalMs: 100, nonceDigits: 1 });
  assert.deepEqual(tuningOf(tuning, 'eth', chainFacts.eth), { pollIntervalMs: 5, nonceDigits: 1 });
  assert.deepEqual(tuningOf(tuning, 'btc', chainFacts.btc), {});
  assert.deepEqual(tuningOf(undefined, 'btc', chainFacts.btc), {});
});

test('the chains configured are the list\'s, in its order; a family\'s check runs once over its members', () => {
  const problems: string[] = [];
  const configured = configureListenerChains(defaultChains, { MERCHANT_EVM_ADDRESS: '0x2222222222222222222222222222222222222222' }, problems, {});
  assert.deepEqual(configured, []);
  assert.equal(problems.length, 1, problems.join('\n'));
  assert.match(problems[0]!, /^MERCHANT_EVM_ADDRESS is set but no EVM chain has an RPC URL \(BASE_RPC_URL, ETH_RPC_URL, POLYGON_RPC_URL, ARBITRUM_RPC_URL\)$/);

  // Another list, another family: the check names only the chains it was given.
  const only = [chainIn(defaultChains, 'polygon')];
  const fewer: string[] = [];
  configureListenerChains(only, { MERCHANT_EVM_ADDRESS: '0x2222222222222222222222222222222222222222' }, fewer, {});
  assert.deepEqual(fewer, ['MERCHANT_EVM_ADDRESS is set but no EVM chain has an RPC URL (POLYGON_RPC_URL)']);
  assert.equal(settingsOf(configured, 'base'), null);
  assert.throws(() => chainIn(only, 'base'), /no chain base/);
});

test('the settings and tables are the chains\' own: a list without Bitcoin reads no BTC_ setting and makes no Bitcoin table', () => {
  const evmOnly = defaultChains.filter((chain) => chain.facts.family === 'evm');
  assert.ok(listenerSettingNames(defaultChains).includes('MERCHANT_BTC_XPUB'));
  assert.ok(!listenerSettingNames(evmOnly).some((name) => name.includes('BTC')));
  const names = (chains: typeof defaultChains) => Object.keys(coreMigrations('sqlite', chains));
  assert.ok(names(defaultChains).includes('0020_btc_headers'));
  assert.ok(!names(evmOnly).some((name) => name.includes('btc')));
  assert.ok(names(evmOnly).includes('0016_evm_chain_column'), 'the EVM family\'s tables once, whatever the number of EVM chains');
});
