import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import type { RunningCloud } from '../../../cloud/cloud-app.ts';
import { manualClock } from '../../../core/clock.ts';
import { DASHBOARD_CSP, LOGIN_COOKIE, SESSION_COOKIE } from '../../../cloud/dashboard/page-kit.ts';
import { SESSION_TTL_MS } from '../../../cloud/dashboard/session-store.ts';
import { hashApiKey } from '../../../cloud/keys/api-keys.ts';
import { signupMerchant, startTestCloud } from '../../helpers/cloud.ts';
import { testDatabases } from '../../helpers/databases.ts';
import { BIP84_ZPUB } from '../../helpers/listener.ts';
import { cookieOf, FORM, loginForm, open, postForm, signIn, signupForm, submitSignup, valueOf } from '../../helpers/dashboard.ts';
import { HDNodeWallet } from 'ethers';
import { chainFacts, chainNames, isEvmChain, SignupRequest } from '../../../shared/index.ts';
import { signupFieldNames } from '../../../cloud/dashboard/signup-form.ts';

const EVM_XPUB = HDNodeWallet.fromPhrase('test test test test test test test test test test test junk', undefined, "m/44'/60'/0'").neuter().extendedKey;
const EVM_ADDRESS = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const XPRV = 'xprv9s21ZrQH143K3QTDL4LXw2F7HEK3wJUD2nW2nRk4stbPy6cq3jPPqjiChkVvvNKmPGJxWUtg6LnF5kejMRNNU3TGtRBeJgk33yuGBxrMPHi';
const alertOf = (html: string) => /role="alert">([^<]*)</.exec(html)?.[1];
const inputValue = (html: string, name: string) => new RegExp(`name="${name}"[^>]* value="([^"]*)"`).exec(html)?.[1];

for (const database of testDatabases) describe(`dashboard sessions over HTTP (${database.name})`, { skip: database.skip }, () => {
  let cloud: RunningCloud;
  let drop: () => Promise<void>;
  let merchant: Awaited<ReturnType<typeof signupMerchant>>;
  const clock = manualClock(Date.UTC(2026, 10, 22, 12));

  before(async () => {
    const created = await database.create();
    drop = created.drop;
    cloud = await startTestCloud({
      // Ethereum's and Polygon's platform settings (no watching here): merchants may receive on them.
      env: { DATABASE_URL: created.url, CLOUD_CHECKOUT_BASE_URL: 'https://pay.example', CLOUD_SIGNUP_RATE_LIMIT: 'off', ETH_RPC_URL: 'http://127.0.0.1:9', ETH_MIN_SOURCES: '1', POLYGON_RPC_URL: 'http://127.0.0.1:9', POLYGON_MIN_SOURCES: '1' },
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

  test('the session cookie is HttpOnly and SameSite=Strict; Secure follows PUBLIC_URL (unset here, on loopback: not Secure), never the request\'s Host', async () => {
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
    assert.match(session, /; SameSite=Strict$/);
    assert.match(session, /; Path=\/dashboard;/);
    // A public Host does not make it Secure: the configuration does (test/edge/http/secure-cookies.test.ts has PUBLIC_URL https).
    assert.doesNotMatch(session, /Secure/);
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

  test("sign-up page: linked from sign-in, the sign-up API's fields, refusals with the API's messages and codes, the form kept (never a private key)", async () => {
    assert.match(await (await fetch(`${cloud.url}/dashboard/login`)).text(), /<a href="\/dashboard\/signup">Create an account<\/a>/);
    const receiveFields = chainNames.flatMap((chain) => (isEvmChain(chain) ? [`${chain}_xpub`, `${chain}_address`] : [`${chain}_xpub`]));
    const apiFields = Object.keys(SignupRequest.shape).filter((name) => ['email', 'shop_name', 'webhook_url', 'lightning_nwc_url'].includes(name));
    assert.deepEqual([...signupFieldNames].sort(), [...apiFields, ...receiveFields, 'evm_xpub'].sort(), "the API's fields, and a receive method per chain of the registry");
    const form = await signupForm(cloud.url);
    for (const name of signupFieldNames) assert.match(form.html, new RegExp(`<label for="${name}">[^<]+</label>\n<input id="${name}" name="${name}"[^>]* aria-describedby="${name}-hint">`));
    for (const chain of chainNames) assert.match(form.html, new RegExp(`<label for="${chain}_xpub">${chainFacts[chain].name} account public key</label>`));
    assert.match(form.html, /<label for="evm_xpub">EVM account key \(all EVM chains\)<\/label>/);

    const count = async () => (await cloud.database.db.selectFrom('cloud_merchants').select('merchant_id').execute()).length;
    const before = await count();
    const refusals: [Record<string, string>, number, string | RegExp][] = [
      [{ email: 'not-an-email', shop_name: 'Shop', btc_xpub: BIP84_ZPUB }, 400, 'email must be an email address. (invalid_email)'],
      [{ email: 'new@example.com', shop_name: 'S', btc_xpub: BIP84_ZPUB }, 400, 'shop_name must be 2-80 characters. (invalid_shop_name)'],
      [{ email: 'new@example.com', shop_name: 'Shop' }, 400, 'Send at least one receive method: receive_methods, btc_xpub, base_xpub or base_address, or lightning_nwc_url. (no_receive_method)'],
      [{ email: 'new@example.com', shop_name: 'Shop', btc_xpub: 'zpub-nonsense' }, 400, /^receive_methods\[0\]\.xpub .*\(invalid_xpub\)$/],
      [{ email: 'new@example.com', shop_name: 'Shop', eth_address: EVM_ADDRESS.toLowerCase().replace('0x7', '0xz') }, 400, /^receive_methods\[0\]\.address: .*\(invalid_address\)$/],
      [{ email: 'new@example.com', shop_name: 'Shop', btc_xpub: BIP84_ZPUB, evm_xpub: 'xpub-nonsense' }, 400, /^receive_methods\[1\]\.xpub: .*\(invalid_xpub\)$/],
    ];
    for (const [fields, status, message] of refusals) {
      const response = await submitSignup(cloud.url, form, fields);
      assert.equal(response.status, status, JSON.stringify(fields));
      const html = await response.text();
      if (typeof message === 'string') assert.equal(alertOf(html), message);
      else assert.match(alertOf(html) ?? '', message);
      assert.equal(inputValue(html, 'email'), fields.email, 'what was typed is kept');
      assert.equal(cookieOf(response.headers.getSetCookie(), SESSION_COOKIE), undefined);
    }
    const privateKey = await submitSignup(cloud.url, form, { email: 'new@example.com', shop_name: 'Shop', btc_xpub: XPRV });
    assert.equal(privateKey.status, 400);
    const privateHtml = await privateKey.text();
    assert.match(alertOf(privateHtml)!, /\(private_key_rejected\)$/);
    assert.equal(privateHtml.includes(XPRV), false, 'a private key is not sent back, even into its field');
    assert.equal(inputValue(privateHtml, 'email'), 'new@example.com');
    const privateEvmKey = await submitSignup(cloud.url, form, { email: 'new@example.com', shop_name: 'Shop', evm_xpub: XPRV });
    const privateEvmHtml = await privateEvmKey.text();
    assert.match(alertOf(privateEvmHtml)!, /\(private_key_rejected\)$/);
    assert.equal(privateEvmHtml.includes(XPRV), false, 'a private key in the EVM account key field is not sent back either');

    const nwcSecret = 'cd'.repeat(32);
    const refusedLightning = await submitSignup(cloud.url, form, { email: 'new@example.com', shop_name: 'Shop', lightning_nwc_url: `nostr+walletconnect://${'ab'.repeat(32)}?relay=wss%3A%2F%2F10.0.0.5&secret=${nwcSecret}` });
    const refusedLightningHtml = await refusedLightning.text();
    assert.match(alertOf(refusedLightningHtml)!, /\(invalid_lightning_connection\)$/);
    assert.equal(refusedLightningHtml.includes(nwcSecret), false, 'a Lightning connection is a secret: never written back into the page');

    const forged = await submitSignup(cloud.url, { ...form, csrf: 'x'.repeat(32) }, { email: 'new@example.com', shop_name: 'Shop', btc_xpub: BIP84_ZPUB });
    assert.equal(forged.status, 403);
    assert.match(alertOf(await forged.text())!, /The sign-up form expired or came from another site/);
    assert.equal(await count(), before, 'nothing stored by any refusal');
  });

  test('sign-up from the dashboard: the key and the webhook secret once, signed in at once, the key works on the API; the email is then taken', async () => {
    const form = await signupForm(cloud.url);
    const response = await submitSignup(cloud.url, form, { email: 'Self@Example.com', shop_name: 'Self Serve', btc_xpub: BIP84_ZPUB, webhook_url: 'https://hooks.example/in' });
    assert.equal(response.status, 201);
    const html = await response.text();
    const key = /<code id="new-key" class="copy">(sk_[^<]+)<\/code>/.exec(html)![1]!;
    const secret = /<code id="new-secret" class="copy">(whsec_[^<]+)<\/code>/.exec(html)![1]!;
    assert.match(html, /data-copy="new-key" aria-label="Copy API key"/);
    assert.match(html, /data-copy="new-secret" aria-label="Copy webhook secret"/);
    const me = await fetch(`${cloud.url}/api/v1/me`, { headers: { 'X-Service-Api-Key': key } });
    assert.equal(me.status, 200);
    assert.equal((await me.json()).email, 'self@example.com');
    const stored = await cloud.database.db.selectFrom('cloud_merchants').select('webhook_secret').where('email', '=', 'self@example.com').executeTakeFirstOrThrow();
    assert.equal(stored.webhook_secret, secret);

    const token = valueOf(cookieOf(response.headers.getSetCookie(), SESSION_COOKIE))!;
    const overview = await open(cloud.url, '/dashboard', token);
    assert.equal(overview.status, 200, 'signed in by the sign-up itself');
    const overviewHtml = await overview.text();
    assert.match(overviewHtml, /<p class="brand">Self Serve<\/p>/);
    assert.equal(overviewHtml.includes(key) || overviewHtml.includes(secret), false, 'shown once only');

    const again = await submitSignup(cloud.url, await signupForm(cloud.url), { email: 'self@example.com', shop_name: 'Other', btc_xpub: BIP84_ZPUB });
    assert.equal(again.status, 409);
    assert.equal(alertOf(await again.text()), 'An account with this email exists. (email_taken)');
  });

  test('sign-up from the dashboard with EVM chains: one EVM account key fills the EVM chains left empty; the overview names each chain, the invoice form offers its assets', async () => {
    const form = await signupForm(cloud.url);
    const response = await submitSignup(cloud.url, form, { email: 'evm@example.com', shop_name: 'EVM Shop', polygon_address: EVM_ADDRESS, evm_xpub: EVM_XPUB });
    assert.equal(response.status, 201);
    const key = /<code id="new-key" class="copy">(sk_[^<]+)<\/code>/.exec(await response.text())![1]!;
    const me = await (await fetch(`${cloud.url}/api/v1/me`, { headers: { 'X-Service-Api-Key': key } })).json();
    const shortXpub = `${EVM_XPUB.slice(0, 8)}…${EVM_XPUB.slice(-4)}`;
    assert.deepEqual(
      me.chains,
      chainNames.filter(isEvmChain).map((chain) => (chain === 'polygon' ? { chain, mode: 'fixed-address', xpub: null, fixed_address: EVM_ADDRESS } : { chain, mode: 'xpub', xpub: shortXpub, fixed_address: null })),
      'every EVM chain but the one with its own address takes the shared key; no Bitcoin',
    );
    const token = valueOf(cookieOf(response.headers.getSetCookie(), SESSION_COOKIE))!;
    const chains = /<ul id="chains">\n([\s\S]*?)\n<\/ul>/.exec(await (await open(cloud.url, '/dashboard', token)).text())![1]!;
    assert.match(chains, new RegExp(`<strong>Ethereum</strong>: xpub <code>${shortXpub}</code>`));
    assert.match(chains, new RegExp(`<strong>Polygon</strong>: fixed address <code>${EVM_ADDRESS}</code>`));
    assert.equal(chains.includes(EVM_XPUB), false, 'the overview shows the masked key only');
    const invoiceForm = await (await open(cloud.url, '/dashboard/invoices/new', token)).text();
    const offered = [...invoiceForm.matchAll(/<option value="([^"]+)"[^>]*>([^<]+)</g)].map((m) => m[2]);
    // The platform's default EVM tokens are USDC only (no EVM_TOKENS here), so USDC is all there is to offer.
    assert.deepEqual(offered, ['USDC (on Ethereum), amount in US dollars', 'USDC (on Polygon), amount in US dollars'], 'the assets of the chains with platform settings');
  });

  test('new invoice form: bad input gets a readable error on the form (never a 500) and stores nothing; a good one gives the checkout link and QR code', async () => {
    const token = await signIn(cloud.url, merchant.api_key);
    const formPage = await (await open(cloud.url, '/dashboard/invoices/new', token)).text();
    assert.deepEqual([...formPage.matchAll(/<option value="([^"]+)"/g)].map((m) => m[1]), ['btc'], 'only the assets of this account (a Bitcoin key, no Base)');
    const count = async () => (await cloud.database.db.selectFrom('invoices').select('invoice_id').where('merchant_id', '=', merchant.merchant_id).execute()).length;
    const before = await count();
    const refusals: [Record<string, string>, number, RegExp][] = [
      [{ asset: 'btc', amount: 'fifty' }, 400, /^The amount is a whole number of sats, e\.g\. 50000\. \(invalid_amount\)$/],
      [{ asset: 'btc', amount: '' }, 400, /\(invalid_amount\)$/],
      [{ asset: 'btc', amount: '0.5' }, 400, /^amount_sats: .*\(invalid_amount\)$/],
      [{ asset: 'btc', amount: '-3' }, 400, /\(invalid_amount\)$/],
      [{ asset: 'usdc-base', amount: '12.50' }, 400, /^Choose one of the assets of your account: btc\. \(asset_disabled\)$/],
      [{ asset: 'doge', amount: '1' }, 400, /\(asset_disabled\)$/],
      [{ asset: 'btc', amount: '5000', lifetime_min: 'soon' }, 400, /^The lifetime is a whole number of minutes, at least 1\. \(bad_body\)$/],
      [{ asset: 'btc', amount: '5000', lifetime_min: '0' }, 400, /\(bad_body\)$/],
      [{ asset: 'btc', amount: '5000', memo: 'm'.repeat(201) }, 400, /^memo: .*\(bad_body\)$/],
      [{ asset: 'btc', amount: '5000', paid_with: 'pigeon' }, 400, /^Choose how the invoice may be paid: on-chain or Lightning, Lightning only, or on-chain only\. \(bad_body\)$/],
    ];
    for (const [fields, status, message] of refusals) {
      const response = await postForm(cloud.url, '/dashboard/invoices', token, formPage, fields);
      assert.equal(response.status, status, JSON.stringify(fields));
      const html = await response.text();
      assert.match(alertOf(html) ?? '', message, JSON.stringify(fields));
      assert.match(html, /<h1>New invoice<\/h1>/);
      assert.equal(inputValue(html, 'amount'), fields.amount!.replace(/&/g, '&amp;'), 'the form keeps what was typed');
    }
    assert.equal(await count(), before, 'no refused form stored an invoice');

    const response = await postForm(cloud.url, '/dashboard/invoices', token, formPage, { asset: 'btc', amount: '25000', memo: 'Table 4 & 5', lifetime_min: '30' });
    assert.equal(response.status, 201);
    const html = await response.text();
    const id = /Invoice <code>(inv_[^<]+)<\/code> created: 0\.00025000 BTC\./.exec(html)![1]!;
    assert.match(html, new RegExp(`<code id="checkout-url" class="copy">https://pay\\.example/pay/${id}</code>`));
    assert.match(html, new RegExp(`<a id="open-checkout" href="https://pay\\.example/pay/${id}"`));
    assert.match(html, /<figure class="qr"><div role="img" aria-label="QR code of the checkout link"><svg /);
    assert.match(html, /<script src="\/dashboard\/assets\/dashboard\.[0-9a-f]{12}\.js" integrity="sha384-/);
    const row = await cloud.database.db.selectFrom('invoices').selectAll().where('invoice_id', '=', id).executeTakeFirstOrThrow();
    assert.equal(row.memo, 'Table 4 & 5');
    assert.equal(Number(row.amount_sats), 25_000);
    assert.equal(Number(row.expires_at) - Number(row.created_at), 30 * 60_000);
  });

  test('invoice list: each invoice links to its checkout page, and the list refreshes itself', async () => {
    const token = await signIn(cloud.url, merchant.api_key);
    const html = await (await open(cloud.url, '/dashboard/invoices', token)).text();
    // The page script reloads it every 10 s, with a pause button (no meta refresh, which no one could stop).
    assert.match(html, /<table id="invoices" data-refresh-s="10">/);
    assert.match(html, /<button type="button" id="pause-updates" class="secondary" aria-pressed="false" hidden>Pause updates<\/button>/);
    assert.match(html, /<script src="\/dashboard\/assets\/dashboard\.[0-9a-f]{12}\.js" integrity="sha384-/);
    assert.doesNotMatch(html, /http-equiv="refresh"/);
    assert.match(html, /<a class="button" href="\/dashboard\/invoices\/new">Create an invoice<\/a>/);
    const ids = [...html.matchAll(/<td data-label="Invoice"><a href="https:\/\/pay\.example\/pay\/(inv_[^"]+)"><code>(inv_[^<]+)<\/code><\/a><\/td>/g)];
    assert.ok(ids.length > 0);
    for (const [, linked, shown] of ids) assert.equal(linked, shown);
  });

  test('plan page with card payments only: upgrades by card, no method that would fail, and the sentence says how', async () => {
    const token = await signIn(cloud.url, merchant.api_key);
    const html = await (await open(cloud.url, '/dashboard/plan', token)).text();
    assert.match(html, /<p id="how-to-pay">Paid plans can be bought here by card\.<\/p>/);
    assert.doesNotMatch(html, /Crypto \(USDC on Base\)|<select/, 'crypto billing is not set up, so it is not offered');
    assert.equal([...html.matchAll(/<input type="hidden" name="method" value="card">/g)].length, 2, 'starter and pro');
    assert.equal([...html.matchAll(/>Upgrade to (starter|pro)<\/button>/g)].length, 2);
  });
});

for (const database of testDatabases) describe(`dashboard sign-up throttled like the API (${database.name})`, { skip: database.skip }, () => {
  let cloud: RunningCloud;
  let drop: () => Promise<void>;
  before(async () => {
    const created = await database.create();
    drop = created.drop;
    cloud = await startTestCloud({ env: { DATABASE_URL: created.url, CLOUD_SIGNUP_RATE_LIMIT: '2,100' }, deps: { clock: manualClock(Date.UTC(2026, 10, 22, 12)) } });
  });
  after(async () => {
    await cloud?.stop();
    await drop?.();
  });

  test("the API's sign-ups and the dashboard's share one window per IP: past it, a readable 429 page with Retry-After, and nothing stored", async () => {
    await signupMerchant(cloud.url, { btc_xpub: BIP84_ZPUB });
    const form = await signupForm(cloud.url);
    const second = await submitSignup(cloud.url, form, { email: 'second@example.com', shop_name: 'Second', btc_xpub: BIP84_ZPUB });
    assert.equal(second.status, 201);
    const third = await submitSignup(cloud.url, await signupForm(cloud.url), { email: 'third@example.com', shop_name: 'Third', btc_xpub: BIP84_ZPUB });
    assert.equal(third.status, 429);
    assert.equal(third.headers.get('retry-after'), '60');
    assert.equal(third.headers.get('content-type'), 'text/html; charset=utf-8');
    const html = await third.text();
    assert.equal(alertOf(html), 'Too many signups; retry in 60 s. (rate_limited)');
    assert.equal(inputValue(html, 'email'), 'third@example.com');
    const api = await fetch(`${cloud.url}/api/v1/signup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'fourth@example.com', shop_name: 'Fourth', btc_xpub: BIP84_ZPUB }) });
    assert.equal(api.status, 429, 'the dashboard sign-up counted on the API too');
    const emails = (await cloud.database.db.selectFrom('cloud_merchants').select('email').execute()).map((r) => r.email);
    assert.equal(emails.includes('third@example.com') || emails.includes('fourth@example.com'), false);
  });
});

describe('plan page with crypto billing and card payments set up', () => {
  let cloud: RunningCloud;
  before(async () => {
    cloud = await startTestCloud({
      env: { CLOUD_BILLING_MERCHANT_ID: 'm_operator', CLOUD_CHECKOUT_BASE_URL: 'https://pay.example' },
      deps: { card: { createCheckout: async (request) => ({ url: `https://cards.example/checkout/${request.subscriptionId}` }) } },
    });
  });
  after(() => cloud?.stop());

  test('each paid plan offers both methods to choose from, and the sentence names both', async () => {
    const merchant = await signupMerchant(cloud.url, { btc_xpub: BIP84_ZPUB });
    const token = await signIn(cloud.url, merchant.api_key);
    const html = await (await open(cloud.url, '/dashboard/plan', token)).text();
    assert.match(html, /<p id="how-to-pay">Paid plans can be bought here by crypto \(USDC on Base\) or card\.<\/p>/);
    for (const plan of ['starter', 'pro']) {
      assert.match(html, new RegExp(`<select id="method-${plan}" name="method"><option value="crypto">Crypto \\(USDC on Base\\)</option><option value="card">Card</option></select>`));
    }
    assert.equal([...html.matchAll(/>Upgrade to (starter|pro)<\/button>/g)].length, 2);
  });
});
