import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AmountError, unitsToDecimal, usdJsonNumber, usdTextToUnits } from '../../../core/invoices/token-amount.ts';

const exact: [string, bigint, string][] = [
  ['12.34', 12_340_000n, 'plain cents'],
  ['0.1', 100_000n, '0.1 has no exact double; the text does'],
  ['1.005', 1_005_000n, '1.005 * 1e6 is 1004999.9999999999 in floating point'],
  ['0.000001', 1n, 'one unit'],
  ['1e-6', 1n, 'exponent form as String(1e-6) would print'],
  ['1E2', 100_000_000n, 'upper-case positive exponent'],
  ['1.50000000', 1_500_000n, 'trailing zeros beyond 6 decimals are not significant'],
  ['2.5e-3', 2_500n, 'fraction and negative exponent'],
  ['9007199254.740991', 9_007_199_254_740_991n, 'largest amount whose units are a safe JSON integer'],
];

for (const [text, units, why] of exact) {
  test(`usdTextToUnits(${text}) = ${units} (${why})`, () => {
    assert.equal(usdTextToUnits(text), units);
  });
}

const refused: [string, RegExp][] = [
  ['1e-7', /more than 6 decimals/],
  ['12.3456789', /more than 6 decimals/],
  ['10.000000000000000001', /more than 6 decimals/],
  ['0', /greater than 0/],
  ['0.000', /greater than 0/],
  ['-1', /greater than 0/],
  ['9007199254.740992', /too large/],
  ['1e400', /too large/],
  ['abc', /decimal number/],
];

for (const [text, message] of refused) {
  test(`usdTextToUnits(${text}) is refused`, () => {
    assert.throws(() => usdTextToUnits(text), (e: unknown) => e instanceof AmountError && message.test(e.message));
  });
}

test('unitsToDecimal writes all 6 decimals', () => {
  assert.equal(unitsToDecimal(12_340_417n), '12.340417');
  assert.equal(unitsToDecimal(1n), '0.000001');
  assert.equal(unitsToDecimal(100_000_000n), '100.000000');
});

test('usdJsonNumber keeps what the API answered for an amount (12.5, 0.1, trailing zeros, exponents)', () => {
  assert.equal(usdJsonNumber('12.5'), 12.5);
  assert.equal(usdJsonNumber('0.1'), 0.1);
  assert.equal(usdJsonNumber('1.50000000'), 1.5);
  assert.equal(usdJsonNumber('1e1'), 10);
  assert.equal(JSON.stringify({ amount_usd: usdJsonNumber('1.005') }), '{"amount_usd":1.005}');
});

test('usdJsonNumber reads back as the same units for every amount below 2^33 dollars', () => {
  const below = 2n ** 33n * 1_000_000n;
  const samples = [1n, 999_999n, 1_005_000n, below - 1n];
  // A fixed odd stride spreads the samples over the whole range, the same ones every run.
  for (let i = 1n; i <= 2_000n; i++) samples.push(1n + ((i * 4_294_967_291_123n) % (below - 1n)));
  for (const units of samples) {
    const text = unitsToDecimal(units);
    assert.equal(usdTextToUnits(String(usdJsonNumber(text))), units, text);
  }
});
