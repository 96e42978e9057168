import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Browser, Page } from 'playwright-core';
import type { RunningCloud } from '../../../cloud/cloud-app.ts';
import { chromiumMissing, collectPageErrors, launchChromium, saveScreenshot } from '../../helpers/browser.ts';
import { signupMerchant, startTestCloud } from '../../helpers/cloud.ts';
import { testAccountKey } from '../../helpers/btc-chain.ts';
import { REDIRECT_URL, TestOAuthProvider } from '../../helpers/oauth.ts';

describe('OAuth consent and Connected apps in Chromium', { skip: chromiumMissing }, () => {
  let browser: Browser;
  let cloud: RunningCloud;
  let merchant: Awaited<ReturnType<typeof signupMerchant>>;
  let mcpUrl: string;
  before(async () => {
    cloud = await startTestCloud();
    merchant = await signupMerchant(cloud.url, { btc_xpub: testAccountKey(21), shop_name: 'Browser Shop' });
    mcpUrl = `${cloud.url}/api/v1/mcp`;
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await cloud?.stop();
  });

  /** Starts the SDK's authorization and returns its provider, the authorization URL set. */
  async function startAuthorization(): Promise<TestOAuthProvider> {
    const provider = new TestOAuthProvider();
    await assert.rejects(new Client({ name: 'b', version: '1' }).connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider })), UnauthorizedError);
    return provider;
  }

  /** Opens the authorization URL in a page whose visits to the client's redirect URI are caught. */
  async function openConsent(provider: TestOAuthProvider): Promise<{ page: Page; redirected: Promise<URL>; errors: string[] }> {
    const page = await (await browser.newContext()).newPage();
    const errors = collectPageErrors(page);
    let resolveRedirect!: (url: URL) => void;
    const redirected = new Promise<URL>((resolve) => (resolveRedirect = resolve));
    await page.route(`${REDIRECT_URL}**`, async (route) => {
      resolveRedirect(new URL(route.request().url()));
      await route.fulfill({ status: 200, contentType: 'text/plain', body: 'back in the app' });
    });
    await page.goto(provider.authorizationUrl!.href);
    await page.waitForSelector('#client-name');
    return { page, redirected, errors };
  }

  test('approve: the page names the client (as its own claim), the scheme and host it redirects to (a loopback warning) and scopes; the code works', async () => {
    const provider = await startAuthorization();
    const { page, redirected, errors } = await openConsent(provider);
    assert.equal(await page.textContent('#client-name'), 'Test agent');
    assert.equal(await page.textContent('#redirect-origin'), new URL(REDIRECT_URL).origin);
    assert.match((await page.textContent('#redirect-warning'))!, /loopback address/);
    assert.equal(await page.textContent('#client-name-source'), '(the name the app gives itself, not verified)');
    assert.match((await page.textContent('#scopes'))!, /invoices:read[\s\S]*invoices:write/);
    await saveScreenshot(page, 'oauth-consent');
    await page.fill('#api_key', 'sk_wrong');
    await page.click('button[value="approve"]');
    await page.waitForSelector('.notice-error');
    assert.match((await page.textContent('.notice-error'))!, /not valid/);
    await page.fill('#api_key', merchant.api_key);
    await page.click('button[value="approve"]');
    const back = await redirected;
    const code = back.searchParams.get('code');
    assert.ok(code, back.href);
    assert.ok(!page.url().includes(merchant.api_key) && !back.href.includes(merchant.api_key), 'the key is in no URL');
    await new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider }).finishAuth(code);
    const client = new Client({ name: 'b', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider }));
    const created = await client.callTool({ name: 'create_invoice', arguments: { chain: 'btc', amount_sats: 3000 } });
    assert.ok(!created.isError, JSON.stringify(created.content));
    await client.close();
    // The only 4xx is the wrong key's 401 page; the client's own redirect URI is not ours to judge.
    assert.deepEqual(errors.filter((e) => !e.includes('HTTP 401') && !e.includes('status of 401') && !e.includes(REDIRECT_URL)), []);
  });

  test('deny: back to the client with access_denied and no code', async () => {
    const provider = await startAuthorization();
    const { page, redirected } = await openConsent(provider);
    await page.click('button[value="deny"]');
    const back = await redirected;
    assert.equal(back.searchParams.get('error'), 'access_denied');
    assert.equal(back.searchParams.get('code'), null);
  });

  test('Connected apps lists the grant; Revoke ends it and the next call fails', async () => {
    const provider = await startAuthorization();
    const { page, redirected } = await openConsent(provider);
    await page.fill('#api_key', merchant.api_key);
    await page.click('button[value="approve"]');
    await new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider }).finishAuth((await redirected).searchParams.get('code')!);
    const token = provider.savedTokens!.access_token;
    const call = () =>
      fetch(mcpUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } }),
      });
    assert.equal((await call()).status, 200);

    const dashboard = await (await browser.newContext()).newPage();
    const errors = collectPageErrors(dashboard);
    await dashboard.goto(`${cloud.url}/dashboard/login`);
    await dashboard.fill('#api_key', merchant.api_key);
    await dashboard.click('button[type="submit"]');
    await dashboard.waitForURL(`${cloud.url}/dashboard`);
    await dashboard.click('a[href="/dashboard/apps"]');
    const rows = dashboard.locator('#apps tbody tr');
    const before = await rows.count();
    assert.ok(before >= 1);
    assert.match((await rows.first().textContent())!, /Test agent[\s\S]*invoices:read/);
    await saveScreenshot(dashboard, 'oauth-connected-apps');
    // The newest grant is first: the one just approved.
    await rows.first().locator('button', { hasText: 'Revoke' }).click();
    await dashboard.waitForSelector('.notice-ok');
    assert.equal(await dashboard.locator('#apps tbody tr').count(), before - 1);
    const refused = await call();
    assert.equal(refused.status, 401);
    assert.match(refused.headers.get('www-authenticate')!, /invalid_token/);
    assert.deepEqual(errors, []);
  });
});
