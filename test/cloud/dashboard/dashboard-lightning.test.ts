import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { RunningCloud } from '../../../cloud/cloud-app.ts';
import { startNostrRelay, type NostrRelay } from '../../../sandbox/nostr-relay.ts';
import { startLightningWallet, type LightningWalletSimulator } from '../../../sandbox/lightning-wallet.ts';
import { axeViolations } from '../../helpers/axe.ts';
import { chromiumMissing, collectPageErrors, launchChromium, saveScreenshot } from '../../helpers/browser.ts';
import { signupMerchant, startTestCloud } from '../../helpers/cloud.ts';
import { testAccountKey } from '../../helpers/btc-chain.ts';

describe('the dashboard’s Lightning page in Chromium', { skip: chromiumMissing }, () => {
  let relay: NostrRelay;
  let wallet: LightningWalletSimulator;
  let cloud: RunningCloud;
  let browser: Browser;
  let page: Page;
  let pageErrors: string[];
  let merchant: Awaited<ReturnType<typeof signupMerchant>>;

  before(async () => {
    relay = await startNostrRelay();
    wallet = await startLightningWallet({ relayUrls: [relay.url], network: 'regtest' });
    cloud = await startTestCloud({ env: { BTC_ESPLORA_URL: 'http://127.0.0.1:9/api', BTC_ESPLORA_NETWORK: 'regtest' } });
    merchant = await signupMerchant(cloud.url, { btc_xpub: testAccountKey(31), shop_name: 'Lightning Shop' });
    browser = await launchChromium();
    // axe-core is injected as a script: this context lets it past the page's Content-Security-Policy.
    page = await (await browser.newContext({ bypassCSP: true })).newPage();
    pageErrors = collectPageErrors(page);
    await page.goto(`${cloud.url}/dashboard/login`);
    await page.getByLabel('API key').fill(merchant.api_key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${cloud.url}/dashboard`);
  });
  after(async () => {
    await browser?.close();
    await cloud?.stop();
    await wallet?.close();
    await relay?.close();
  });

  test('a spending connection is refused on the page; a receive-only one connects, is shown shortened and never echoed; disconnect removes it', async () => {
    await page.getByRole('link', { name: 'Lightning' }).click();
    await page.waitForURL(`${cloud.url}/dashboard/lightning`);
    assert.match((await page.locator('main').textContent())!, /No wallet connected/);
    assert.deepEqual(await axeViolations(page), [], 'axe-core finds nothing on the empty page');

    const spender = await startLightningWallet({ relayUrls: [relay.url], network: 'regtest', methods: ['get_info', 'make_invoice', 'lookup_invoice', 'pay_invoice'] });
    try {
      await page.getByLabel('Nostr Wallet Connect connection').fill(spender.connectionUri());
      await page.getByRole('button', { name: 'Connect' }).click();
      await page.getByRole('alert').waitFor();
      assert.match((await page.getByRole('alert').textContent())!, /pay_invoice/);
    } finally {
      await spender.close();
    }

    const uri = wallet.connectionUri();
    await page.getByLabel('Nostr Wallet Connect connection').fill(uri);
    await page.getByRole('button', { name: 'Connect' }).click();
    await page.getByText('Connected: wallet').waitFor();
    const text = (await page.locator('main').textContent())!;
    assert.match(text, new RegExp(`${wallet.walletPubkey.slice(0, 8)}…${wallet.walletPubkey.slice(-4)}`));
    assert.match(text, /regtest/);
    const secret = new URL(uri.replace('nostr+walletconnect://', 'http://')).searchParams.get('secret')!;
    assert.equal((await page.content()).includes(secret), false, 'the secret is never echoed into a page');
    assert.deepEqual(await axeViolations(page), []);
    await saveScreenshot(page, 'dashboard-lightning-connected');

    await page.getByRole('button', { name: 'Disconnect' }).click();
    await page.getByText('No wallet connected').waitFor();
    // The refused connection's page is answered with 400, which Chromium logs; nothing else may be.
    const refusedSave = (error: string) => error.includes('status of 400') || error === `HTTP 400: ${cloud.url}/dashboard/lightning`;
    assert.deepEqual(pageErrors.filter((error) => !refusedSave(error)), []);
  });
});
