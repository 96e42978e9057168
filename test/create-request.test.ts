import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseCreateInvoiceRequest } from '../core/invoices/create-request.ts';

const enabled = () => true;

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
