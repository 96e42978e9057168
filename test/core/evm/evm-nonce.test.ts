import { test } from 'node:test';
import assert from 'node:assert/strict';
import { unitsToDecimal } from '../../../core/invoices/token-amount.ts';
import { freeNonces, maxNonce, roundedBaseUnits } from '../../../core/evm/nonce.ts';

test('the requested amount is rounded UP to whole cents before the nonce is added', () => {
  assert.equal(roundedBaseUnits(12_340_000n, 4), 12_340_000n);
  assert.equal(roundedBaseUnits(12_340_001n, 4), 12_350_000n);
  assert.equal(roundedBaseUnits(1n, 4), 10_000n);
});

test('the nonce occupies the last 4 decimals: $12.34 with nonce 417 is 12.340417', () => {
  const [nonce] = freeNonces(12_340_000n, 4, new Set());
  assert.equal(nonce, 1);
  assert.equal(unitsToDecimal(12_340_000n + 417n), '12.340417');
  assert.equal(maxNonce(4), 9_999);
});

test('freeNonces skips reserved amounts and runs out after 10^d - 1 nonces', () => {
  const reserved = new Set([12_340_001n, 12_340_002n, 12_340_004n]);
  assert.deepEqual([...freeNonces(12_340_000n, 1, reserved)], [3, 5, 6, 7, 8, 9]);
  const all = new Set(Array.from({ length: 9 }, (_, i) => 12_340_001n + BigInt(i)));
  assert.deepEqual([...freeNonces(12_340_000n, 1, all)], []);
});
