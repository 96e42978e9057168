import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { manualClock } from '../../../core/clock.ts';
import { BtcInvoiceCreated } from '../../../shared/index.ts';
import { startNostrRelay, type NostrRelay } from '../../../sandbox/nostr-relay.ts';
import { startLightningWallet, type LightningWalletSimulator } from '../../../sandbox/lightning-wallet.ts';
import { chromiumMissing, collectPageErrors, launchChromium } from '../../helpers/browser.ts';
import { startBtcWatchContext, type BtcWatchContext } from '../../helpers/btc-chain.ts';
import { postJson } from '../../helpers/listener.ts';

describe('the payer’s page of a real listener invoice, paid over Lightning, in Chromium', { skip: chromiumMissing }, () => {
  let relay: NostrRelay;
  let wallet: LightningWalletSimulator;
  let ctx: BtcWatchContext;
  let browser: Browser;

  before(async () => {
    relay = await startNostrRelay();
    // On the context's clock (its manual clock starts here): the wallet ignores requests it deems expired.
    wallet = await startLightningWallet({ relayUrls: [relay.url], network: 'regtest', clock: manualClock(Date.UTC(2026, 0, 1)) });
    ctx = await startBtcWatchContext('esplora', { env: { MERCHANT_NWC_URL: wallet.connectionUri() } });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await ctx?.close();
    await wallet?.close();
    await relay?.close();
  });

  test('the Lightning tab shows the invoice’s BOLT11; the wallet settles it and the page turns to Paid without a reload', async () => {
    const created = BtcInvoiceCreated.parse((await postJson(`${ctx.listener.url}/invoice`, { amount_sats: 50_000 })).json);
    const page = await browser.newPage();
    const errors = collectPageErrors(page);
    await page.goto(`${ctx.listener.url}/pay/${created.invoice_id}`);
    await page.getByRole('tab', { name: 'Lightning' }).click();
    const link = page.getByRole('link', { name: 'Pay with a Lightning wallet' });
    assert.equal(await link.getAttribute('href'), `lightning:${created.lightning_invoice}`);
    const loaded = await page.evaluate(() => performance.timeOrigin);

    await wallet.settle(created.lightning_invoice!);
    await page.locator('[data-when="confirmed"]').waitFor({ state: 'visible', timeout: 30_000 });
    assert.match((await page.locator('h1').textContent())!, /^Paid 0\.00050000 BTC$/);
    assert.equal(await page.evaluate(() => performance.timeOrigin), loaded, 'the same document: no reload');
    assert.deepEqual(errors, []);
  });
});
