import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createListenerClient } from '../../mcp/listener-client.ts';
import { silentLogger } from '../../core/log.ts';

const RECIPIENT = '0x1111111111111111111111111111111111111111';
const USDT = '0xfde4C96c8593536E31F229EA8f37b2ADa2699bb2';

/** A fixed-address USDT invoice and its checkout view as a listener before contract 0.7.0 sent them: no amount_token. */
const olderInvoice = {
  invoice_id: 'inv_old', merchant_id: 'default', chain: 'base', asset: 'USDT', receive_address: RECIPIENT, child_index: null,
  status: 'pending', tx_hash: null, paid_at: null, expires_at: '2030-01-01T01:00:00.000Z', created_at: '2030-01-01T00:00:00.000Z',
  updated_at: '2030-01-01T00:00:00.000Z', amount_usd: 3, amount_usdc: '3.000004', amount_usdc_units: 3_000_004, mode: 'fixed-address',
  nonce: 4, token_address: USDT, x402_url: null,
};
const olderView = {
  invoice_id: 'inv_old', shop_name: 'Shop', chain: 'base', asset: 'USDT', status: 'pending', receive_address: RECIPIENT,
  qr_uri: `ethereum:${USDT}@8453/transfer?address=${RECIPIENT}&uint256=3000004`, expires_at: '2030-01-01T01:00:00.000Z',
  created_at: '2030-01-01T00:00:00.000Z', tx_hash: null, paid_at: null, verify_url: null, tx_url: null, x402_url: null,
  amount_due: '3.000004', payment_seen: false, memo: null, server_time: '2030-01-01T00:00:01.000Z',
  amount_usdc: '3.000004', amount_usdc_units: 3_000_004, nonce: 4,
};

test('the MCP server reads invoices and checkout views of a listener before contract 0.7.0, with the token amount under its new names', async () => {
  const answers: Record<string, unknown> = { '/invoice/inv_old': olderInvoice, '/checkout/inv_old': olderView };
  const fakeFetch = (async (url: string | URL) => Response.json(answers[new URL(url).pathname])) as typeof fetch;
  const client = createListenerClient({ baseUrl: 'http://listener.test', apiKey: undefined, fetch: fakeFetch, timeoutMs: 1000, logger: silentLogger });
  for (const result of [await client.getInvoice('inv_old'), await client.checkoutView('inv_old')]) {
    assert.ok(result.ok, JSON.stringify(result));
    const value = result.value as { amount_token?: string; amount_token_units?: number; amount_usdc?: string };
    assert.deepEqual([value.amount_token, value.amount_token_units, value.amount_usdc], ['3.000004', 3_000_004, '3.000004']);
  }
});
