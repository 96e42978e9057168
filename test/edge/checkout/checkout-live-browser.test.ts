import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { chromiumMissing, collectPageErrors, launchChromium } from '../../helpers/browser.ts';
import { startBtcWatchContext, testAccountKey, type BtcWatchContext } from '../../helpers/btc-chain.ts';
import { signupMerchant, startTestCloud } from '../../helpers/cloud.ts';
import { postJson } from '../../helpers/listener.ts';

/** Through the stream a change shows in well under a second; polling takes up to 5 s, plus a loaded machine's slack. */
const STREAM_MS = 4_000;
const POLL_MS = 15_000;

/** Reads the stream of `url`: `views` fills as events arrive, `ended` resolves when the server ends it. */
async function openStream(url: string) {
  const response = await fetch(url);
  const views: Array<Record<string, unknown>> = [];
  const ended = (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of response.body!) {
      buffer += decoder.decode(chunk as Uint8Array, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const message = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = /^data: (.*)$/m.exec(message);
        if (/^event: view$/m.test(message) && data) views.push(JSON.parse(data[1]!));
      }
    }
  })();
  return { type: response.headers.get('content-type'), views, ended };
}

describe('checkout view as Server-Sent Events', () => {
  let ctx: BtcWatchContext;
  before(async () => {
    ctx = await startBtcWatchContext('esplora');
  });
  after(async () => ctx?.close());

  test('sends the view at once, then on each change (payment seen, confirmed), and ends at a final status; an unknown invoice is the error envelope', async () => {
    const invoice = await ctx.createInvoice(30_000);
    await ctx.sync();
    const stream = await openStream(`${ctx.listener.url}/checkout/${invoice.invoice_id}/events`);
    assert.equal(stream.type, 'text/event-stream; charset=utf-8');
    // The first view is sent once the stream watches the invoice: only then is it paid.
    await waitUntil('the first view', () => stream.views.length === 1);
    assert.deepEqual([stream.views[0]!.status, stream.views[0]!.payment_seen], ['pending', false]);

    ctx.chain.pay([{ address: invoice.receive_address, value: 30_000n }]);
    await ctx.sync();
    await waitUntil('the payment seen', () => stream.views.length === 2);
    ctx.chain.mine(1);
    await ctx.sync();
    await stream.ended;
    assert.deepEqual(
      stream.views.map((view) => [view.status, view.payment_seen]),
      [['pending', false], ['pending', true], ['confirmed', false]],
      'each state once, and the stream ended after the final one',
    );

    const missing = await fetch(`${ctx.listener.url}/checkout/inv_missing/events`);
    assert.equal(missing.status, 404);
    assert.equal((await missing.json()).error.code, 'not_found');
  });
});

describe('Cloud serves the same stream at /api/v1/checkout/{id}/events', () => {
  test('the first view of a merchant invoice, CORS-open; an unknown invoice is not_found', async () => {
    const cloud = await startTestCloud({ env: { CLOUD_CHECKOUT_BASE_URL: 'https://pay.example.com' } });
    try {
      const merchant = await signupMerchant(cloud.url, { btc_xpub: testAccountKey(41) });
      const created = await postJson(`${cloud.url}/api/v1/invoice`, { amount_sats: 15_000, expires_in: 60 }, { 'x-service-api-key': merchant.api_key });
      assert.equal(created.status, 201, created.text);
      const response = await fetch(`${cloud.url}/api/v1/checkout/${created.json.invoice_id}/events`);
      assert.equal(response.headers.get('access-control-allow-origin'), '*');
      assert.equal(response.headers.get('content-type'), 'text/event-stream; charset=utf-8');
      const reader = response.body!.getReader();
      let text = '';
      while (!/\n\n$/.test(text) || !text.includes('event: view')) text += new TextDecoder().decode((await reader.read()).value);
      const view = JSON.parse(/^data: (.*)$/m.exec(text)![1]!);
      assert.deepEqual([view.invoice_id, view.status, view.shop_name], [created.json.invoice_id, 'pending', 'Test Shop']);
      await reader.cancel();
      const missing = await fetch(`${cloud.url}/api/v1/checkout/inv_missing/events`);
      assert.equal(missing.status, 404);
      assert.equal((await missing.json()).error.code, 'not_found');
    } finally {
      await cloud.stop();
    }
  });
});

describe('checkout page in Chromium: live status through the stream, polling when it is blocked', { skip: chromiumMissing }, () => {
  let browser: Browser;
  let ctx: BtcWatchContext;

  before(async () => {
    browser = await launchChromium();
    ctx = await startBtcWatchContext('esplora');
  });
  after(async () => {
    await browser?.close();
    await ctx?.close();
  });

  /** Opens an invoice's page and counts its reads of the JSON view (polls) and of the stream. */
  async function open(invoiceId: string, blockStream: boolean) {
    const page: Page = await browser.newPage();
    const errors = collectPageErrors(page);
    const viewPath = `/checkout/${invoiceId}`;
    const counts = { polls: 0, streams: 0 };
    page.on('request', (request) => {
      const path = new URL(request.url()).pathname;
      if (path === viewPath) counts.polls++;
      if (path === `${viewPath}/events`) counts.streams++;
    });
    if (blockStream) await page.route(`**${viewPath}/events`, (route) => route.abort('connectionrefused'));
    await page.goto(`${ctx.listener.url}/pay/${invoiceId}`);
    await page.evaluate(() => Object.assign(window, { loadedOnce: true }));
    return { page, errors, counts };
  }

  const payAndConfirm = async (invoice: { receive_address: string }, sats: bigint) => {
    ctx.chain.pay([{ address: invoice.receive_address, value: sats }]);
    ctx.chain.mine(1);
    await ctx.sync();
  };

  test('turns to Paid without a reload through the stream, without polling the view', async () => {
    const invoice = await ctx.createInvoice(25_000);
    const { page, errors, counts } = await open(invoice.invoice_id, false);
    await page.waitForFunction(() => document.querySelector('[data-view-url]') !== null);
    // The page has opened its stream (the server's first view arrived) before the payment.
    await waitUntil('the stream to open', () => counts.streams >= 1);
    await payAndConfirm(invoice, 25_000n);
    await page.locator('[data-when="confirmed"]').waitFor({ state: 'visible', timeout: STREAM_MS });
    assert.equal(await page.evaluate(() => (window as unknown as { loadedOnce?: boolean }).loadedOnce), true, 'same document: no reload');
    assert.equal(counts.polls, 0, 'the view was never polled');
    assert.equal(counts.streams, 1);
    await page.close();
    assert.deepEqual(errors, []);
  });

  test('with the stream blocked, turns to Paid through polling', async () => {
    const invoice = await ctx.createInvoice(26_000);
    const { page, counts } = await open(invoice.invoice_id, true);
    await waitUntil('the blocked stream to be tried', () => counts.streams >= 1);
    await payAndConfirm(invoice, 26_000n);
    await page.locator('[data-when="confirmed"]').waitFor({ state: 'visible', timeout: POLL_MS });
    assert.equal(await page.evaluate(() => (window as unknown as { loadedOnce?: boolean }).loadedOnce), true, 'same document: no reload');
    assert.ok(counts.polls >= 1, 'the view was polled');
    await page.close();
  });
});

describe('checkout page in Chromium under the stream bounds: refused, it polls; at a stream\'s lifetime, a new stream', { skip: chromiumMissing }, () => {
  let browser: Browser;
  let capped: BtcWatchContext;
  let shortLived: BtcWatchContext;

  before(async () => {
    browser = await launchChromium();
    capped = await startBtcWatchContext('esplora', { env: { CHECKOUT_STREAMS_PER_CLIENT: '1' } });
    shortLived = await startBtcWatchContext('esplora', { env: { CHECKOUT_STREAM_MAX_S: '1' } });
  });
  after(async () => {
    await browser?.close();
    await capped?.close();
    await shortLived?.close();
  });

  /** Opens the page; counts its polls of the view, and the statuses its stream requests got. */
  async function openPage(ctx: BtcWatchContext, invoiceId: string) {
    const page: Page = await browser.newPage();
    const errors = collectPageErrors(page);
    const viewPath = `/checkout/${invoiceId}`;
    const seen = { polls: 0, streams: [] as number[] };
    page.on('request', (request) => {
      if (new URL(request.url()).pathname === viewPath) seen.polls++;
    });
    page.on('response', (response) => {
      if (new URL(response.url()).pathname === `${viewPath}/events`) seen.streams.push(response.status());
    });
    await page.goto(`${ctx.listener.url}/pay/${invoiceId}`);
    await page.evaluate(() => Object.assign(window, { loadedOnce: true }));
    return { page, errors, seen };
  }

  const payAndConfirm = async (ctx: BtcWatchContext, invoice: { receive_address: string }, sats: bigint) => {
    ctx.chain.pay([{ address: invoice.receive_address, value: sats }]);
    ctx.chain.mine(1);
    await ctx.sync();
  };

  test('its address holds CHECKOUT_STREAMS_PER_CLIENT streams already: the page\'s stream is refused (429) and it turns to Paid through polling', async () => {
    const invoice = await capped.createInvoice(27_000);
    const held = await fetch(`${capped.listener.url}/checkout/${invoice.invoice_id}/events`);
    assert.equal(held.status, 200, 'the one stream this address may hold');
    try {
      const { page, seen } = await openPage(capped, invoice.invoice_id);
      await waitUntil('the page\'s stream to be refused', () => seen.streams.includes(429));
      await payAndConfirm(capped, invoice, 27_000n);
      await page.locator('[data-when="confirmed"]').waitFor({ state: 'visible', timeout: POLL_MS });
      assert.equal(await page.evaluate(() => (window as unknown as { loadedOnce?: boolean }).loadedOnce), true, 'same document: no reload');
      assert.ok(seen.polls >= 1, 'the view was polled');
      await page.close();
    } finally {
      await held.body?.cancel();
    }
  });

  test('a stream that reached CHECKOUT_STREAM_MAX_S is followed by a new one, never by polling, and the page turns to Paid through it', async () => {
    const invoice = await shortLived.createInvoice(28_000);
    const { page, errors, seen } = await openPage(shortLived, invoice.invoice_id);
    await waitUntil('two reconnections', () => seen.streams.length >= 3, 20_000);
    await payAndConfirm(shortLived, invoice, 28_000n);
    await page.locator('[data-when="confirmed"]').waitFor({ state: 'visible', timeout: POLL_MS });
    assert.ok(seen.streams.every((status) => status === 200), String(seen.streams));
    assert.equal(seen.polls, 0, 'the view was never polled');
    await page.close();
    assert.deepEqual(errors, []);
  });
});

async function waitUntil(what: string, done: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`${what}: not reached after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
