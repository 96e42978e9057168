import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import Router from '@koa/router';
import bolt11 from 'bolt11';
import Koa from 'koa';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { defaultChains } from '../../../core/chains/default-chains.ts';
import { silentLogger } from '../../../core/log.ts';
import { checkoutRoutes } from '../../../edge/checkout/routes.ts';
import { BtcCheckoutView, type CheckoutView } from '../../../shared/index.ts';
import { axeViolations } from '../../helpers/axe.ts';
import { chromiumMissing, collectPageErrors, decodeQr, horizontalOverflow, launchChromium, saveScreenshot } from '../../helpers/browser.ts';

const REGTEST = { bech32: 'bcrt', pubKeyHash: 0x6f, scriptHash: 0xc4, validWitnessVersions: [0, 1] };
const ADDRESS = 'bcrt1qcr8te4kr609gcawutmrza0j4xv80jy8z2y4wgd';
/** Through the stream a change shows in well under a second; slack for a loaded machine. */
const LIVE_MS = 10_000;

/** A signed regtest BOLT11 for 50,000 sats, as a merchant's wallet would issue it. */
function regtestBolt11(): string {
  const unsigned = bolt11.encode({
    network: REGTEST,
    satoshis: 50_000,
    timestamp: 1_893_456_000,
    tags: [
      { tagName: 'payment_hash', data: '11'.repeat(32) },
      { tagName: 'payment_secret', data: '22'.repeat(32) },
      { tagName: 'description', data: 'Order 2002' },
      { tagName: 'expire_time', data: 3600 },
    ],
  });
  return bolt11.sign(unsigned, '33'.repeat(32)).paymentRequest!;
}
const BOLT11 = regtestBolt11();

const baseView = {
  shop_name: 'Corner Shop',
  status: 'pending',
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
  redirect_url: null,
  server_time: '2030-01-01T00:00:00.000Z',
  chain: 'btc',
  asset: 'BTC',
  network: 'regtest',
  amount_btc: '0.00050000',
} as const;

/** On-chain or over Lightning: the unified BIP-21 URI carries the BOLT11 too. */
const bothView = BtcCheckoutView.parse({
  ...baseView,
  invoice_id: 'inv_both',
  receive_address: ADDRESS,
  qr_uri: `bitcoin:${ADDRESS}?amount=0.0005&lightning=${BOLT11}`,
  lightning_invoice: BOLT11,
});
/** Lightning only: no address, receive_address repeats the BOLT11. */
const lightningOnlyView = BtcCheckoutView.parse({
  ...baseView,
  invoice_id: 'inv_lightning',
  receive_address: BOLT11,
  qr_uri: `lightning:${BOLT11}`,
  lightning_invoice: BOLT11,
});

/**
 * The checkout routes over views held here: a test sets an invoice's view and `announce`s it, as
 * the status feed would, and the page's live stream sends it.
 */
function viewServer(initial: CheckoutView[]) {
  const views = new Map(initial.map((view) => [view.invoice_id, view]));
  const watchers = new Map<string, Set<() => void>>();
  const routes = checkoutRoutes({
    source: { view: async (id) => views.get(id)! },
    chains: defaultChains,
    logger: silentLogger,
    watch(id, changed) {
      const set = watchers.get(id) ?? new Set();
      watchers.set(id, set.add(changed));
      return () => set.delete(changed);
    },
    streams: { streamsPerClient: 10, streamsTotal: 50, streamMaxMs: 60_000 },
  });
  const router = new Router();
  router.get('/pay/:id', routes.page);
  router.get('/checkout/:id', routes.view);
  router.get('/checkout/:id/events', routes.events);
  const app = new Koa();
  app.use(router.routes());
  app.use(routes.assets.routes());
  const server: Server = createServer(app.callback());
  return {
    server,
    announce(view: CheckoutView) {
      views.set(view.invoice_id, view);
      for (const changed of watchers.get(view.invoice_id) ?? []) changed();
    },
    /** How many live streams watch the invoice: the page has opened its own once this is 1. */
    watching: (id: string) => watchers.get(id)?.size ?? 0,
  };
}

async function waitFor(what: string, check: () => boolean): Promise<void> {
  const deadline = Date.now() + LIVE_MS;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('checkout page with a Lightning invoice in Chromium', { skip: chromiumMissing }, () => {
  let browser: Browser;
  let context: BrowserContext;
  let axeContext: BrowserContext;
  let views: ReturnType<typeof viewServer>;
  let url: string;

  before(async () => {
    views = viewServer([bothView, lightningOnlyView]);
    await new Promise<void>((resolve) => views.server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(views.server.address() as AddressInfo).port}`;
    browser = await launchChromium();
    // Twice the pixels: a phone camera's view of the dense unified QR code.
    context = await browser.newContext({ deviceScaleFactor: 2 });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: url });
    // axe-core is injected as a script: this context lets it past the page's Content-Security-Policy.
    axeContext = await browser.newContext({ bypassCSP: true });
  });
  after(async () => {
    await context?.close();
    await axeContext?.close();
    await browser?.close();
    views?.server.close();
  });

  async function open(invoiceId: string, on: BrowserContext = context): Promise<{ page: Page; errors: string[] }> {
    const page = await on.newPage();
    const errors = collectPageErrors(page);
    const response = await page.goto(`${url}/pay/${invoiceId}`);
    assert.equal(response?.status(), 200);
    return { page, errors };
  }

  test('on-chain and Lightning as two tabs: arrow keys switch them; the Lightning QR code, wallet link and copied BOLT11', async () => {
    const { page, errors } = await open('inv_both');
    const onchainTab = page.getByRole('tab', { name: 'On-chain' });
    const lightningTab = page.getByRole('tab', { name: 'Lightning' });
    assert.equal(await page.getByRole('tablist', { name: 'How to pay' }).isVisible(), true);
    assert.deepEqual([await onchainTab.getAttribute('aria-selected'), await lightningTab.getAttribute('aria-selected')], ['true', 'false']);
    assert.equal(await page.locator('#pay-onchain').isVisible(), true);
    assert.equal(await page.locator('#pay-lightning').isVisible(), false, 'one panel at a time');
    assert.equal(await decodeQr(page.locator('#pay-onchain [role="img"] svg')), bothView.qr_uri, 'the on-chain QR code is the unified URI');
    await saveScreenshot(page, 'checkout-lightning-tabs-onchain');

    await onchainTab.focus();
    await page.keyboard.press('ArrowRight');
    assert.equal(await lightningTab.getAttribute('aria-selected'), 'true');
    assert.equal(await onchainTab.getAttribute('aria-selected'), 'false');
    assert.deepEqual(
      await page.evaluate(() => [document.activeElement?.id, (document.activeElement as HTMLElement).tabIndex]),
      ['tab-lightning', 0],
      'focus follows the selected tab, the one tab stop of the list',
    );
    assert.equal(await page.locator('#pay-onchain').isVisible(), false);
    assert.equal(await page.getByRole('tabpanel', { name: 'Lightning' }).isVisible(), true);
    assert.equal(await decodeQr(page.locator('#pay-lightning [role="img"] svg')), `LIGHTNING:${BOLT11.toUpperCase()}`);
    assert.equal(await page.getByRole('link', { name: 'Pay with a Lightning wallet' }).getAttribute('href'), `lightning:${BOLT11}`);
    assert.equal(await page.locator('#lightning-invoice').textContent(), BOLT11);
    assert.equal(await horizontalOverflow(page), null, 'the BOLT11 wraps inside the page');
    await saveScreenshot(page, 'checkout-lightning-tabs-lightning');

    await page.getByRole('button', { name: 'Copy Lightning invoice' }).click();
    await page.locator('[data-copy="lightning-invoice"]', { hasText: 'Copied' }).waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), BOLT11);
    assert.equal(await page.locator('#copy-note').textContent(), `Copied the Lightning invoice: ${BOLT11}`);

    await lightningTab.focus();
    await page.keyboard.press('ArrowRight');
    assert.equal(await onchainTab.getAttribute('aria-selected'), 'true', 'the arrow wraps round to the first tab');
    await page.keyboard.press('End');
    assert.equal(await lightningTab.getAttribute('aria-selected'), 'true');
    await page.keyboard.press('Home');
    assert.equal(await onchainTab.getAttribute('aria-selected'), 'true');
    await lightningTab.click();
    assert.equal(await page.locator('#pay-lightning').isVisible(), true, 'a click selects too');
    await page.close();
    assert.deepEqual(errors, [], 'no console errors or CSP violations');
  });

  test('a Lightning-only invoice: no tabs and no address, only the Lightning panel', async () => {
    const { page, errors } = await open('inv_lightning');
    assert.equal(await page.getByRole('tablist').count(), 0);
    assert.equal(await page.locator('#address').count(), 0);
    assert.equal(await page.locator('#network').textContent(), 'Lightning, Bitcoin regtest — sandbox, not real bitcoin');
    assert.match((await page.locator('[data-when="pending"]').textContent())!, /Pay the Lightning invoice below\./);
    assert.equal(await decodeQr(page.locator('.qr [role="img"] svg')), `LIGHTNING:${BOLT11.toUpperCase()}`);
    assert.equal(await page.getByRole('link', { name: 'Pay with a Lightning wallet' }).getAttribute('href'), `lightning:${BOLT11}`);
    assert.equal(await page.locator('#lightning-invoice').textContent(), BOLT11);
    await saveScreenshot(page, 'checkout-lightning-only');
    await page.close();
    assert.deepEqual(errors, []);
  });

  test('no axe-core violation: both tabs of the two-way page, and the Lightning-only page', async () => {
    const both = (await open('inv_both', axeContext)).page;
    assert.deepEqual(await axeViolations(both), [], 'On-chain tab selected');
    await both.getByRole('tab', { name: 'Lightning' }).click();
    assert.deepEqual(await axeViolations(both), [], 'Lightning tab selected');
    await both.close();
    const only = (await open('inv_lightning', axeContext)).page;
    assert.deepEqual(await axeViolations(only), []);
    await only.close();
  });

  test('paid over Lightning: the page turns to Paid live, without a transaction line', async () => {
    const { page, errors } = await open('inv_lightning');
    await page.evaluate(() => Object.assign(window, { loadedOnce: true }));
    await waitFor('the page to watch its invoice', () => views.watching('inv_lightning') === 1);
    views.announce({ ...lightningOnlyView, status: 'confirmed', paid_at: '2030-01-01T00:10:00.000Z', lightning_invoice: null, server_time: '2030-01-01T00:10:00.000Z' });
    await page.locator('[data-when="confirmed"]').waitFor({ state: 'visible', timeout: LIVE_MS });
    assert.equal(await page.locator('h1').textContent(), 'Paid 0.00050000 BTC');
    assert.equal(await page.locator('.pay').isVisible(), false, 'no QR code or invoice left to pay');
    assert.equal((await page.locator('[role="status"]').innerText()).replace(/\s+/g, ' ').trim(), 'Paid Your payment is confirmed. Thank you!');
    assert.equal(await page.evaluate(() => (window as unknown as { loadedOnce?: boolean }).loadedOnce), true, 'same document');
    await page.close();
    assert.deepEqual(errors, []);
  });
});
