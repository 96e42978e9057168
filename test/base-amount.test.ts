import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AmountError, unitsToDecimal, usdTextToUnits } from '../core/base/amount.ts';
import { topLevelNumberText } from '../core/json-number-text.ts';

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

test('topLevelNumberText recovers the digits JSON.parse rounds away', () => {
  const raw = '{"chain":"base", "amount_usd" : 10.000000000000000001}';
  assert.equal(JSON.parse(raw).amount_usd, 10);
  assert.equal(topLevelNumberText(raw, 'amount_usd'), '10.000000000000000001');
});

test('topLevelNumberText reads only the top level, and the last duplicate like JSON.parse', () => {
  const raw = '{"x":{"amount_usd":1,"y":[{"amount_usd":5}]},"s":"\\"amount_usd\\":7","amount_usd":2,"amount_usd":3e-2}';
  assert.equal(JSON.parse(raw).amount_usd, 0.03);
  assert.equal(topLevelNumberText(raw, 'amount_usd'), '3e-2');
});

test('topLevelNumberText decodes escaped keys like JSON.parse', () => {
  assert.equal(topLevelNumberText('{"amount\\u005fusd":4.5}', 'amount_usd'), '4.5');
});

test('topLevelNumberText gives undefined for absent or non-numeric fields', () => {
  assert.equal(topLevelNumberText('{"amount_usd":"12"}', 'amount_usd'), undefined);
  assert.equal(topLevelNumberText('{"a":1}', 'amount_usd'), undefined);
  assert.equal(topLevelNumberText('[1]', 'amount_usd'), undefined);
});
