import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import type { RunningCloud } from '../cloud/cloud-app.ts';
import { manualClock } from '../core/clock.ts';
import { DASHBOARD_CSP, LOGIN_COOKIE, SESSION_COOKIE } from '../cloud/dashboard/routes.ts';
import { SESSION_TTL_MS } from '../cloud/dashboard/session-store.ts';
import { hashApiKey } from '../cloud/api-keys.ts';
import { signupMerchant, startTestCloud } from './support/cloud.ts';
import { testDatabases } from './support/databases.ts';
import { BIP84_ZPUB } from './support/listener.ts';
import { cookieOf, FORM, loginForm, open, signIn } from './support/dashboard.ts';

for (const database of testDatabases) describe(`dashboard sessions over HTTP (${database.name})`, { skip: database.skip }, () => {
  let cloud: RunningCloud;
  let drop: () => Promise<void>;
  let merchant: Awaited<ReturnType<typeof signupMerchant>>;
  const clock = manualClock(Date.UTC(2026, 10, 22, 12));

  before(async () => {
    const created = await database.create();
    drop = created.drop;
    cloud = await startTestCloud({
      env: { DATABASE_URL: created.url },
      // The card processor is someone else's hosted page; only its answer matters here.
      deps: { clock, card: { createCheckout: async (request) => ({ url: `https://cards.example/checkout/${request.subscriptionId}` }) } },
    });
    merchant = await signupMerchant(cloud.url, { btc_xpub: BIP84_ZPUB });
  });
  after(async () => {
    await cloud?.stop();
    await drop?.();
  });

  test('every page without a session goes to sign-in; a POST without one gets a readable 401 page', async () => {
    for (const path of ['/dashboard', '/dashboard/invoices', '/dashboard/webhooks', '/dashboard/keys', '/dashboard/plan']) {
      const response = await fetch(`${cloud.url}${path}`, { redirect: 'manual' });
      assert.equal(response.status, 302, path);
      assert.equal(response.headers.get('location'), '/dashboard/login');
    }
    const post = await fetch(`${cloud.url}/dashboard/plan`, { method: 'POST', headers: { 'content-type': FORM }, body: 'plan=starter' });
    assert.equal(post.status, 401);
    assert.equal(post.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.equal(post.headers.get('content-security-policy'), DASHBOARD_CSP);
    assert.match(await post.text(), /Your session has ended\. Sign in again with your API key\./);
  });

  test('an unknown dashboard address answers with a readable 404 page', async () => {
    const response = await fetch(`${cloud.url}/dashboard/nowhere/at-all`);
    assert.equal(response.status, 404);
    assert.equal(response.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.match(await response.text(), /There is no dashboard page at this address\./);
  });

  test('the sign-in form is refused without its token (login CSRF), and no session is made', async () => {
    const form = await loginForm(cloud.url);
    const attempts: Record<string, string>[] = [{ 'content-type': FORM }, { 'content-type': FORM, cookie: `${LOGIN_COOKIE}=other-value-of-same-length-xxxx` }];
    for (const headers of attempts) {
      const response = await fetch(`${cloud.url}/dashboard/login`, { method: 'POST', redirect: 'manual', headers, body: new URLSearchParams({ csrf: form.csrf, api_key: merchant.api_key }) });
      assert.equal(response.status, 403);
      assert.equal(cookieOf(response.headers.getSetCookie(), SESSION_COOKIE), undefined);
      assert.match(await response.text(), /The sign-in form expired or came from another site/);
    }
    const rows = await cloud.database.db.selectFrom('cloud_dashboard_sessions').selectAll().where('merchant_id', '=', merchant.merchant_id).execute();
    assert.equal(rows.length, 0);
  });

  test('the session cookie is Secure, HttpOnly and SameSite=Strict when the dashboard is reached under a public host name', async () => {
    const { port } = new URL(cloud.url);
    const form = await loginForm(cloud.url);
    const setCookies = await new Promise<string[]>((resolve, reject) => {
      const body = new URLSearchParams({ csrf: form.csrf, api_key: merchant.api_key }).toString();
      const req = request(
        { host: '127.0.0.1', port, path: '/dashboard/login', method: 'POST', headers: { host: 'dash.example.com', cookie: form.cookie, 'content-type': FORM, 'content-length': Buffer.byteLength(body) } },
        (res) => (res.resume(), resolve(res.headers['set-cookie'] ?? [])),
      );
      req.on('error', reject);
      req.end(body);
    });
    const session = cookieOf(setCookies, SESSION_COOKIE)!;
    assert.match(session, /; HttpOnly/);
    assert.match(session, /; SameSite=Strict/);
    assert.match(session, /; Secure$/);
    assert.match(session, /; Path=\/dashboard;/);
    // On loopback (plain-http development) the same cookie is not Secure: a browser would drop it.
    const local = await fetch(`${cloud.url}/dashboard/login`, { method: 'POST', redirect: 'manual', headers: { cookie: form.cookie, 'content-type': FORM }, body: new URLSearchParams({ csrf: form.csrf, api_key: merchant.api_key }) });
    assert.doesNotMatch(cookieOf(local.headers.getSetCookie(), SESSION_COOKIE)!, /Secure/);
  });

  test('a session ends after 12 hours, and at once when its API key is revoked', async () => {
    const token = await signIn(cloud.url, merchant.api_key);
    assert.equal((await open(cloud.url, '/dashboard', token)).status, 200);
    clock.advance(SESSION_TTL_MS - 1);
    assert.equal((await open(cloud.url, '/dashboard', token)).status, 200);
    clock.advance(1);
    assert.equal((await open(cloud.url, '/dashboard', token)).status, 302, 'expired');
    const expiredRows = () => cloud.database.db.selectFrom('cloud_dashboard_sessions').select('session_hash').where('expires_at', '<=', clock.now()).execute();
    assert.ok((await expiredRows()).length > 0);

    const fresh = await signIn(cloud.url, merchant.api_key);
    assert.deepEqual(await expiredRows(), [], 'a new sign-in sweeps the expired sessions');
    assert.equal((await open(cloud.url, '/dashboard/keys', fresh)).status, 200);
    await cloud.database.db.updateTable('cloud_api_keys').set({ revoked: 1 }).where('key_hash', '=', hashApiKey(merchant.api_key)).execute();
    assert.equal((await open(cloud.url, '/dashboard/keys', fresh)).status, 302, 'revoked key');
    await cloud.database.db.updateTable('cloud_api_keys').set({ revoked: 0 }).where('key_hash', '=', hashApiKey(merchant.api_key)).execute();
  });

  test('an upgrade by card starts a billing checkout and links to its payment page', async () => {
    const token = await signIn(cloud.url, merchant.api_key);
    const html = await (await open(cloud.url, '/dashboard/plan', token)).text();
    const csrf = /name="csrf" value="([^"]+)"/.exec(html)![1]!;
    const response = await fetch(`${cloud.url}/dashboard/plan`, {
      method: 'POST',
      headers: { cookie: `${SESSION_COOKIE}=${token}`, 'content-type': FORM },
      body: new URLSearchParams({ csrf, plan: 'pro', method: 'card' }),
    });
    assert.equal(response.status, 200);
    const page = await response.text();
    const subscription = await cloud.database.db.selectFrom('cloud_subscriptions').selectAll().where('merchant_id', '=', merchant.merchant_id).executeTakeFirstOrThrow();
    assert.equal(subscription.plan, 'pro');
    assert.equal(subscription.method, 'card');
    assert.equal(subscription.status, 'pending');
    assert.match(page, new RegExp(`<a id="pay-link" href="https://cards.example/checkout/${subscription.subscription_id}">`));
    assert.match(page, /Upgrade to pro started\.<\/strong> Pay \$49/);
  });

  test('a page that fails unexpectedly answers with a readable HTML page, not a blank one or JSON', async () => {
    const token = await signIn(cloud.url, merchant.api_key);
    await cloud.database.db.schema.alterTable('cloud_usage').renameTo('cloud_usage_away').execute();
    try {
      const response = await open(cloud.url, '/dashboard', token);
      assert.equal(response.status, 500);
      assert.equal(response.headers.get('content-type'), 'text/html; charset=utf-8');
      const html = await response.text();
      assert.match(html, /<h1>Something went wrong<\/h1>/);
      assert.doesNotMatch(html, /cloud_usage|at .*\.ts/, 'no internals');
    } finally {
      await cloud.database.db.schema.alterTable('cloud_usage_away').renameTo('cloud_usage').execute();
    }
  });
});
