import { test } from 'node:test';
import assert from 'node:assert/strict';
import { topLevelNumberTexts } from '../../../edge/http/json-number-text.ts';

test('topLevelNumberTexts recovers the digits JSON.parse rounds away', () => {
  const raw = '{"chain":"base", "amount_usd" : 10.000000000000000001}';
  assert.equal(JSON.parse(raw).amount_usd, 10);
  assert.equal(topLevelNumberTexts(raw).get('amount_usd'), '10.000000000000000001');
});

test('topLevelNumberTexts reads only the top level, and the last duplicate like JSON.parse', () => {
  const raw = '{"x":{"amount_usd":1,"y":[{"amount_usd":5}]},"s":"\\"amount_usd\\":7","amount_usd":2,"amount_usd":3e-2}';
  assert.equal(JSON.parse(raw).amount_usd, 0.03);
  assert.deepEqual([...topLevelNumberTexts(raw)], [['amount_usd', '3e-2']]);
});

test('topLevelNumberTexts decodes escaped keys like JSON.parse', () => {
  assert.equal(topLevelNumberTexts('{"amount\\u005fusd":4.5}').get('amount_usd'), '4.5');
});

test('topLevelNumberTexts leaves out absent or non-numeric fields, and a later non-number wins over a number', () => {
  assert.equal(topLevelNumberTexts('{"amount_usd":"12"}').has('amount_usd'), false);
  assert.equal(topLevelNumberTexts('{"amount_usd":12,"amount_usd":null}').has('amount_usd'), false);
  assert.equal(topLevelNumberTexts('{"a":1}').has('amount_usd'), false);
  assert.equal(topLevelNumberTexts('[1]').size, 0);
});
