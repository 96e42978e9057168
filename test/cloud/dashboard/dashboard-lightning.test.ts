import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { BtcInvoice } from '../../../shared/index.ts';
import type { RunningCloud } from '../../../cloud/cloud-app.ts';
import { startNostrRelay, type NostrRelay } from '../../../sandbox/nostr-relay.ts';
import { startLightningWallet, type LightningWalletSimulator } from '../../../sandbox/lightning-wallet.ts';
import { axeViolations } from '../../helpers/axe.ts';
import { chromiumMissing, collectPageErrors, launchChromium, saveScreenshot } from '../../helpers/browser.ts';
import { getJson, signupMerchant, startTestCloud } from '../../helpers/cloud.ts';
import { postJson } from '../../helpers/listener.ts';
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
    await signIn(page, merchant.api_key);
  });
  async function signIn(on: Page, apiKey: string) {
    await on.goto(`${cloud.url}/dashboard/login`);
    await on.getByLabel('API key').fill(apiKey);
    await on.getByRole('button', { name: 'Sign in' }).click();
    await on.waitForURL(`${cloud.url}/dashboard`);
  }

  /**
   * Creates an invoice from the new-invoice page as it stands, and reads it back through the API.
   * Each call's amount differs, so the page shown after is told from the one before by its amount.
   */
  async function createFromForm(on: Page, apiKey: string, sats: number) {
    await on.getByLabel('Amount').fill(String(sats));
    await on.getByRole('button', { name: 'Create invoice' }).click();
    const shown = on.locator('#created', { hasText: `created: ${(sats / 1e8).toFixed(8)} BTC.` });
    const created = (await shown.locator('code').first().textContent())!;
    const read = await getJson(`${cloud.url}/api/v1/invoice/${created}`, { 'X-Service-Api-Key': apiKey });
    assert.equal(read.status, 200, read.text);
    return BtcInvoice.parse(read.json);
  }

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

  test('new invoice: "Paid with" only with a wallet connected; "Lightning only" gives an invoice with no address, "On-chain only" one with no BOLT11; a refusal keeps the choice', async () => {
    const key = { 'X-Service-Api-Key': merchant.api_key };
    pageErrors.splice(0); // The test above judged its own.
    // The test above ended with the wallet disconnected: Bitcoin is on-chain only, so there is nothing to choose.
    await page.goto(`${cloud.url}/dashboard/invoices/new`);
    assert.equal(await page.locator('h1').textContent(), 'New invoice');
    assert.equal(await page.getByLabel('Paid with').count(), 0, 'no choice without Lightning');
    assert.doesNotMatch((await page.locator('main').textContent())!, /Lightning/);

    const connected = await postJson(`${cloud.url}/api/v1/lightning`, { nwc_url: wallet.connectionUri() }, key);
    assert.equal(connected.status, 200, connected.text);
    await page.reload();
    const paidWith = page.getByLabel('Paid with');
    assert.deepEqual(await paidWith.locator('option').allTextContents(), ['On-chain or Lightning', 'Lightning only', 'On-chain only']);
    assert.equal(await paidWith.inputValue(), 'onchain-or-lightning', 'both methods by default');
    assert.deepEqual(await page.getByLabel('Asset').locator('option').allTextContents(), ['BTC (on Bitcoin), amount in sats'], 'Lightning is a choice of Bitcoin, not a second BTC asset');
    assert.deepEqual(await axeViolations(page), [], 'axe-core finds nothing on the form with the choice');

    // A typo first: the refusal keeps "Lightning only" chosen.
    await paidWith.selectOption({ label: 'Lightning only' });
    await page.getByLabel('Amount').fill('lots');
    await page.getByRole('button', { name: 'Create invoice' }).click();
    await page.getByRole('alert').waitFor();
    assert.match((await page.getByRole('alert').textContent())!, /\(invalid_amount\)$/);
    assert.equal(await paidWith.inputValue(), 'lightning', 'the refused form keeps the choice');

    const lightningOnly = await createFromForm(page, merchant.api_key, 21_000);
    assert.ok(lightningOnly.lightning_invoice, 'a BOLT11 from the wallet');
    assert.equal(lightningOnly.receive_address, lightningOnly.lightning_invoice, 'no address: receive_address repeats the BOLT11');
    assert.equal(lightningOnly.child_index, null, 'no address drawn from the key');

    await paidWith.selectOption({ label: 'On-chain only' });
    const onchainOnly = await createFromForm(page, merchant.api_key, 22_000);
    assert.equal(onchainOnly.lightning_invoice, null, 'no BOLT11');
    assert.match(onchainOnly.receive_address, /^tb1/, 'an address of the merchant key');

    assert.equal(await paidWith.inputValue(), 'onchain-or-lightning', 'the form is fresh after a created invoice');
    const both = await createFromForm(page, merchant.api_key, 23_000);
    assert.ok(both.lightning_invoice && /^tb1/.test(both.receive_address), 'the default: an address and a BOLT11');

    const refusedSave = (error: string) => error.includes('status of 400') || error === `HTTP 400: ${cloud.url}/dashboard/invoices`;
    assert.deepEqual(pageErrors.filter((error) => !refusedSave(error)), []);
  });

  test('new invoice of a Lightning-only merchant: no on-chain choice, and its invoices are Lightning only', async () => {
    const lightningOnly = await signupMerchant(cloud.url, { lightning_nwc_url: wallet.connectionUri(), shop_name: 'Lightning Only Shop' });
    let context: BrowserContext | undefined;
    try {
      context = await browser.newContext({ bypassCSP: true });
      const own = await context.newPage();
      const ownErrors = collectPageErrors(own);
      await signIn(own, lightningOnly.api_key);
      await own.goto(`${cloud.url}/dashboard/invoices/new`);
      assert.equal(await own.getByLabel('Paid with').count(), 0, 'a single method is no choice');
      assert.equal(await own.locator('#paid-with').textContent(), 'Bitcoin invoices are paid with Lightning only: this account has a Lightning wallet and no Bitcoin key.');
      assert.doesNotMatch((await own.locator('main').textContent())!, /On-chain/i);
      assert.deepEqual(await axeViolations(own), []);
      const invoice = await createFromForm(own, lightningOnly.api_key, 5_000);
      assert.ok(invoice.lightning_invoice);
      assert.equal(invoice.receive_address, invoice.lightning_invoice);
      assert.equal(invoice.child_index, null);
      assert.deepEqual(ownErrors, []);
    } finally {
      await context?.close();
    }
  });
});
