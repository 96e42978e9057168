import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'eth-url-parser';
import { erc20TransferUri } from '../../../core/evm/eip681.ts';
import { evmSpecs } from '../../helpers/evm-chain.ts';
import { chainFacts, evmNetworkOfUri } from '../../../shared/index.ts';

test('the EIP-681 URI parses back with an independent parser (eth-url-parser)', () => {
  const uri = erc20TransferUri('0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', 8453, '0x9858EfFD232B4033E47d90003D41EC34EcaEda94', 12_340_417n);
  assert.equal(uri, 'ethereum:0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913@8453/transfer?address=0x9858EfFD232B4033E47d90003D41EC34EcaEda94&uint256=12340417');
  const parsed = parse(uri);
  assert.equal(parsed.target_address, '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913');
  assert.equal(parsed.chain_id, '8453');
  assert.equal(parsed.function_name, 'transfer');
  assert.deepEqual(parsed.parameters, { address: '0x9858EfFD232B4033E47d90003D41EC34EcaEda94', uint256: '12340417' });
});

test('large amounts stay plain digits, never exponent notation', () => {
  const uri = erc20TransferUri('0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', 8453, '0x9858EfFD232B4033E47d90003D41EC34EcaEda94', 9_007_199_254_740_991n);
  assert.equal(parse(uri).parameters?.uint256, '9007199254740991');
  assert.doesNotMatch(uri, /e\+/i);
});

test('every EVM chain\'s URI carries its own chain id, in the shape of EIP-681\'s ERC-20 example', () => {
  // EIP-681's own example of an ERC-20 transfer, which names no chain (so means chain id 1).
  const example = parse('ethereum:0x89205a3a3b2a69de6dbf7f01ed13b2108b2c43e7/transfer?address=0x8e23ee67d1332ad560396262c48ffbb01f93d052&uint256=1');
  assert.equal(example.chain_id, undefined);
  for (const spec of evmSpecs()) {
    const chainId = spec.mainnetChainId;
    for (const [symbol, token] of Object.entries(spec.knownTokens[chainId])) {
      const uri = erc20TransferUri(token, chainId, '0x9858EfFD232B4033E47d90003D41EC34EcaEda94', 1n);
      assert.equal(uri, `ethereum:${token}@${chainId}/transfer?address=0x9858EfFD232B4033E47d90003D41EC34EcaEda94&uint256=1`, `${spec.chain} ${symbol}`);
      const parsed = parse(uri);
      assert.equal(parsed.chain_id, String(chainId), `${spec.chain} ${symbol}`);
      assert.equal(parsed.function_name, example.function_name);
      assert.deepEqual(Object.keys(parsed.parameters!), Object.keys(example.parameters!));
      assert.equal(evmNetworkOfUri(uri).name, chainFacts[spec.chain].name, 'the URI names the chain to a person');
    }
  }
});

test('the canonical contracts are the chains\' native USDC and USDT', () => {
  const known = Object.fromEntries(evmSpecs().map((spec) => [spec.chain, spec.knownTokens[spec.mainnetChainId]]));
  assert.deepEqual(known.eth, { usdc: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48', usdt: '0xdAC17F958D2ee523a2206206994597C13D831ec7' });
  assert.deepEqual(known.polygon, { usdc: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359', usdt: '0xc2132D05D31c914a87C6611C10748AEb04B58e8F' });
});
