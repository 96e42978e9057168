import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { HDNodeWallet } from 'ethers';
import type { RunningCloud } from '../../../cloud/cloud-app.ts';
import { DASHBOARD_CSP, SESSION_COOKIE } from '../../../cloud/dashboard/page-kit.ts';
import { enqueueEvent } from '../../../core/events/outbox.ts';
import { verifyWebhook } from '../../../core/webhooks/index.ts';
import { artifactsDir, chromiumMissing, collectPageErrors, decodeQr, horizontalOverflow, launchChromium, saveScreenshot } from '../../helpers/browser.ts';
import { signupMerchant, startLocalChainCloud, startTestCloud } from '../../helpers/cloud.ts';
import { releasedPort } from '../../helpers/ports.ts';
import { payeeOf, testAccountKey } from '../../helpers/btc-chain.ts';
import { waitForWatcher } from '../../helpers/wait-for-watcher.ts';
import { BIP84_ZPUB, postJson } from '../../helpers/listener.ts';
import { startScriptedReceiver } from '../../helpers/scripted-receiver.ts';
import { axeViolations } from '../../helpers/axe.ts';
import { insertRows, invoiceRow, parseCsv } from '../../helpers/invoice-rows.ts';
import type { Kysely } from 'kysely';
import type { CoreTables } from '../../../core/schema.ts';

const EVM_XPUB = HDNodeWallet.fromPhrase('test test test test test test test test test test test junk', undefined, "m/44'/60'/0'").neuter().extendedKey;
const EVM_ADDRESS = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const PHONE = { viewport: { width: 360, height: 740 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

async function waitFor<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('merchant dashboard in Chromium', { skip: chromiumMissing }, () => {
  let browser: Browser;
  let cloud: RunningCloud;
  let receiver: Awaited<ReturnType<typeof startScriptedReceiver>>;
  let merchant: Awaited<ReturnType<typeof signupMerchant>>;
  let context: BrowserContext;
  let page: Page;
  let pageErrors: string[];

  before(async () => {
    receiver = await startScriptedReceiver(() => ({ status: 200, body: '{"ok":true}' }));
    // The Cloud must know its own address for `checkout_url` before it starts.
    const port = await releasedPort();
    cloud = await startTestCloud({
      env: { PORT: String(port), CLOUD_CHECKOUT_BASE_URL: `http://127.0.0.1:${port}`, CLOUD_WEBHOOK_ALLOW_LOOPBACK: 'true' },
      deps: {
        // The webhook host is the local receiver; any other name is a public one.
        resolve: async (host) => [{ address: host === 'hooks.test' ? '127.0.0.1' : '93.184.216.34', family: 4 }],
        webhooks: { pollIntervalMs: 50 },
      },
    });
    merchant = await signupMerchant(cloud.url, { btc_xpub: BIP84_ZPUB, shop_name: 'Dashboard Shop', webhook_url: `http://hooks.test:${new URL(receiver.url).port}/webhook` });
    browser = await launchChromium();
    context = await browser.newContext();
    page = await context.newPage();
    pageErrors = collectPageErrors(page);
  });
  after(async () => {
    await context?.close();
    await browser?.close();
    await cloud?.stop();
    await receiver?.close();
  });

  async function signIn(on: Page, apiKey: string) {
    await on.goto(`${cloud.url}/dashboard/login`);
    await on.getByLabel('API key').fill(apiKey);
    await on.getByRole('button', { name: 'Sign in' }).click();
  }

  const sessionCookie = async (on: BrowserContext = context) => (await on.cookies()).find((c) => c.name === SESSION_COOKIE);

  test('sign up through the API, sign in with the key: an HttpOnly SameSite=Strict session (only its hash stored) and the usage of the month', async () => {
    const wrong = await browser.newPage();
    await signIn(wrong, 'sk_not-a-key');
    assert.equal(await wrong.getByRole('alert').textContent(), 'That API key is not valid or has been revoked.');
    await saveScreenshot(wrong, 'dashboard-sign-in-refused');
    await wrong.close();

    await signIn(page, merchant.api_key);
    await page.waitForURL(`${cloud.url}/dashboard`);
    const response = await page.reload();
    assert.equal(response?.headers()['content-security-policy'], DASHBOARD_CSP);
    assert.equal(await page.locator('h1').textContent(), 'Overview');
    assert.equal(await page.locator('#plan').textContent(), 'free');
    assert.equal(await page.locator('#usage').textContent(), '0 of 50');
    assert.match((await page.locator('#chains').textContent())!, /Bitcoin: xpub zpub6rFR…/);
    assert.equal(await page.locator('.brand').textContent(), 'Dashboard Shop');

    const cookie = (await sessionCookie())!;
    assert.equal(cookie.httpOnly, true);
    assert.equal(cookie.sameSite, 'Strict');
    assert.equal(cookie.secure, false, 'plain http on loopback: a Secure cookie would be dropped');
    const stored = await cloud.database.db.selectFrom('cloud_dashboard_sessions').selectAll().where('merchant_id', '=', merchant.merchant_id).execute();
    assert.equal(stored.length, 1);
    assert.equal(stored[0]!.session_hash, sha256(cookie.value), 'only the hash of the session token is stored');
    assert.equal(JSON.stringify(stored).includes(cookie.value), false);
    assert.equal((await page.content()).includes(merchant.api_key), false, 'the key is never echoed into a page');
    await saveScreenshot(page, 'dashboard-overview');

    // Page weight: the HTML and its one stylesheet, no script at all.
    const html = await (await fetch(`${cloud.url}/dashboard`, { headers: { cookie: `${SESSION_COOKIE}=${cookie.value}` } })).text();
    const cssUrl = await page.locator('link[rel="stylesheet"]').getAttribute('href');
    const css = await (await fetch(`${cloud.url}${cssUrl}`)).text();
    assert.equal(await page.locator('script').count(), 0);
    const weight = { html_bytes: Buffer.byteLength(html), css_bytes: Buffer.byteLength(css), scripts: 0 };
    mkdirSync(artifactsDir, { recursive: true });
    writeFileSync(`${artifactsDir}dashboard-weight.json`, `${JSON.stringify(weight)}\n`);
    assert.ok(weight.html_bytes + weight.css_bytes < 20_000, `overview weighs ${JSON.stringify(weight)}`);
    assert.deepEqual(pageErrors, []);
  });

  test('sign up in the form with an Ethereum fixed address and a Polygon account key: the overview shows each chain (the key masked)', async () => {
    const signupContext = await browser.newContext();
    const on = await signupContext.newPage();
    const errors = collectPageErrors(on);
    await on.goto(`${cloud.url}/dashboard/signup`);
    await on.getByLabel('Email').fill('multichain@example.com');
    await on.getByLabel('Shop name').fill('Multichain Shop');
    await on.getByLabel('Ethereum receive address').fill(EVM_ADDRESS);
    await on.getByLabel('Polygon account public key').fill(EVM_XPUB);
    assert.equal(await on.getByLabel('EVM account key (all EVM chains)').inputValue(), '', 'the shared EVM key is a field of its own, left empty here');
    await on.getByRole('button', { name: 'Create account' }).click();
    assert.equal(await on.locator('h1').textContent(), 'Account created');

    await on.getByRole('link', { name: 'go to the overview' }).click();
    await on.waitForURL(`${cloud.url}/dashboard`);
    const shown = await on.locator('#chains li').allTextContents();
    assert.deepEqual(shown, [`Ethereum: fixed address ${EVM_ADDRESS}`, `Polygon: xpub ${EVM_XPUB.slice(0, 8)}…${EVM_XPUB.slice(-4)}`], 'one line per chain, in the order of the chains');
    assert.equal((await on.content()).includes(EVM_XPUB), false, 'never the full account key');
    await saveScreenshot(on, 'dashboard-overview-evm-chains');
    assert.deepEqual(errors, []);
    await signupContext.close();
  });

  test('an invoice created through the API is in the list with its status, amount and checkout link, and counts in the usage', async () => {
    const created = await postJson(`${cloud.url}/api/v1/invoice`, { amount_sats: 50_000 }, { 'X-Service-Api-Key': merchant.api_key });
    assert.equal(created.status, 201);
    const invoice = created.json as { invoice_id: string; checkout_url: string };
    await page.goto(`${cloud.url}/dashboard/invoices`);
    const row = page.locator('#invoices tbody tr', { hasText: invoice.invoice_id });
    assert.equal(await row.count(), 1);
    assert.equal(await row.locator('.status').textContent(), 'pending');
    assert.equal(await row.locator('.num').textContent(), '0.00050000 BTC');
    const link = row.getByRole('link', { name: 'Checkout page' });
    assert.equal(await link.getAttribute('href'), invoice.checkout_url);
    assert.equal(invoice.checkout_url, `${cloud.url}/pay/${invoice.invoice_id}`);
    await saveScreenshot(page, 'dashboard-invoices');

    await link.click();
    await page.waitForURL(invoice.checkout_url);
    assert.equal(await page.locator('h1').textContent(), 'Pay 0.00050000 BTC');
    assert.equal(await page.locator('.shop').textContent(), 'Dashboard Shop');

    await page.goto(`${cloud.url}/dashboard`);
    assert.equal(await page.locator('#usage').textContent(), '1 of 50');
    assert.deepEqual(pageErrors, []);
  });

  test('invoice page: filter by status, chain and date, search by order id, invoice id or address, page on, export what the filters match; no axe-core violation', async () => {
    const shop = await signupMerchant(cloud.url, { btc_xpub: BIP84_ZPUB, shop_name: 'Finder Shop' });
    const start = Date.UTC(2026, 10, 1);
    const rows = Array.from({ length: 60 }, (_, n) =>
      invoiceRow(shop.merchant_id, `inv_find${String(n).padStart(2, '0')}`, {
        created_at: start + n * 3_600_000,
        chain: n % 4 === 0 ? 'base' : 'btc',
        status: n % 5 === 0 ? 'confirmed' : 'pending',
        order_id: `ORD-${n}`,
      }),
    );
    await insertRows(cloud.database.db as unknown as Kysely<CoreTables>, rows);
    const listed = (where: Page) => where.locator('#invoices tbody tr td:first-child code').allTextContents();
    const ids = (keep: (row: (typeof rows)[number]) => boolean) => rows.filter(keep).map((row) => row.invoice_id).reverse();

    // axe-core is injected as a script: this context lets it past the page's Content-Security-Policy.
    const finder = await browser.newContext({ bypassCSP: true });
    const on = await finder.newPage();
    const errors = collectPageErrors(on);
    await signIn(on, shop.api_key);
    await on.waitForURL(`${cloud.url}/dashboard`);
    await on.goto(`${cloud.url}/dashboard/invoices`);
    assert.deepEqual(await listed(on), ids(() => true).slice(0, 50), 'the newest 50');
    assert.deepEqual(await axeViolations(on), []);
    await saveScreenshot(on, 'dashboard-invoices-filters');
    const pause = on.getByRole('button', { name: 'Pause updates' });
    await pause.click();
    assert.equal(await on.getByRole('button', { name: 'Resume updates' }).getAttribute('aria-pressed'), 'true');

    await on.getByRole('link', { name: 'Next page (older invoices)' }).click();
    assert.deepEqual(await listed(on), ids(() => true).slice(50));
    assert.equal(await on.getByRole('link', { name: 'Next page (older invoices)' }).count(), 0, 'the last page');

    await on.goto(`${cloud.url}/dashboard/invoices`);
    await on.getByLabel('Status').selectOption('confirmed');
    await on.getByLabel('Chain').selectOption('base');
    await on.getByLabel('Created from').fill('2026-11-02');
    await on.getByRole('button', { name: 'Find' }).click();
    const matching = ids((row) => row.status === 'confirmed' && row.chain === 'base' && row.created_at >= Date.UTC(2026, 10, 2));
    assert.deepEqual(await listed(on), matching);
    assert.equal(await on.getByLabel('Status').inputValue(), 'confirmed', 'the form keeps the filters');
    assert.equal(await on.locator('[data-refresh-s]').count(), 0, 'a filtered list does not reload itself');
    assert.deepEqual(await axeViolations(on), []);

    const [download] = await Promise.all([on.waitForEvent('download'), on.getByRole('link', { name: 'Export these invoices as CSV' }).click()]);
    assert.match(download.suggestedFilename(), /^invoices-\d{8}T\d{6}Z\.csv$/);
    const csv = parseCsv(readFileSync((await download.path())!, 'utf8'));
    assert.equal(csv[0]!.at(-1), 'checkout_url');
    assert.deepEqual(csv.slice(1).map((record) => record[0]), matching, 'the export holds what the filters match, all of it');

    for (const [search, expected] of [['ORD-33', ['inv_find33']], ['inv_find07', ['inv_find07']], [rows[13]!.receive_address.toUpperCase(), ['inv_find13']], ['no-such-thing', []]] as const) {
      await on.goto(`${cloud.url}/dashboard/invoices`);
      await on.getByLabel('Search').fill(search);
      await on.getByLabel('Search').press('Enter');
      assert.deepEqual(await listed(on), expected, search);
    }
    assert.equal(await on.locator('#no-invoices').textContent(), 'No invoices match these filters.');

    assert.deepEqual(errors, []);
    // A malformed filter in the address: the page says which (400), with the newest invoices under it.
    const refused = await on.goto(`${cloud.url}/dashboard/invoices?created_from=tomorrow`);
    assert.equal(refused!.status(), 400);
    assert.match((await on.getByRole('alert').textContent())!, /created_from.*\(bad_query\)/);
    assert.deepEqual(await listed(on), ids(() => true).slice(0, 50));
    await finder.close();
  });

  test('webhook secret rotation: the new secret is shown once, deliveries are signed with it, the old one stops verifying; re-send', async () => {
    const oldSecret = merchant.webhook_secret!;
    await page.goto(`${cloud.url}/dashboard/webhooks`);
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    const newSecret = (await page.locator('#new-secret').textContent())!;
    assert.match(newSecret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.notEqual(newSecret, oldSecret);
    await saveScreenshot(page, 'dashboard-webhooks-new-secret');
    await page.goto(`${cloud.url}/dashboard/webhooks`);
    assert.equal(await page.locator('#new-secret').count(), 0, 'the secret is shown once only');
    assert.equal((await page.content()).includes(newSecret), false);

    const eventId = await enqueueEvent(cloud.database.db, {
      merchantId: merchant.merchant_id,
      payload: {
        event: 'invoice.confirmed', invoice_id: 'inv_dash', merchant_id: merchant.merchant_id, chain: 'btc', asset: 'BTC', amount: '0.00050000',
        address: 'bc1q', tx_hash: 'ab'.repeat(32), confirmations: 1, confirmed_at: new Date().toISOString(),
      },
      createdAt: Date.now(),
    });
    await receiver.waitForRequests(1);
    const first = receiver.requests[0]!;
    assert.equal(verifyWebhook(first.body, first.headers, newSecret).ok, true);
    const withOld = verifyWebhook(first.body, first.headers, oldSecret);
    assert.equal(withOld.ok, false);
    assert.equal(!withOld.ok && withOld.code, 'invalid_signature');

    await waitFor('the delivery recorded', async () => {
      await page.goto(`${cloud.url}/dashboard/webhooks`);
      const status = await page.locator('#deliveries tr', { hasText: eventId }).locator('.status').textContent().catch(() => null);
      return status === 'delivered' ? status : undefined;
    });
    await page.locator('#deliveries tr', { hasText: eventId }).getByRole('button', { name: 'Re-send' }).click();
    assert.equal(await page.getByRole('status').filter({ hasText: 'queued' }).textContent(), `Event ${eventId} is queued for one more attempt.`);
    await receiver.waitForRequests(2);
    const again = receiver.requests[1]!;
    const resent = verifyWebhook(again.body, again.headers, newSecret);
    assert.ok(resent.ok);
    assert.equal(resent.eventId, eventId, 'the same event, not a new one');
    assert.equal(resent.attempt, 2);
    await page.goto(`${cloud.url}/dashboard/webhooks`);
    await saveScreenshot(page, 'dashboard-webhooks');
    assert.deepEqual(pageErrors, []);
  });

  test('saving a refused webhook URL shows the readable error and keeps the old URL and secret', async () => {
    const before = await cloud.database.db.selectFrom('cloud_merchants').select(['webhook_url', 'webhook_secret']).where('merchant_id', '=', merchant.merchant_id).executeTakeFirstOrThrow();
    const errorPage = await context.newPage();
    await errorPage.goto(`${cloud.url}/dashboard/webhooks`);
    await errorPage.getByLabel('Webhook URL').fill('https://user:pw@public.example/hook');
    await errorPage.getByRole('button', { name: 'Save' }).click();
    assert.equal(await errorPage.getByRole('alert').textContent(), 'webhook_url must not carry credentials. (invalid_webhook_url)');
    assert.equal(await errorPage.locator('#new-secret').count(), 0);
    const afterwards = await cloud.database.db.selectFrom('cloud_merchants').select(['webhook_url', 'webhook_secret']).where('merchant_id', '=', merchant.merchant_id).executeTakeFirstOrThrow();
    assert.deepEqual(afterwards, before);
    await errorPage.close();
  });

  test('API keys page: prefix, label, created, state', async () => {
    await page.goto(`${cloud.url}/dashboard/keys`);
    const cells = await page.locator('#keys tbody tr').first().locator('td').allTextContents();
    assert.equal(cells[0], `${merchant.key_prefix}…`);
    assert.equal(cells[1], 'default');
    assert.match(cells[2]!, /^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
    assert.equal(cells[3], 'active');
    await saveScreenshot(page, 'dashboard-keys');
  });

  test('API keys: issue a key (shown once, works on the API at once), then revoke it after the confirm step', async () => {
    await page.goto(`${cloud.url}/dashboard/keys`);
    await page.getByLabel('Label').fill('deploy bot');
    await page.getByRole('button', { name: 'Issue key' }).click();
    const key = (await page.locator('#new-key').textContent())!;
    assert.match(key, /^sk_[A-Za-z0-9_-]{43}$/);
    assert.equal((await fetch(`${cloud.url}/api/v1/me`, { headers: { 'X-Service-Api-Key': key } })).status, 200);
    await saveScreenshot(page, 'dashboard-keys-new-key');
    await page.goto(`${cloud.url}/dashboard/keys`);
    assert.equal(await page.locator('#new-key').count(), 0, 'shown once only');
    assert.equal((await page.content()).includes(key), false);

    const row = page.locator('#keys tbody tr', { hasText: 'deploy bot' });
    assert.equal(await row.locator('td').first().textContent(), `${key.slice(0, 12)}…`);
    await row.getByRole('link', { name: /^Revoke/ }).click();
    assert.equal(await page.locator('h1').textContent(), 'Revoke API key');
    await saveScreenshot(page, 'dashboard-keys-revoke');
    await page.getByRole('button', { name: `Revoke ${key.slice(0, 12)}…` }).click();
    assert.match((await page.getByRole('status').textContent())!, /is revoked: requests with it now get 401 unauthorized/);
    assert.equal(await page.locator('#keys tbody tr', { hasText: 'deploy bot' }).locator('.status').textContent(), 'revoked');
    assert.equal((await fetch(`${cloud.url}/api/v1/me`, { headers: { 'X-Service-Api-Key': key } })).status, 401);
    assert.deepEqual(pageErrors, []);
  });

  test('plan page on a service with no payment method set up: the catalogue, no upgrade button that could only fail, and a plain sentence why', async () => {
    await page.goto(`${cloud.url}/dashboard/plan`);
    assert.equal(await page.locator('#current-plan').textContent(), 'free');
    assert.deepEqual(await page.locator('.card h2').allTextContents(), ['free', 'starter', 'pro']);
    assert.equal(await page.getByRole('button', { name: /^Upgrade/ }).count(), 0);
    assert.equal(await page.getByLabel('Pay with').count(), 0);
    assert.equal(
      await page.locator('#how-to-pay').textContent(),
      'Paid plans cannot be bought on this service yet: its operator has not set up a way to pay (crypto billing or card payments). Ask the operator to upgrade your account.',
    );
    await saveScreenshot(page, 'dashboard-plan');
    // A forged upgrade still gets the readable refusal, on the page.
    const csrf = await page.locator('input[name="csrf"]').first().inputValue();
    const forged = await context.request.post(`${cloud.url}/dashboard/plan`, { form: { csrf, plan: 'starter', method: 'crypto' } });
    assert.equal(forged.status(), 409);
    assert.match(await forged.text(), /Crypto billing is not set up on this service\. \(method_unavailable\)/);
  });

  test('CSRF: a POST with the session cookie but without the form token (or with a wrong one) is refused and changes nothing', async () => {
    const before = await cloud.database.db.selectFrom('cloud_merchants').select(['webhook_url', 'webhook_secret']).where('merchant_id', '=', merchant.merchant_id).executeTakeFirstOrThrow();
    // context.request carries the browser's cookies, like a cross-site form would with a Lax cookie.
    const missing = await context.request.post(`${cloud.url}/dashboard/webhooks/rotate`, { form: {}, maxRedirects: 0 });
    assert.equal(missing.status(), 403);
    assert.match(await missing.text(), /Form refused/);
    const wrongToken = await context.request.post(`${cloud.url}/dashboard/webhooks`, { form: { csrf: 'x'.repeat(43), webhook_url: 'https://public.example/hook' }, maxRedirects: 0 });
    assert.equal(wrongToken.status(), 403);
    const signOut = await context.request.post(`${cloud.url}/dashboard/logout`, { form: {}, maxRedirects: 0 });
    assert.equal(signOut.status(), 403, 'even sign-out needs the token');
    const afterwards = await cloud.database.db.selectFrom('cloud_merchants').select(['webhook_url', 'webhook_secret']).where('merchant_id', '=', merchant.merchant_id).executeTakeFirstOrThrow();
    assert.deepEqual(afterwards, before);
    assert.ok(await sessionCookie(), 'still signed in');
    assert.equal((await context.request.get(`${cloud.url}/dashboard`, { maxRedirects: 0 })).status(), 200);
  });

  test('sign-out ends the session on the server: the old cookie no longer opens any page', async () => {
    const cookie = (await sessionCookie())!;
    await page.goto(`${cloud.url}/dashboard`);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${cloud.url}/dashboard/login`);
    assert.equal(await sessionCookie(), undefined);
    const rows = await cloud.database.db.selectFrom('cloud_dashboard_sessions').select('session_hash').where('session_hash', '=', sha256(cookie.value)).execute();
    assert.equal(rows.length, 0);
    // Replaying the copied cookie (as a thief would) finds no session.
    const replay = await fetch(`${cloud.url}/dashboard/invoices`, { headers: { cookie: `${SESSION_COOKIE}=${cookie.value}` }, redirect: 'manual' });
    assert.equal(replay.status, 302);
    assert.equal(replay.headers.get('location'), '/dashboard/login');
    const post = await fetch(`${cloud.url}/dashboard/webhooks/rotate`, {
      method: 'POST',
      headers: { cookie: `${SESSION_COOKIE}=${cookie.value}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'csrf=anything',
      redirect: 'manual',
    });
    assert.equal(post.status, 401);
    await page.goto(`${cloud.url}/dashboard`);
    assert.equal(page.url(), `${cloud.url}/dashboard/login`);
    await saveScreenshot(page, 'dashboard-sign-in');
  });

  test('a phone-sized viewport: no sideways scrolling, the navigation wraps, tables scroll in their box', async () => {
    const phone = await browser.newContext(PHONE);
    try {
      const small = await phone.newPage();
      const errors = collectPageErrors(small);
      await signIn(small, merchant.api_key);
      await small.waitForURL(`${cloud.url}/dashboard`);
      for (const [path, name] of [['/dashboard', 'dashboard-phone-overview'], ['/dashboard/invoices', 'dashboard-phone-invoices'], ['/dashboard/webhooks', 'dashboard-phone-webhooks']] as const) {
        await small.goto(`${cloud.url}${path}`);
        const { scrollWidth, innerWidth } = await small.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth }));
        assert.ok(scrollWidth <= innerWidth, `${path} is ${scrollWidth}px wide in a ${innerWidth}px viewport`);
        await saveScreenshot(small, name);
      }
      assert.equal(await small.getByRole('navigation', { name: 'Dashboard' }).getByRole('link').count(), 7, 'Overview, Invoices, Webhooks, Lightning, API keys, Connected apps, Plan');
      assert.deepEqual(errors, []);
    } finally {
      await phone.close();
    }
  });
});

describe("a merchant's first hour in Chromium: sign up, create an invoice, see it paid on the local chain", { skip: chromiumMissing }, () => {
  let browser: Browser;
  let local: Awaited<ReturnType<typeof startLocalChainCloud>>;

  before(async () => {
    local = await startLocalChainCloud();
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await local?.close();
  });

  test('sign up from the sign-in page, copy the key, create an invoice with a memo, copy its link, pay it: the list shows it confirmed and the checkout page says Paid', async () => {
    const { cloud, chain } = local;
    const context = await browser.newContext();
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: cloud.url });
    const page = await context.newPage();
    const errors = collectPageErrors(page);
    const clipboard = () => page.evaluate(() => navigator.clipboard.readText());

    await page.goto(`${cloud.url}/dashboard/login`);
    await page.getByRole('link', { name: 'Create an account' }).click();
    await page.waitForURL(`${cloud.url}/dashboard/signup`);
    assert.equal(await page.locator('h1').textContent(), 'Create an account');
    await page.getByLabel('Email').fill('first-hour@example.com');
    await page.getByLabel('Shop name').fill('First Hour Coffee');
    await page.getByLabel('Bitcoin account public key').fill(testAccountKey(31));
    await saveScreenshot(page, 'dashboard-sign-up');
    await page.getByRole('button', { name: 'Create account' }).click();

    assert.equal(await page.locator('h1').textContent(), 'Account created');
    const key = (await page.locator('#new-key').textContent())!;
    assert.match(key, /^sk_[A-Za-z0-9_-]{43}$/);
    await page.getByRole('button', { name: 'Copy API key' }).click();
    await page.getByRole('button', { name: 'Copy API key' }).filter({ hasText: 'Copied' }).waitFor();
    assert.equal(await clipboard(), key, 'the copy button copies the exact key');
    assert.equal((await fetch(`${cloud.url}/api/v1/me`, { headers: { 'X-Service-Api-Key': key } })).status, 200);
    assert.equal(await page.locator('.brand').textContent(), 'First Hour Coffee', 'signed in by the sign-up');
    await saveScreenshot(page, 'dashboard-account-created');

    await page.getByRole('link', { name: 'Create your first invoice' }).click();
    assert.equal(await page.locator('h1').textContent(), 'New invoice');
    // A typo first: the form says what is wrong and keeps what was typed.
    await page.getByLabel('Amount').fill('0.0005 BTC');
    await page.getByLabel('Memo (optional)').fill('Order 1001: two flat whites');
    await page.getByRole('button', { name: 'Create invoice' }).click();
    assert.equal(await page.getByRole('alert').textContent(), 'The amount is a whole number of sats, e.g. 50000. (invalid_amount)');
    assert.equal(await page.getByLabel('Memo (optional)').inputValue(), 'Order 1001: two flat whites');
    // The refusal's 400 is the one failed request the browser may report.
    const refused = errors.splice(0);
    assert.ok(refused.length > 0 && refused.every((error) => / 400\b|status of 400/.test(error)), refused.join('\n'));
    await page.getByLabel('Amount').fill('50000');
    await page.getByLabel('Lifetime in minutes (optional)').fill('30');
    await page.getByRole('button', { name: 'Create invoice' }).click();

    const checkoutUrl = (await page.locator('#checkout-url').textContent())!;
    const invoiceId = /\/pay\/(inv_[A-Za-z0-9_-]+)$/.exec(checkoutUrl)![1]!;
    assert.equal(checkoutUrl, `${cloud.url}/pay/${invoiceId}`);
    assert.match((await page.locator('#created').textContent())!, new RegExp(`Invoice ${invoiceId} created: 0\\.00050000 BTC\\.`));
    await page.getByRole('button', { name: 'Copy checkout link' }).click();
    await page.getByRole('button', { name: 'Copy checkout link' }).filter({ hasText: 'Copied' }).waitFor();
    assert.equal(await clipboard(), checkoutUrl);
    assert.equal(await decodeQr(page.locator('#created .qr svg')), checkoutUrl, 'the QR code opens the checkout page');
    assert.equal(await page.locator('#open-checkout').getAttribute('href'), checkoutUrl);
    await saveScreenshot(page, 'dashboard-new-invoice-created');

    const payer = await context.newPage();
    const payerErrors = collectPageErrors(payer);
    await payer.goto(checkoutUrl);
    assert.equal(await payer.locator('h1').textContent(), 'Pay 0.00050000 BTC');
    assert.equal(await payer.title(), 'Pay 0.00050000 BTC · First Hour Coffee');
    assert.equal(await payer.locator('#memo').textContent(), 'Memo: Order 1001: two flat whites');
    assert.equal(await payer.locator('#network').textContent(), 'Bitcoin testnet — test coins, not real bitcoin');
    const address = (await payer.locator('#address').textContent())!;

    await page.goto(`${cloud.url}/dashboard/invoices`);
    const row = page.locator('#invoices tbody tr', { hasText: invoiceId });
    assert.equal(await row.locator('.status').textContent(), 'pending');
    assert.equal(await row.getByRole('link', { name: invoiceId }).getAttribute('href'), checkoutUrl);
    assert.equal(await row.getByRole('link', { name: 'Checkout page' }).getAttribute('href'), checkoutUrl);

    // The leader watches a new merchant from the tip it first sees: pay once it does.
    await waitForWatcher(
      'the leader watches the new merchant',
      async () => (await cloud.database.db.selectFrom('btc_blocks').select('merchant_id').distinct().execute()).length,
      (n) => n === 1,
      { watcher: local.watcher },
    );
    chain.pay([{ ...payeeOf(address), value: 50_000n }]);
    chain.mine(1);
    // Neither page is reloaded by the test: the list refreshes itself, the checkout page polls.
    await waitForWatcher(
      'the invoice list to show the invoice confirmed',
      async () => (await row.locator('.status').textContent().catch(() => null)) ?? 'reloading',
      (status) => status === 'confirmed',
      { watcher: local.watcher, timeoutMs: 60_000, everyMs: 250 },
    );
    await saveScreenshot(page, 'dashboard-invoices-confirmed');
    await payer.locator('[data-when="confirmed"]').waitFor({ state: 'visible', timeout: 30_000 });
    assert.equal(await payer.locator('h1').textContent(), 'Paid 0.00050000 BTC');
    assert.equal(await payer.title(), 'Paid 0.00050000 BTC · First Hour Coffee');
    assert.deepEqual([...errors, ...payerErrors], []);
    await context.close();
  });

  test('sign-up and new invoice pages on a phone: no sideways scrolling', async () => {
    const phone = await browser.newContext({ viewport: { width: 375, height: 667 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
    try {
      const small = await phone.newPage();
      await small.goto(`${local.cloud.url}/dashboard/signup`);
      assert.equal(await horizontalOverflow(small), null);
      await saveScreenshot(small, 'dashboard-phone-sign-up');
      await small.getByLabel('Email').fill('phone@example.com');
      await small.getByLabel('Shop name').fill('Phone Shop');
      await small.getByLabel('Bitcoin account public key').fill(testAccountKey(32));
      await small.getByRole('button', { name: 'Create account' }).click();
      assert.equal(await horizontalOverflow(small), null, 'the key and its copy button fit');
      await small.goto(`${local.cloud.url}/dashboard/invoices/new`);
      await small.getByLabel('Amount').fill('12345');
      await small.getByRole('button', { name: 'Create invoice' }).click();
      await small.locator('#checkout-url').waitFor();
      assert.equal(await horizontalOverflow(small), null, 'the link, its copy button and the QR code fit');
      await saveScreenshot(small, 'dashboard-phone-new-invoice');
    } finally {
      await phone.close();
    }
  });
});
