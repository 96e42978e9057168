import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'eth-url-parser';
import { erc20TransferUri } from '../core/base/eip681.ts';

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
