import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defaultChains } from '../../../core/chains/default-chains.ts';
import { pageQrTexts, renderCheckoutPage } from '../../../edge/checkout/page.ts';
import { BaseCheckoutView, BtcCheckoutView, type CheckoutView } from '../../../shared/index.ts';

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
      readableAmount: (_invoice: unknown, amount: string) => amount,
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

test('a token amount reads in cents ("12.50 USDC" for 12.500000), an exact fixed-address amount to its last digit', () => {
  const base = defaultChains.find((chain) => chain.chain === 'base')!;
  const { network: _network, amount_btc: _btc, ...common } = view;
  const evmView = (amount: string, fields: Record<string, unknown> = {}) =>
    BaseCheckoutView.parse({
      ...common,
      chain: 'base',
      asset: 'USDC',
      receive_address: '0x1111111111111111111111111111111111111111',
      qr_uri: `ethereum:0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913@8453/transfer?address=0x1111111111111111111111111111111111111111&uint256=${Number(amount) * 1e6}`,
      amount_due: amount,
      amount_token: amount,
      amount_token_units: Math.round(Number(amount) * 1e6),
      amount_usdc: amount,
      amount_usdc_units: Math.round(Number(amount) * 1e6),
      ...fields,
    });
  const render = (shown: CheckoutView) => renderCheckoutPage(shown, { chain: base, viewUrl: '/v', qrSvg: '', assets });

  const derived = render(evmView('12.500000'));
  assert.match(derived, /<h1[^>]*>Pay 12\.50 USDC<\/h1>/);
  assert.match(derived, /<code class="value" id="amount"[^>]*>12\.50<\/code>/);
  assert.doesNotMatch(derived.replace(/ data-amount-due="[^"]*"/, ''), /12\.500000/, 'nowhere on the page but the data the script compares');
  assert.match(render(evmView('12.123400')), /id="amount"[^>]*>12\.1234</, 'digits past the cents that are not zeros stay');
  assert.match(render(evmView('12.500000', { status: 'partial', amount_due: '7.500000' })), /Send the remaining 7\.50 USDC/);

  const fixed = render(evmView('12.500042', { nonce: 42 }));
  assert.match(fixed, /<h1[^>]*>Pay 12\.500042 USDC<\/h1>/);
  assert.match(fixed, /Send exactly 12\.500042 USDC\./);
  const roundNonce = render(evmView('12.500000', { nonce: 0 }));
  assert.match(roundNonce, /id="amount"[^>]*>12\.500000</, 'an exact amount is shown whole even when it ends in zeros');

  const btc = renderCheckoutPage(view, { chain: bitcoin, viewUrl: '/v', qrSvg: '', assets });
  assert.match(btc, /id="amount"[^>]*>0\.00050000</, "Bitcoin's 8 decimals stay");
});

test('a Lightning invoice: a QR code each way, the Lightning one in capitals; none once part was paid on-chain, for it asks for the whole amount', () => {
  const bolt11 = 'lnbc500u1pexample';
  const both = BtcCheckoutView.parse({ ...view, qr_uri: `${view.qr_uri}&lightning=${bolt11}`, lightning_invoice: bolt11 });
  const lightningOnly = BtcCheckoutView.parse({ ...view, receive_address: bolt11, qr_uri: `lightning:${bolt11}`, lightning_invoice: bolt11 });
  assert.deepEqual(pageQrTexts(view), { onchain: view.qr_uri, lightning: null });
  assert.deepEqual(pageQrTexts(both), { onchain: both.qr_uri, lightning: 'LIGHTNING:LNBC500U1PEXAMPLE' });
  assert.deepEqual(pageQrTexts(lightningOnly), { onchain: null, lightning: 'LIGHTNING:LNBC500U1PEXAMPLE' });
  const partial = BtcCheckoutView.parse({ ...both, status: 'partial', amount_due: '0.00030000' });
  assert.deepEqual(pageQrTexts(partial), { onchain: partial.qr_uri, lightning: null });

  const render = (shown: CheckoutView) => renderCheckoutPage(shown, { chain: bitcoin, viewUrl: '/v', qrSvg: '<svg id="onchain"></svg>', lightningQrSvg: '<svg id="ln"></svg>', assets });
  const page = render(both);
  assert.match(page, /<div class="methods" role="tablist" aria-label="How to pay" hidden>/, 'the tabs are the script\'s to show: without it both panels show');
  assert.match(page, /<div class="method" role="tabpanel" id="pay-lightning" aria-labelledby="tab-lightning">/);
  assert.match(page, /href="lightning:lnbc500u1pexample">Pay with a Lightning wallet</);
  assert.ok(page.includes('<svg id="onchain">') && page.includes('<svg id="ln">'));
  assert.doesNotMatch(render(partial), /role="tab|Lightning/, 'a partly paid page offers the address only');
  const only = render(lightningOnly);
  assert.doesNotMatch(only, /role="tab|id="address"/, 'a Lightning-only page has no tabs and no address');
  assert.match(only, /<dd id="network">Lightning, Bitcoin<\/dd>/);
});

test('a page paid without a transaction (over Lightning) keeps its transaction line hidden', () => {
  const render = (fields: Record<string, unknown>) => renderCheckoutPage(BtcCheckoutView.parse({ ...view, status: 'confirmed', paid_at: view.created_at, ...fields }), { chain: bitcoin, viewUrl: '/v', qrSvg: '', assets });
  assert.match(render({}), /<p class="tx" hidden>Transaction:/);
  assert.match(render({ tx_hash: 'ab'.repeat(32) }), /<p class="tx">Transaction: <a data-field="tx_url">abab/);
});
