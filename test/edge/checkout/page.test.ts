import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defaultChains } from '../../../core/chains/default-chains.ts';
import { renderCheckoutPage } from '../../../edge/checkout/page.ts';
import { BtcCheckoutView } from '../../../shared/index.ts';

const view = BtcCheckoutView.parse({
  invoice_id: 'inv_page',
  shop_name: 'Shop',
  status: 'pending',
  receive_address: 'bc1qexampleaddress',
  qr_uri: 'bitcoin:bc1qexampleaddress?amount=0.00050000',
  expires_at: '2030-01-01T01:00:00.000Z',
  created_at: '2030-01-01T00:00:00.000Z',
  tx_hash: null,
  paid_at: null,
  verify_url: null,
  tx_url: null,
  x402_url: null,
  amount_due: '0.00050000',
  payment_seen: false,
  memo: null,
  server_time: '2030-01-01T00:00:00.000Z',
  chain: 'btc',
  asset: 'BTC',
  network: 'mainnet',
  amount_btc: '0.00050000',
});
const assets = { cssUrl: '/a.css', cssIntegrity: 'sha384-a', jsUrl: '/a.js', jsIntegrity: 'sha384-b' };
const bitcoin = defaultChains.find((chain) => chain.chain === 'btc')!;

test("the page speaks of the invoice as the invoice's chain says: its amount, network, fee and confirmation time", () => {
  const chain = {
    confirmingTakes: () => 'the Testchain is confirming it, which takes a moment',
    display: {
      ...bitcoin.display,
      amountOf: () => '7.77',
      networkOf: () => ({ name: 'Testchain', note: 'test coins' }),
      sendOn: () => 'BTC on the Testchain',
      feeName: 'miner tip',
      exactAmountOf: () => null,
    },
  };
  const page = renderCheckoutPage(view, { chain, viewUrl: '/checkout/inv_page', qrSvg: '<svg></svg>', assets });
  assert.match(page, /Payment of 7\.77 BTC received/);
  assert.match(page, /<dd id="network">BTC on the Testchain<\/dd>/);
  assert.match(page, /the miner tip comes on top/);
  assert.match(page, /the Testchain is confirming it, which takes a moment/);
  assert.match(page, /id="network-note">Testchain — test coins</);

  const exact = renderCheckoutPage(view, { chain: { ...chain, display: { ...chain.display, exactAmountOf: () => '7.770001' } }, viewUrl: '/v', qrSvg: '', assets });
  assert.match(exact, /Send exactly 7\.770001 BTC\./);
});
