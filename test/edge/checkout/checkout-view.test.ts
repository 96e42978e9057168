import { defaultChains } from '../../../core/chains/default-chains.ts';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { manualClock } from '../../../core/clock.ts';
import { loadConfig } from '../../../listener/config.ts';
import { ConfigError } from '../../../edge/settings.ts';
import type { RunningListener } from '../../../listener/app.ts';
import { CHECKOUT_CSP } from '../../../edge/checkout/routes.ts';
import { CheckoutView } from '../../../shared/index.ts';
import { ACCOUNT_XPUB, FIXED_ADDRESS } from '../../helpers/evm-chain.ts';
import { BIP84_ZPUB, postJson, startTestListener } from '../../helpers/listener.ts';

const API_KEY = 'sk_checkout_test_key_0123456789';
const WEBHOOK_SECRET = 'whsec_checkout_test_secret_0123456789';

const btcViewKeys = [
  'invoice_id', 'shop_name', 'chain', 'asset', 'status', 'receive_address', 'expires_at', 'created_at', 'tx_hash', 'paid_at',
  'verify_url', 'tx_url', 'server_time', 'amount_btc', 'amount_due', 'payment_seen', 'qr_uri', 'network', 'memo', 'redirect_url', 'x402_url',
  'price_amount', 'price_currency', 'rate', 'rate_sources', 'rate_at', 'lightning_invoice',
].sort();
const baseViewKeys = [
  'invoice_id', 'shop_name', 'chain', 'asset', 'status', 'receive_address', 'expires_at', 'created_at', 'tx_hash', 'paid_at',
  'verify_url', 'tx_url', 'server_time', 'amount_token', 'amount_token_units', 'amount_usdc', 'amount_usdc_units', 'amount_due', 'payment_seen', 'qr_uri', 'memo', 'redirect_url', 'x402_url',
  'price_amount', 'price_currency', 'rate', 'rate_sources', 'rate_at',
].sort();

describe('checkout view and page of the listener', () => {
  const clock = manualClock(Date.UTC(2026, 0, 1, 12));
  let listener: RunningListener;
  const create = async (body: unknown) => {
    const res = await postJson(`${listener.url}/invoice`, body, { 'X-Service-Api-Key': API_KEY });
    assert.equal(res.status, 201, res.text);
    return res.json;
  };
  const view = async (id: string) => fetch(`${listener.url}/checkout/${id}`);

  before(async () => {
    listener = await startTestListener({
      clock,
      env: {
        SHOP_NAME: 'Dana\'s <script>alert("x")</script> & Co',
        SERVICE_API_KEY: API_KEY,
        MERCHANT_WEBHOOK_URL: 'http://127.0.0.1:9/hook',
        MERCHANT_WEBHOOK_SECRET: WEBHOOK_SECRET,
        MERCHANT_BASE_XPUB: ACCOUNT_XPUB,
        MERCHANT_BASE_ADDRESS: FIXED_ADDRESS,
        MERCHANT_EVM_TOKENS: 'usdc,usdt',
        BASE_RPC_URL: 'http://127.0.0.1:9', BASE_MIN_SOURCES: '1',
      },
    });
  });
  after(() => listener.stop());

  test('Bitcoin: display-only fields that agree with the created invoice, public and uncached', async () => {
    const created = await create({ amount_sats: 50_000, memo: 'Order #42', redirect_url: 'https://shop.example/thanks' });
    const res = await view(created.invoice_id);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('access-control-allow-origin'), '*');
    assert.equal(res.headers.get('cache-control'), 'no-store');
    const body = await res.json();
    CheckoutView.parse(body);
    assert.deepEqual(Object.keys(body).sort(), btcViewKeys);
    assert.deepEqual(
      { ...body, server_time: undefined },
      {
        invoice_id: created.invoice_id,
        shop_name: 'Dana\'s <script>alert("x")</script> & Co',
        chain: 'btc',
        asset: 'BTC',
        network: 'mainnet',
        memo: 'Order #42',
        // The return link is kept from the view until the invoice is paid.
        redirect_url: null,
        status: 'pending',
        receive_address: created.receive_address,
        expires_at: '2026-01-01T13:00:00.000Z',
        created_at: '2026-01-01T12:00:00.000Z',
        tx_hash: null,
        paid_at: null,
        verify_url: created.verify_url,
        tx_url: null,
        x402_url: null,
        price_amount: null,
        price_currency: null,
        rate: null,
        rate_sources: null,
        rate_at: null,
        server_time: undefined,
        amount_btc: '0.00050000',
        amount_due: '0.00050000',
        payment_seen: false,
        qr_uri: created.qr_uri,
        // This listener has no Lightning wallet (MERCHANT_NWC_URL).
        lightning_invoice: null,
      },
    );
    assert.equal(body.server_time, '2026-01-01T12:00:00.000Z');
  });

  test('Base: xpub mode without a nonce, fixed-address mode with its nonce and exact amount', async () => {
    const xpub = await create({ chain: 'base', amount_usd: 12.5 });
    const xpubView = await (await view(xpub.invoice_id)).json();
    CheckoutView.parse(xpubView);
    assert.deepEqual(Object.keys(xpubView).sort(), baseViewKeys);
    assert.equal(xpubView.qr_uri, xpub.qr_uri);
    assert.equal(xpubView.verify_url, xpub.verify_url);
    assert.equal(xpubView.amount_usdc, '12.500000');
    assert.equal(xpubView.amount_due, '12.500000');

    const fixed = await create({ chain: 'base', amount_usd: 12.34, asset: 'usdt' });
    const fixedView = await (await view(fixed.invoice_id)).json();
    CheckoutView.parse(fixedView);
    assert.deepEqual(Object.keys(fixedView).sort(), [...baseViewKeys, 'nonce'].sort());
    assert.equal(fixedView.asset, 'USDT');
    assert.equal(fixedView.nonce, fixed.nonce);
    assert.equal(fixedView.amount_usdc, fixed.amount_usdc);
    assert.equal(fixedView.amount_usdc_units, fixed.amount_usdc_units);
    assert.equal(fixedView.qr_uri, fixed.qr_uri);
    assert.equal(fixedView.receive_address, FIXED_ADDRESS);

    const page = await (await fetch(`${listener.url}/pay/${fixed.invoice_id}`)).text();
    assert.match(page, new RegExp(`<strong>Send exactly ${fixed.amount_usdc.replace('.', '\\.')} USDT\\.</strong>`));
    const xpubPage = await (await fetch(`${listener.url}/pay/${xpub.invoice_id}`)).text();
    assert.doesNotMatch(xpubPage, /Send exactly/);
    // Base mainnet (the default chain id) keeps its name; the sandbox's chain is named by its id (sandbox-first-loop test).
    assert.match(xpubPage, /<dd id="network">USDC on Base \(not Ethereum mainnet\)<\/dd>/);
  });

  /** A Transfer the Base watcher recorded (mined, not yet confirmed), written as it writes them. */
  let logIndex = 0;
  async function transferSeen(invoice: { qr_uri: string; receive_address: string }, value: string) {
    const token = /^ethereum:(0x[0-9a-fA-F]{40})@/.exec(invoice.qr_uri)![1];
    await listener.database.db
      .insertInto('base_transfers')
      .values({
        merchant_id: 'default', tx_hash: `0x${'ab'.repeat(32)}`, log_index: logIndex++, block_number: 7, block_hash: `0x${'cd'.repeat(32)}`,
        block_time: clock.now(), token_address: token, from_address: `0x${'11'.repeat(20)}`, to_address: invoice.receive_address,
        value, state: 'seen', invoice_id: null, detected_at: clock.now(),
      })
      .execute();
  }
  const setStatus = (invoiceId: string, status: string) =>
    listener.database.db.updateTable('invoices').set({ status }).where('invoice_id', '=', invoiceId).execute();

  test('Base xpub, partly paid: the view owes the rest, the QR code and the page ask for the rest only; covered: do not pay again', async () => {
    const invoice = await create({ chain: 'base', amount_usd: 20 });
    await transferSeen(invoice, '7250000');
    await setStatus(invoice.invoice_id, 'partial');

    const partial = await (await view(invoice.invoice_id)).json();
    CheckoutView.parse(partial);
    assert.equal(partial.amount_usdc, '20.000000', 'the invoice amount is unchanged');
    assert.equal(partial.amount_due, '12.750000');
    assert.equal(partial.qr_uri, invoice.qr_uri.replace('uint256=20000000', 'uint256=12750000'));
    const page = await (await fetch(`${listener.url}/pay/${invoice.invoice_id}`)).text();
    assert.match(page, /<h1 id="heading"[^>]*>Pay 12\.75 USDC<\/h1>/, 'the rest reads in cents');
    assert.match(page, /<code class="value" id="amount" aria-describedby="amount-note">12\.75<\/code>/);
    assert.match(page, /Send the remaining 12\.75 USDC to the same address\./);
    assert.match(page, /data-amount-due="12\.750000"/);
    assert.equal(partial.payment_seen, false);

    // The rest arrives (mined, confirmations pending): the watcher turns it back to pending.
    await transferSeen(invoice, '12750000');
    await setStatus(invoice.invoice_id, 'pending');
    const covered = await (await view(invoice.invoice_id)).json();
    assert.deepEqual([covered.status, covered.amount_due, covered.payment_seen], ['pending', '0.000000', true]);
    const coveredPage = await (await fetch(`${listener.url}/pay/${invoice.invoice_id}`)).text();
    assert.match(coveredPage, /data-state="seen"/);
    assert.match(coveredPage, /the Base network is confirming it, which takes about a minute\. This page turns to Paid by itself\. Do not pay again\./);
    assert.match(coveredPage, /<section class="pay" aria-label="Payment details" data-while-open hidden>/, 'no QR code invites a second payment');
  });

  test('Base fixed address: only a transfer of the exact amount reads as seen', async () => {
    const first = await create({ chain: 'base', amount_usd: 5, asset: 'usdt' });
    const second = await create({ chain: 'base', amount_usd: 5, asset: 'usdt' });
    assert.notEqual(first.amount_usdc_units, second.amount_usdc_units);
    await transferSeen(first, String(first.amount_usdc_units));
    const [paid, other] = await Promise.all([first, second].map(async (i) => (await view(i.invoice_id)).json()));
    assert.deepEqual([paid.payment_seen, paid.amount_due], [true, '0.000000']);
    assert.deepEqual([other.payment_seen, other.amount_due], [false, second.amount_usdc], "another invoice's payment at the shared address is not this one's");
  });

  test('an invoice past its expiry reads as expired in the view and on the page', async () => {
    const created = await create({ amount_sats: 1_000, expires_in: 60 });
    clock.advance(61_000);
    const body = await (await view(created.invoice_id)).json();
    assert.equal(body.status, 'expired');
    const page = await (await fetch(`${listener.url}/pay/${created.invoice_id}`)).text();
    assert.match(page, /data-state="expired"/);
    assert.match(page, /<div class="state state-expired" data-when="expired" data-final><h2>Expired<\/h2>/);
    assert.match(page, /<section class="pay" aria-label="Payment details" data-while-open hidden>/, 'no QR or address to pay into');
  });

  test('unknown invoice: JSON error envelope on the view, a readable 404 page on /pay', async () => {
    const res = await view('inv_doesNotExist');
    assert.equal(res.status, 404);
    assert.deepEqual(await res.json(), { error: { code: 'not_found', message: 'No such invoice.' } });
    const page = await fetch(`${listener.url}/pay/inv_doesNotExist`);
    assert.equal(page.status, 404);
    assert.equal(page.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.equal(page.headers.get('content-security-policy'), CHECKOUT_CSP);
    assert.match(await page.text(), /<h1>Invoice not found<\/h1>/);
  });

  test('the page: strict CSP and security headers, escaped shop name, no secrets, no inline code', async () => {
    const created = await create({ amount_sats: 50_000 });
    const res = await fetch(`${listener.url}/pay/${created.invoice_id}`);
    assert.equal(res.status, 200);
    const csp = res.headers.get('content-security-policy')!;
    assert.equal(csp, "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'");
    assert.equal(res.headers.get('x-frame-options'), 'DENY');
    assert.equal(res.headers.get('referrer-policy'), 'no-referrer');
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(res.headers.get('cache-control'), 'no-store');
    const html = await res.text();
    assert.ok(!html.includes('<script>alert'), 'shop name is escaped');
    assert.ok(html.includes('Dana&#39;s &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; Co'));
    for (const secret of [API_KEY, WEBHOOK_SECRET, BIP84_ZPUB, ACCOUNT_XPUB, "m/84'", 'derivation']) {
      assert.ok(!html.includes(secret), `page does not contain ${secret.slice(0, 12)}`);
    }
    assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/, 'every script is a file');
    assert.doesNotMatch(html, /<style|\sstyle=|\son[a-z]+=/i, 'no inline style or event handler');
    assert.doesNotMatch(html, /https?:\/\/(?!mempool\.space\/address\/|www\.w3\.org\/2000\/svg")/, 'no absolute URL other than the explorer link and the SVG namespace');
    assert.match(html, new RegExp(`data-view-url="/checkout/${created.invoice_id}"`));
  });

  test('script and stylesheet: hashed names, immutable caching, integrity matching the bytes', async () => {
    const created = await create({ amount_sats: 2_000 });
    const html = await (await fetch(`${listener.url}/pay/${created.invoice_id}`)).text();
    const tags = [...html.matchAll(/(?:href|src)="(\/pay\/assets\/[^"]+)" integrity="(sha384-[^"]+)"/g)];
    assert.equal(tags.length, 2);
    for (const [, path, integrity] of tags) {
      const res = await fetch(`${listener.url}${path}`);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('cache-control'), 'public, max-age=31536000, immutable');
      assert.match(res.headers.get('content-type')!, path.endsWith('.js') ? /^text\/javascript/ : /^text\/css/);
      const bytes = Buffer.from(await res.arrayBuffer());
      assert.equal(`sha384-${createHash('sha384').update(bytes).digest('base64')}`, integrity);
      assert.ok(path.includes(createHash('sha256').update(bytes).digest('hex').slice(0, 12)), 'name carries the content hash');
    }
    assert.equal((await fetch(`${listener.url}/pay/assets/checkout.js`)).status, 404);
  });
});

test('SHOP_NAME: default "Shop", 2-80 characters', () => {
  assert.equal(loadConfig({}, defaultChains).shopName, 'Shop');
  assert.equal(loadConfig({ SHOP_NAME: '  Dana Design  ' }, defaultChains).shopName, 'Dana Design');
  for (const bad of ['D', 'x'.repeat(81)]) {
    assert.throws(() => loadConfig({ SHOP_NAME: bad }, defaultChains), (error: ConfigError) => error.problems.some((p) => p === `SHOP_NAME must be 2-80 characters, got "${bad}"`));
  }
});
