import { after, before, describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, mkdirSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { RunningListener } from '../../../listener/app.ts';
import { CHECKOUT_CSP } from '../../../edge/checkout/routes.ts';
import { artifactsDir, chromiumMissing, collectPageErrors, decodeQr as decodeDrawnQr, horizontalOverflow, launchChromium, saveScreenshot } from '../../helpers/browser.ts';
import { payeeOf, startBtcWatchContext, testAccountKey, type BtcWatchContext } from '../../helpers/btc-chain.ts';
import { getJson, signupMerchant, startLocalChainCloud } from '../../helpers/cloud.ts';
import { waitForWatcher } from '../../helpers/wait-for-watcher.ts';
import { ACCOUNT_XPUB, FIXED_ADDRESS } from '../../helpers/evm-chain.ts';
import { postJson, startTestListener } from '../../helpers/listener.ts';

const PHONE = { viewport: { width: 360, height: 740 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };
/** The page polls every 5 s; two polls and some slack. */
const LIVE_UPDATE_MS = 15_000;

interface CreatedBtcInvoice {
  invoice_id: string;
  receive_address: string;
  amount_btc: string;
  qr_uri: string;
}

describe('checkout page in Chromium', { skip: chromiumMissing }, () => {
  let browser: Browser;
  let chain: BtcWatchContext;
  let context: BrowserContext;
  const pageErrors: string[] = [];

  before(async () => {
    browser = await launchChromium();
    chain = await startBtcWatchContext('esplora');
    context = await browser.newContext();
  });
  after(async () => {
    await context?.close();
    await browser?.close();
    await chain?.close();
  });

  const createInvoice = async (amountSats: number, expiresInS?: number) =>
    (await chain.createInvoice(amountSats, expiresInS)) as unknown as CreatedBtcInvoice;

  /** Opens an invoice's page, checks the document's CSP header, and records the page's errors. */
  async function openPage(invoiceId: string, on: BrowserContext = context): Promise<Page> {
    const page = await on.newPage();
    const errors = collectPageErrors(page);
    page.on('close', () => pageErrors.push(...errors));
    const response = await page.goto(`${chain.listener.url}/pay/${invoiceId}`);
    assert.equal(response?.status(), 200);
    assert.equal(response?.headers()['content-security-policy'], CHECKOUT_CSP);
    return page;
  }

  const decodeQr = (page: Page) => decodeDrawnQr(page.locator('.qr [role="img"] svg'));

  test('a Bitcoin invoice: shop name, exact amount, a QR code that decodes to qr_uri, a running countdown', async () => {
    const invoice = await createInvoice(50_000);
    const page = await openPage(invoice.invoice_id);
    assert.equal(await page.locator('.shop').textContent(), 'Shop');
    assert.equal(await page.locator('h1').textContent(), 'Pay 0.00050000 BTC');
    assert.equal(await page.locator('#amount').textContent(), invoice.amount_btc);
    assert.equal(await page.locator('#address').textContent(), invoice.receive_address);
    assert.equal(await page.locator('[data-when="pending"]').isVisible(), true);
    assert.equal(await page.locator('[data-when="pending"] h2').textContent(), 'Waiting for payment');
    assert.equal(await decodeQr(page), invoice.qr_uri, 'the QR code as rendered decodes to the invoice URI');
    assert.equal(await page.locator('.qr a').getAttribute('href'), invoice.qr_uri);
    assert.equal(await page.locator('#countdown-label').textContent(), 'Time left to pay:');
    // The listener's clock stands still in this test: an hour left, by the server's clock, not the browser's.
    assert.match((await page.locator('#countdown').textContent())!, /^(1:00:00|59:[0-5]\d)$/);
    await saveScreenshot(page, 'checkout-btc-pending');
    await page.close();
  });

  test('paid on the local regtest chain: partly paid (asks for the rest), payment seen, then confirmed with the transaction link, without a reload', async () => {
    const invoice = await createInvoice(50_000);
    await chain.sync();
    const page = await openPage(invoice.invoice_id);

    chain.chain.pay([{ address: invoice.receive_address, value: 20_000n }]);
    chain.chain.mine(1);
    await chain.sync();
    // The page is rendered once more when part of the amount arrives, so its QR code asks for the rest.
    await page.locator('[data-when="partial"]').waitFor({ state: 'visible', timeout: LIVE_UPDATE_MS });
    assert.equal(await page.locator('[data-when="pending"]').isVisible(), false);
    assert.equal(await page.locator('.pay').isVisible(), true, 'still shows where to send the rest');
    assert.equal(await page.locator('h1').textContent(), 'Pay 0.00030000 BTC');
    assert.equal(await page.locator('#amount').textContent(), '0.00030000');
    assert.match((await page.locator('[data-when="partial"]').textContent())!, /Send the remaining 0\.00030000 BTC to the same address\./);
    assert.equal(await decodeQr(page), invoice.qr_uri.replace('amount=0.0005', 'amount=0.0003'), 'the QR code asks for the rest only');
    await saveScreenshot(page, 'checkout-btc-partial');
    let navigations = 0;
    page.on('framenavigated', () => navigations++);
    await page.evaluate(() => Object.assign(window, { loadedOnce: true }));

    const txid = chain.chain.pay([{ address: invoice.receive_address, value: 30_000n }]);
    await chain.sync();
    const view = await (await fetch(`${chain.listener.url}/checkout/${invoice.invoice_id}`)).json();
    assert.deepEqual([view.status, view.payment_seen], ['pending', true], 'covered in the mempool, not yet confirmed');
    await page.locator('[data-when="seen"]').waitFor({ state: 'visible', timeout: LIVE_UPDATE_MS });
    assert.match((await page.locator('[data-when="seen"]').textContent())!, /Do not pay again\./);
    assert.equal(await page.locator('h1').textContent(), 'Payment of 0.00050000 BTC received', 'no heading asks to pay again');
    assert.equal(await page.locator('.pay').isVisible(), false, 'no QR code invites a second payment');
    await saveScreenshot(page, 'checkout-btc-seen');

    chain.chain.mine(1);
    await chain.sync();
    await page.locator('[data-when="confirmed"]').waitFor({ state: 'visible', timeout: LIVE_UPDATE_MS });
    const txLink = page.locator('[data-field="tx_url"]');
    assert.equal(await txLink.textContent(), txid);
    assert.equal(await txLink.getAttribute('href'), `http://127.0.0.1:8787/explorer/tx/${txid}`);
    assert.equal(await page.locator('.pay').isVisible(), false, 'nothing left to pay: no QR, no address');
    assert.equal((await page.locator('[role="status"]').innerText()).replace(/\s+/g, ' '), `Paid Your payment is confirmed. Thank you! Transaction: ${txid}`);
    assert.equal(await page.locator('h1').textContent(), 'Paid 0.00050000 BTC', 'the heading turns to Paid with the status');
    assert.equal(await page.title(), 'Paid 0.00050000 BTC · Shop');
    assert.equal(navigations, 0, 'no navigation happened');
    assert.equal(await page.evaluate(() => (window as unknown as { loadedOnce?: boolean }).loadedOnce), true, 'same document');
    await saveScreenshot(page, 'checkout-btc-confirmed');
    await page.close();
  });

  test('an expired invoice, opened after expiry and while open', async () => {
    const old = await createInvoice(10_000, 60);
    const open = await createInvoice(10_000, 60);
    const watching = await openPage(open.invoice_id);
    assert.match((await watching.locator('#countdown').textContent())!, /^(1:00|0:[0-5]\d)$/);
    chain.clock.advance(61_000);
    // The page's countdown runs on the server's clock, so the expiry shows on its next poll.
    await watching.locator('[data-when="expired"]').waitFor({ state: 'visible', timeout: LIVE_UPDATE_MS });
    assert.equal(await watching.locator('.pay').isVisible(), false);
    await watching.close();

    const page = await openPage(old.invoice_id);
    assert.equal(await page.locator('[data-when="expired"] h2').textContent(), 'Expired');
    assert.equal(await page.locator('.qr').isVisible(), false, 'no QR code to pay an expired invoice');
    assert.equal(await page.locator('#address').isVisible(), false);
    await saveScreenshot(page, 'checkout-btc-expired');
    await page.close();
  });

  test('phone-sized viewport: no horizontal scroll, QR code at least 200 px wide', async () => {
    const phone = await browser.newContext(PHONE);
    try {
      const invoice = await createInvoice(123_456_789);
      const page = await openPage(invoice.invoice_id, phone);
      const { scrollWidth, innerWidth } = await page.evaluate(() => ({
        scrollWidth: document.documentElement.scrollWidth,
        innerWidth: window.innerWidth,
      }));
      assert.equal(innerWidth, 360);
      assert.ok(scrollWidth <= innerWidth, `page is ${scrollWidth}px wide in a ${innerWidth}px viewport`);
      const qr = (await page.locator('.qr svg').boundingBox())!;
      assert.ok(qr.width >= 200 && qr.x >= 0 && qr.x + qr.width <= 360, `QR at x=${qr.x}, ${qr.width}px wide`);
      const copy = (await page.locator('[data-copy="address"]').boundingBox())!;
      assert.ok(copy.height >= 36, 'copy button is a comfortable touch target');
      assert.equal(await decodeQr(page), invoice.qr_uri);
      await saveScreenshot(page, 'checkout-btc-phone');
      await page.close();
    } finally {
      await phone.close();
    }
  });

  test('keyboard: Tab reaches the copy buttons with a visible focus ring; Enter copies the exact address', async () => {
    const invoice = await createInvoice(75_000);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: chain.listener.url });
    const page = await openPage(invoice.invoice_id);
    const order: string[] = [];
    for (let i = 0; i < 10 && !order.includes('Copy address'); i++) {
      await page.keyboard.press('Tab');
      order.push(await page.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.textContent ?? ''));
    }
    assert.deepEqual(order, ['Copy amount', 'Copy address'], 'the copy buttons are the first stops');
    const ring = await page.evaluate(() => {
      const style = getComputedStyle(document.activeElement!);
      return { style: style.outlineStyle, width: style.outlineWidth };
    });
    assert.deepEqual(ring, { style: 'solid', width: '3px' });
    await saveScreenshot(page, 'checkout-btc-keyboard-focus');
    await page.keyboard.press('Enter');
    await page.locator('[data-copy="address"]', { hasText: 'Copied' }).waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), invoice.receive_address);
    assert.equal(await page.locator('#copy-note').textContent(), `Copied the address: ${invoice.receive_address}`);
    await page.close();
  });

  test('page weight: the HTML (with its QR SVG), one stylesheet and one script, nothing else', async (t: TestContext) => {
    const invoice = await createInvoice(50_000);
    const page = await context.newPage();
    const errors = collectPageErrors(page);
    const bodies: { url: string; type: string; bytes: number; gzip: number }[] = [];
    page.on('response', async (response) => {
      const body = await response.body().catch(() => Buffer.alloc(0));
      bodies.push({ url: new URL(response.url()).pathname, type: response.headers()['content-type'] ?? '', bytes: body.length, gzip: gzipSync(body).length });
    });
    await page.goto(`${chain.listener.url}/pay/${invoice.invoice_id}`, { waitUntil: 'networkidle' });
    const html = await (await fetch(`${chain.listener.url}/pay/${invoice.invoice_id}`)).text();
    const svg = /<svg[\s\S]*<\/svg>/.exec(html)![0];
    await page.close();
    assert.deepEqual(errors, []);
    const byKind = (pattern: RegExp) => bodies.filter((b) => pattern.test(b.type));
    const [doc] = byKind(/text\/html/);
    const [css] = byKind(/text\/css/);
    const [js] = byKind(/javascript/);
    assert.ok(doc && css && js, JSON.stringify(bodies));
    const others = bodies.filter((b) => ![doc, css, js].includes(b) && !(b.url === '/favicon.ico' && b.bytes === 0));
    assert.deepEqual(others, [], 'no other request (no fonts, images or third-party scripts)');
    const weight = {
      html_bytes: doc.bytes,
      qr_svg_bytes_in_html: Buffer.byteLength(svg),
      css_bytes: css.bytes,
      js_bytes: js.bytes,
      total_bytes: doc.bytes + css.bytes + js.bytes,
      total_gzip_bytes: doc.gzip + css.gzip + js.gzip,
      requests: 3,
    };
    t.diagnostic(`page weight: ${JSON.stringify(weight)}`);
    mkdirSync(artifactsDir, { recursive: true });
    writeFileSync(`${artifactsDir}checkout-page-weight.json`, `${JSON.stringify(weight, null, 2)}\n`);
    assert.ok(weight.total_bytes < 25_000, `page is ${weight.total_bytes} bytes: keep it light`);
  });

  test('no console errors, warnings or CSP violations on any page opened above', () => {
    assert.deepEqual(pageErrors, []);
  });
});

describe('Base fixed-address checkout page in Chromium', { skip: chromiumMissing }, () => {
  let browser: Browser;
  let listener: RunningListener;
  before(async () => {
    browser = await launchChromium();
    listener = await startTestListener({
      env: {
        SHOP_NAME: 'Dana Design',
        MERCHANT_BASE_XPUB: ACCOUNT_XPUB,
        MERCHANT_BASE_ADDRESS: FIXED_ADDRESS,
        MERCHANT_EVM_TOKENS: 'usdc,usdt',
        BASE_RPC_URL: 'http://127.0.0.1:9', BASE_MIN_SOURCES: '1',
      },
    });
  });
  after(async () => {
    await browser?.close();
    await listener?.stop();
  });

  test('USDT invoice on a phone: the exact amount with its note, the EIP-681 QR code', async () => {
    const created = await postJson(`${listener.url}/invoice`, { chain: 'base', amount_usd: 12.34, asset: 'usdt' });
    assert.equal(created.status, 201, created.text);
    const phone = await browser.newContext(PHONE);
    try {
      const page = await phone.newPage();
      const errors = collectPageErrors(page);
      await page.goto(`${listener.url}/pay/${created.json.invoice_id}`);
      assert.equal(await page.locator('h1').textContent(), `Pay ${created.json.amount_usdc} USDT`);
      assert.equal(await page.locator('#amount').textContent(), created.json.amount_usdc);
      assert.equal(await page.locator('#network').textContent(), 'USDT on Base (not Ethereum mainnet)');
      assert.equal(await page.locator('#network-note').count(), 0, 'a mainnet carries no test-network note');
      const note = page.locator('#amount-note');
      assert.equal(await note.isVisible(), true);
      assert.match((await note.textContent())!, new RegExp(`^Send exactly ${created.json.amount_usdc.replace('.', '\\.')} USDT\\.`));
      assert.equal(
        await page.evaluate(() => document.getElementById('amount')!.getAttribute('aria-describedby')),
        'amount-note',
        'screen readers hear the note with the amount',
      );
      assert.equal(await decodeDrawnQr(page.locator('.qr [role="img"] svg')), created.json.qr_uri);
      const scroll = await page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(scroll <= 360, `page is ${scroll}px wide`);
      await saveScreenshot(page, 'checkout-usdt-fixed-phone');
      assert.deepEqual(errors, []);
    } finally {
      await phone.close();
    }
  });
});

type CheckoutState = 'pending' | 'partial' | 'confirmed' | 'expired';

/** One edition's checkout pages, one invoice in each state, all for 0.0005 BTC with a memo. */
interface Edition {
  name: 'listener' | 'cloud';
  network: string;
  pages: Record<CheckoutState, string>;
  close(): Promise<void>;
}

const SHOP = 'Corner Shop';
const MEMO = 'Order 2002 — 3 × espresso';
const SIZES = [
  { name: 'desktop', options: { viewport: { width: 1280, height: 800 } } },
  { name: 'phone', options: { viewport: { width: 375, height: 667 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true } },
] as const;
/** What the heading (and, with the shop, the title) says in each state. */
const HEADINGS: Record<CheckoutState, string> = {
  pending: 'Pay 0.00050000 BTC',
  partial: 'Pay 0.00030000 BTC',
  confirmed: 'Paid 0.00050000 BTC',
  expired: 'Expired: 0.00050000 BTC not paid',
};

/** The listener on the local regtest chain: partly paid, paid, and expired by its manual clock. */
async function listenerEdition(): Promise<Edition> {
  const context = await startBtcWatchContext('esplora', { env: { SHOP_NAME: SHOP } });
  const create = async (expiresIn?: number) => {
    const created = await postJson(`${context.listener.url}/invoice`, { amount_sats: 50_000, memo: MEMO, ...(expiresIn ? { expires_in: expiresIn } : {}) });
    assert.equal(created.status, 201, created.text);
    return created.json as CreatedBtcInvoice;
  };
  const [pending, partial, confirmed, expired] = [await create(), await create(), await create(), await create(60)];
  await context.sync();
  context.chain.pay([{ address: partial.receive_address, value: 20_000n }]);
  context.chain.pay([{ address: confirmed.receive_address, value: 50_000n }]);
  context.chain.mine(1);
  await context.sync();
  context.clock.advance(61_000);
  const states = await Promise.all([pending, partial, confirmed, expired].map(async (i) => (await context.invoice(i.invoice_id)).status));
  assert.deepEqual(states, ['pending', 'partial', 'confirmed', 'expired']);
  const page = (i: CreatedBtcInvoice) => `${context.listener.url}/pay/${i.invoice_id}`;
  return {
    name: 'listener',
    network: 'Bitcoin regtest — sandbox, not real bitcoin',
    pages: { pending: page(pending), partial: page(partial), confirmed: page(confirmed), expired: page(expired) },
    close: () => context.close(),
  };
}

/** Cloud watching the local chain; its merchant's key is a testnet one, so its pages say testnet. */
async function cloudEdition(): Promise<Edition> {
  const local = await startLocalChainCloud();
  const { cloud, chain } = local;
  const merchant = await signupMerchant(cloud.url, { btc_xpub: testAccountKey(41), shop_name: SHOP });
  const key = { 'X-Service-Api-Key': merchant.api_key };
  const create = async (expiresIn?: number) => {
    const created = await postJson(`${cloud.url}/api/v1/invoice`, { amount_sats: 50_000, memo: MEMO, ...(expiresIn ? { expires_in: expiresIn } : {}) }, key);
    assert.equal(created.status, 201, created.text);
    return created.json as CreatedBtcInvoice & { checkout_url: string };
  };
  const [pending, partial, confirmed, expired] = [await create(), await create(), await create(), await create(1)];
  await waitForWatcher(
    'the leader watches the merchant',
    async () => (await cloud.database.db.selectFrom('btc_blocks').select('merchant_id').distinct().execute()).length,
    (n) => n === 1,
    { watcher: local.watcher },
  );
  chain.pay([{ ...payeeOf(partial.receive_address), value: 20_000n }]);
  chain.pay([{ ...payeeOf(confirmed.receive_address), value: 50_000n }]);
  chain.mine(1);
  const statusOf = (id: string) => async () => (await getJson(`${cloud.url}/api/v1/checkout/${id}`)).json.status as string;
  await waitForWatcher('the part payment', statusOf(partial.invoice_id), (s) => s === 'partial', { watcher: local.watcher });
  await waitForWatcher('the full payment', statusOf(confirmed.invoice_id), (s) => s === 'confirmed', { watcher: local.watcher });
  await waitForWatcher('the one-second invoice to expire', statusOf(expired.invoice_id), (s) => s === 'expired', { watcher: local.watcher });
  return {
    name: 'cloud',
    network: 'Bitcoin testnet — test coins, not real bitcoin',
    pages: { pending: pending.checkout_url, partial: partial.checkout_url, confirmed: confirmed.checkout_url, expired: expired.checkout_url },
    close: () => local.close(),
  };
}

describe('checkout pages of both editions at desktop and phone sizes: pending, partly paid, paid, expired', { skip: chromiumMissing }, () => {
  let browser: Browser;
  const editions: Edition[] = [];
  before(async () => {
    browser = await launchChromium();
    editions.push(await listenerEdition(), await cloudEdition());
  });
  after(async () => {
    await browser?.close();
    for (const edition of editions) await edition.close();
  });

  for (const editionName of ['listener', 'cloud'] as const) {
    for (const size of SIZES) {
      test(`${editionName}, ${size.name} (${size.options.viewport.width}×${size.options.viewport.height}): no sideways scrolling, the network named, the memo, a title and heading per state, the address in groups beside its copy button`, async () => {
        const edition = editions.find((e) => e.name === editionName)!;
        const context = await browser.newContext(size.options);
        try {
          for (const state of ['pending', 'partial', 'confirmed', 'expired'] as const) {
            const page = await context.newPage();
            const errors = collectPageErrors(page);
            await page.goto(edition.pages[state]);
            const where = `${edition.name} ${size.name} ${state}`;
            assert.equal(await page.locator('main').getAttribute('data-state'), state, where);
            assert.equal(await horizontalOverflow(page), null, `${where}: no sideways scrolling`);
            assert.equal(await page.locator('h1').textContent(), HEADINGS[state], where);
            assert.equal(await page.title(), `${HEADINGS[state]} · ${SHOP}`, where);
            assert.equal(await page.locator('#network-note').textContent(), edition.network, `${where}: the test network is named in every state`);
            assert.equal(await page.locator('#memo').textContent(), `Memo: ${MEMO}`, where);
            assert.equal(await page.locator('#memo').isVisible(), true);
            if (state === 'pending' || state === 'partial') {
              assert.equal(await page.locator('#network').textContent(), edition.network, where);
              const address = (await page.locator('#address').textContent())!;
              const groups = await page.locator('#address .group').allTextContents();
              assert.equal(groups.join(''), address, 'the groups are the address, without spaces');
              assert.ok(groups.every((g) => g.length <= 4) && groups.length === Math.ceil(address.length / 4), groups.join(' '));
              const width = size.options.viewport.width;
              const boxes = await page.locator('#address .group').evaluateAll((els) => els.map((el) => el.getBoundingClientRect().toJSON() as DOMRect));
              assert.ok(boxes.every((b) => b.right <= width), `${where}: every group inside the viewport`);
              const addressBox = (await page.locator('#address').boundingBox())!;
              const copy = (await page.locator('[data-copy="address"]').boundingBox())!;
              assert.ok(Math.abs(copy.y - addressBox.y) <= 4, `${where}: the copy button's top (${copy.y}) is level with the address's (${addressBox.y})`);
              assert.ok(addressBox.x + addressBox.width <= copy.x && copy.x + copy.width <= width, `${where}: the button is beside the address, inside the viewport`);
              assert.match((await page.locator('#expires-at').textContent())!, /\d\d:\d\d/, `${where}: the expiry as a clock time`);
              assert.equal(await page.locator('#countdown').isVisible(), true);
              assert.match((await page.locator('#countdown').textContent())!, /^\d+:\d\d(:\d\d)?$/, `${where}: and the countdown`);
            } else {
              assert.equal(await page.locator('.pay').isVisible(), false, `${where}: nothing to pay into`);
            }
            // Every state on a phone for the listener, the waiting page on a desktop for both.
            if (size.name === 'phone' ? edition.name === 'listener' : state === 'pending') await saveScreenshot(page, `checkout-${edition.name}-${state}-${size.name}`);
            await page.close();
            assert.deepEqual(errors, [], where);
          }
        } finally {
          await context.close();
        }
      });
    }
  }

  test("the expiry in the payer's own time zone, beside the UTC time the page is written with", async () => {
    const edition = editions.find((e) => e.name === 'listener')!;
    const html = await (await fetch(edition.pages.pending)).text();
    assert.match(html, /Pay before <time id="expires-at" datetime="2026-01-01T01:00:00\.000Z">01:00 UTC, 2026-01-01<\/time>/);
    const context = await browser.newContext({ timezoneId: 'America/New_York', locale: 'en-US' });
    try {
      const page = await context.newPage();
      await page.goto(edition.pages.pending);
      assert.match((await page.locator('#expires-at').textContent())!, /^Dec 31, 08:00\sPM\sEST$/u);
      assert.match((await page.locator('.expiry').innerText()).replace(/\s+/g, ' '), /^Pay before Dec 31, 08:00 PM EST · Time left to pay: \d+:\d\d$/);
    } finally {
      await context.close();
    }
  });
});
