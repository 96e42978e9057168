import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { BtcInvoice, BtcInvoiceCreated, CheckoutView, ErrorEnvelope, InvoiceConfirmedEvent } from '../../shared/index.ts';
import { chromiumMissing, collectPageErrors, launchChromium } from '../helpers/browser.ts';
import { startBtcWatchContext, type BtcWatchContext } from '../helpers/btc-chain.ts';
import { postJson, startTestListener } from '../helpers/listener.ts';
import type { RunningListener } from '../../listener/app.ts';

const order = {
  order_id: 'ORD-2026-0042',
  metadata: { customer: 'c_981', cart: 'a'.repeat(500), ['k'.repeat(40)]: 'longest key' },
  memo: 'Two mugs, one teapot',
  redirect_url: 'https://shop.example/orders/ORD-2026-0042/thanks?x=1',
};
const orderFields = (answer: Record<string, unknown>) => ({
  order_id: answer.order_id,
  metadata: answer.metadata,
  memo: answer.memo,
  redirect_url: answer.redirect_url,
});

const invoiceCount = async (listener: RunningListener) =>
  Number((await listener.database.db.selectFrom('invoices').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);

/** Each refused body: its 400 bad_body names the field, and nothing is stored. */
async function assertRefused(listener: RunningListener, body: Record<string, unknown>, names: string, headers: Record<string, string> = {}) {
  const before = await invoiceCount(listener);
  const answer = await postJson(`${listener.url}/invoice`, body, headers);
  assert.equal(answer.status, 400, answer.text);
  const { error } = ErrorEnvelope.parse(answer.json);
  assert.equal(error.code, 'bad_body', answer.text);
  assert.match(error.message, new RegExp(names), answer.text);
  assert.equal(await invoiceCount(listener), before, `${answer.text}: nothing stored`);
}

describe('order fields on a listener (Bitcoin, local regtest chain)', () => {
  let ctx: BtcWatchContext;
  before(async () => {
    ctx = await startBtcWatchContext('esplora');
  });
  after(async () => ctx?.close());

  test('every bound and bad value gets bad_body naming the field and creates nothing', async (t) => {
    const base = { amount_sats: 10_000 };
    const twentyOne = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v']));
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['order_id over 128 characters', { order_id: 'o'.repeat(129) }, 'order_id'],
      ['empty order_id', { order_id: '' }, 'order_id'],
      ['order_id with a line break', { order_id: 'ORD-1\nforged log line' }, 'order_id'],
      ['order_id not a string', { order_id: 42 }, 'order_id'],
      ['21 metadata keys', { metadata: twentyOne }, 'metadata'],
      ['nested metadata', { metadata: { cart: { sku: 'mug' } } }, 'metadata\\.cart'],
      ['metadata number value', { metadata: { qty: 2 } }, 'metadata\\.qty'],
      ['metadata null value', { metadata: { qty: null } }, 'metadata\\.qty'],
      ['metadata array', { metadata: ['a'] }, 'metadata'],
      ['metadata key over 40 characters', { metadata: { ['k'.repeat(41)]: 'v' } }, 'metadata'],
      ['metadata value over 500 characters', { metadata: { note: 'v'.repeat(501) } }, 'metadata\\.note'],
      ['metadata key __proto__', JSON.parse('{"metadata":{"__proto__":"x"}}'), 'metadata'],
      ['memo over 200 characters', { memo: 'm'.repeat(201) }, 'memo'],
      ['redirect_url over 2000 characters', { redirect_url: `https://shop.example/${'p'.repeat(2000)}` }, 'redirect_url'],
      ['redirect_url not a URL', { redirect_url: 'shop.example/thanks' }, 'redirect_url'],
      ['redirect_url javascript:', { redirect_url: 'javascript:alert(1)' }, 'redirect_url'],
      ['redirect_url http to a public host', { redirect_url: 'http://shop.example/thanks' }, 'redirect_url'],
      ['redirect_url with a password', { redirect_url: 'https://user:pass@shop.example/thanks' }, 'redirect_url'],
      ['redirect_url with a line break', { redirect_url: 'https://shop.example/th\nanks' }, 'redirect_url'],
      ['an unknown field', { orderId: 'ORD-1' }, 'orderId'],
      ['an unknown field beside known ones', { ...order, return_url: 'https://shop.example' }, 'return_url'],
    ];
    for (const [what, extra, names] of cases) {
      await t.test(what, () => assertRefused(ctx.listener, { ...base, ...extra }, names));
    }
  });

  test('the fields come back on create and read, are the BIP-21 label (memo), and every webhook carries them; the view gives the return link only once paid', async () => {
    const created = await postJson(`${ctx.listener.url}/invoice`, { amount_sats: 40_000, ...order });
    assert.equal(created.status, 201, created.text);
    const invoice = BtcInvoiceCreated.strict().parse(created.json);
    assert.deepEqual(orderFields(invoice), order);
    assert.match(invoice.qr_uri, /&label=Two%20mugs%2C%20one%20teapot$/);
    const read = async () => BtcInvoice.strict().parse(await (await fetch(`${ctx.listener.url}/invoice/${invoice.invoice_id}`)).json());
    assert.deepEqual(orderFields(await read()), order);
    const view = async () => CheckoutView.parse(await (await fetch(`${ctx.listener.url}/checkout/${invoice.invoice_id}`)).json());
    assert.equal((await view()).memo, order.memo);
    assert.equal((await view()).redirect_url, null, 'no return link while unpaid');

    await ctx.sync();
    ctx.chain.pay([{ address: invoice.receive_address, value: 40_000n }]);
    await ctx.sync();
    assert.equal((await view()).redirect_url, null, 'no return link while the payment only is seen');
    ctx.chain.mine(1);
    await ctx.sync();
    assert.equal((await read()).status, 'confirmed');
    assert.equal((await view()).redirect_url, order.redirect_url);
    const events = (await ctx.events()).filter((e) => e.invoice_id === invoice.invoice_id);
    assert.deepEqual(events.map((e) => e.event), ['invoice.confirmed']);
    for (const event of events) assert.deepEqual(orderFields(InvoiceConfirmedEvent.parse(event)), order);
  });

  test('an invoice without them answers null everywhere (metadata too), and so does its webhook', async () => {
    const invoice = (await postJson(`${ctx.listener.url}/invoice`, { amount_sats: 41_000 })).json;
    const none = { order_id: null, metadata: null, memo: null, redirect_url: null };
    assert.deepEqual(orderFields(invoice), none);
    await ctx.sync();
    ctx.chain.pay([{ address: invoice.receive_address, value: 41_000n }]);
    ctx.chain.mine(1);
    await ctx.sync();
    const [event] = (await ctx.events('invoice.confirmed')).filter((e) => e.invoice_id === invoice.invoice_id);
    assert.deepEqual(orderFields(event!), none);
    assert.equal(CheckoutView.parse(await (await fetch(`${ctx.listener.url}/checkout/${invoice.invoice_id}`)).json()).redirect_url, null);
  });

  test('the bounds themselves are accepted: 128-character order_id, 20 keys, loopback http outside production', async () => {
    const twenty = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, 'v'.repeat(500)]));
    for (const redirect_url of ['http://localhost:3000/thanks', 'http://127.0.0.1/thanks', 'http://[::1]:8080/']) {
      const answer = await postJson(`${ctx.listener.url}/invoice`, { amount_sats: 1_000, order_id: 'o'.repeat(128), metadata: twenty, redirect_url });
      assert.equal(answer.status, 201, answer.text);
      assert.equal(answer.json.redirect_url, redirect_url);
      assert.deepEqual(answer.json.metadata, twenty);
    }
  });

  describe('the return link in Chromium', { skip: chromiumMissing }, () => {
    let browser: Browser;
    before(async () => {
      browser = await launchChromium();
    });
    after(async () => browser?.close());

    test('the page shows "Return to <shop>" only once paid, appearing without a reload', async () => {
      const invoice = (await postJson(`${ctx.listener.url}/invoice`, { amount_sats: 42_000, ...order })).json;
      await ctx.sync();
      const page = await browser.newPage();
      const errors = collectPageErrors(page);
      await page.goto(`${ctx.listener.url}/pay/${invoice.invoice_id}`);
      await page.evaluate(() => Object.assign(window, { loadedOnce: true }));
      const link = page.locator('#return-link');
      assert.equal(await link.isVisible(), false, 'hidden while unpaid');
      assert.equal(await link.getAttribute('href'), null, 'and the page does not even know where it goes');
      assert.equal(await page.locator('#memo').textContent(), `Memo: ${order.memo}`);

      ctx.chain.pay([{ address: invoice.receive_address, value: 42_000n }]);
      await ctx.sync();
      await page.locator('[data-when="seen"]').waitFor({ state: 'visible', timeout: 15_000 });
      assert.equal(await link.isVisible(), false, 'hidden while the payment confirms');
      ctx.chain.mine(1);
      await ctx.sync();
      await link.waitFor({ state: 'visible', timeout: 15_000 });
      assert.equal(await link.textContent(), 'Return to Shop');
      assert.equal(await link.getAttribute('href'), order.redirect_url);
      assert.equal(await page.evaluate(() => (window as unknown as { loadedOnce?: boolean }).loadedOnce), true, 'same document: no reload');

      // A paid invoice's page, loaded afresh, has the link from the server.
      await page.reload();
      assert.equal(await page.locator('#return-link').getAttribute('href'), order.redirect_url);
      assert.equal(await page.locator('#return-link').isVisible(), true);
      await page.close();
      assert.deepEqual(errors, []);
    });
  });
});

describe('order fields on a production listener', () => {
  const API_KEY = 'prod-api-key-0123456789abcdef';
  let listener: RunningListener;
  before(async () => {
    listener = await startTestListener({ env: { NODE_ENV: 'production', SERVICE_API_KEY: API_KEY } });
  });
  after(async () => listener?.stop());
  const auth = { 'X-Service-Api-Key': API_KEY };

  test('a plain-http return link is refused, even to a loopback host; https is taken', async () => {
    for (const redirect_url of ['http://localhost:3000/thanks', 'http://127.0.0.1/thanks', 'http://[::1]/']) {
      await assertRefused(listener, { amount_sats: 1_000, redirect_url }, 'redirect_url: must be https', auth);
    }
    const answer = await postJson(`${listener.url}/invoice`, { amount_sats: 1_000, redirect_url: 'https://shop.example/thanks' }, auth);
    assert.equal(answer.status, 201, answer.text);
    assert.equal(answer.json.redirect_url, 'https://shop.example/thanks');
  });
});
