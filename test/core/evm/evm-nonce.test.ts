import { test } from 'node:test';
import assert from 'node:assert/strict';
import { unitsToDecimal } from '../../../core/invoices/token-amount.ts';
import { maxNonce, noncesToTry, roundedBaseUnits } from '../../../core/evm/nonce.ts';

test('the requested amount is rounded UP to whole cents before the nonce is added', () => {
  assert.equal(roundedBaseUnits(12_340_000n, 4), 12_340_000n);
  assert.equal(roundedBaseUnits(12_340_001n, 4), 12_350_000n);
  assert.equal(roundedBaseUnits(1n, 4), 10_000n);
});

test('the nonce occupies the last 4 decimals: $12.34 with nonce 417 is 12.340417', () => {
  const [nonce] = noncesToTry(4, [], 0);
  assert.equal(nonce, 1);
  assert.equal(unitsToDecimal(12_340_000n + 417n), '12.340417');
  assert.equal(maxNonce(4), 9_999);
});

test('noncesToTry skips held nonces and runs out after 10^d - 1 nonces', () => {
  const held = [1, 2, 4].map((nonce) => ({ nonce, reserved_until: 1_000 }));
  assert.deepEqual(noncesToTry(1, held, 999), [3, 5, 6, 7, 8, 9]);
  const all = Array.from({ length: 9 }, (_, i) => ({ nonce: i + 1, reserved_until: 1_000 }));
  assert.deepEqual(noncesToTry(1, all, 999), []);
});

test('noncesToTry rotates: never-leased nonces first, then the one that lapsed longest ago, never the lowest lapsed by default', () => {
  const leases = [
    { nonce: 1, reserved_until: 500 },
    { nonce: 2, reserved_until: 100 },
    { nonce: 3, reserved_until: 2_000 },
  ];
  assert.deepEqual(noncesToTry(1, leases, 1_000), [4, 5, 6, 7, 8, 9, 2, 1], 'nonce 3 is held; 2 lapsed before 1');
  const everyOneUsed = Array.from({ length: 9 }, (_, i) => ({ nonce: i + 1, reserved_until: 900 - i }));
  assert.equal(noncesToTry(1, everyOneUsed, 1_000)[0], 9, 'the amount unused for longest comes back first');
});
