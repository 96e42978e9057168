import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseCreateInvoiceRequest } from '../../../core/invoices/create-request.ts';

import { ServiceError } from '../../../core/errors.ts';
import { chainIn } from '../../../core/chain-definition.ts';
import { defaultChains } from '../../../core/chains/default-chains.ts';
import { chainNames, chainFacts } from '../../../shared/index.ts';

const enabled = () => null;

test('amount_usd is decimal text: the edge\'s source digits when given', () => {
  const request = parseCreateInvoiceRequest({ chain: 'base', amount_usd: 10 }, enabled, new Map([['amount_usd', '10.000000000000000001']]));
  assert.equal(request.amount_usd, '10.000000000000000001');
});

test('amount_usd without source text is the double\'s shortest text (in-process callers)', () => {
  assert.equal(parseCreateInvoiceRequest({ chain: 'base', amount_usd: 0.1 }, enabled).amount_usd, '0.1');
  assert.equal(parseCreateInvoiceRequest({ chain: 'base', amount_usd: 1.005 }, enabled).amount_usd, '1.005');
  assert.equal(parseCreateInvoiceRequest({ chain: 'base', amount_usd: 1e-7 }, enabled).amount_usd, '1e-7');
});

test('a request without amount_usd gets none from the source texts', () => {
  const request = parseCreateInvoiceRequest({ amount_sats: 1000 }, enabled, new Map([['amount_sats', '1000'], ['amount_usd', '5']]));
  assert.equal(request.amount_usd, undefined);
  assert.equal(request.amount_sats, 1000);
});

test('amount_usd is still judged as the contract\'s number: > 0, a number not a string', () => {
  for (const body of [{ chain: 'base', amount_usd: 0 }, { chain: 'base', amount_usd: '12.5' }]) {
    assert.throws(() => parseCreateInvoiceRequest(body, enabled, new Map()), (e: { code?: string }) => e.code === 'invalid_amount');
  }
});

test('every chain of the contract is accepted by name, and asks for its own amount field', () => {
  for (const chain of chainNames) {
    const field = chainFacts[chain].amountField;
    assert.throws(
      () => parseCreateInvoiceRequest({ chain }, enabled),
      (e: { code?: string; message?: string }) => e.code === 'invalid_amount' && e.message!.includes(field),
      `${chain} without ${field}`,
    );
    const request = parseCreateInvoiceRequest({ chain, [field]: 5 }, enabled);
    assert.equal(request.chain, chain);
  }
  assert.throws(() => parseCreateInvoiceRequest({ chain: 'dogecoin', amount_usd: 1 }, enabled), (e: { code?: string }) => e.code === 'unsupported_chain');
});

test('a chain the merchant does not receive on answers with its module\'s code, before the amount is judged', () => {
  for (const chain of chainNames) {
    const disabled = chainIn(defaultChains, chain).disabled();
    assert.ok(disabled instanceof ServiceError);
    assert.throws(
      () => parseCreateInvoiceRequest({ chain, amount_usd: -1, amount_sats: -1 }, (asked) => (asked === chain ? disabled : null)),
      (e: { code?: string }) => e.code === disabled.code,
    );
  }
  assert.equal(chainIn(defaultChains, 'btc').disabled().code, 'chain_disabled');
  assert.equal(chainIn(defaultChains, 'eth').disabled().code, 'base_disabled');
});

test('a field the contract does not know is bad_body naming every such field, and is judged after the chain', () => {
  assert.throws(
    () => parseCreateInvoiceRequest({ amount_sats: 1000, orderId: 'A-1', callback: 'x' }, enabled),
    (e: { code?: string; message?: string }) => e.code === 'bad_body' && /"orderId"/.test(e.message!) && /"callback"/.test(e.message!),
  );
  // Before the amount: a client that misspells a field learns of it first.
  assert.throws(() => parseCreateInvoiceRequest({ amount_sats: -1, orderId: 'A-1' }, enabled), (e: { code?: string }) => e.code === 'bad_body');
  assert.throws(() => parseCreateInvoiceRequest({ chain: 'doge', amount_sats: 1, orderId: 'A-1' }, enabled), (e: { code?: string }) => e.code === 'unsupported_chain');
});
