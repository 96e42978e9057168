import { defaultChains } from '../../../core/chains/default-chains.ts';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { RunningCloud } from '../../../cloud/cloud-app.ts';
import { hashApiKey, newApiKey } from '../../../cloud/keys/api-keys.ts';
import { loadCloudConfig } from '../../../cloud/cloud-config.ts';
import { SESSION_COOKIE } from '../../../cloud/dashboard/page-kit.ts';
import { insertApiKey, revokeApiKey } from '../../../cloud/merchants/merchant.repository.ts';
import { manualClock } from '../../../core/clock.ts';
import { ConfigError } from '../../../edge/settings.ts';
import { createLogger } from '../../../core/log.ts';
import { getJson, signupMerchant, startTestCloud } from '../../helpers/cloud.ts';
import { cookieOf, FORM, loginForm, open, postForm, signIn } from '../../helpers/dashboard.ts';
import { testDatabases } from '../../helpers/databases.ts';
import { BIP84_ZPUB, postJson } from '../../helpers/listener.ts';

const T0 = Date.UTC(2026, 10, 22, 12);
const newKeyIn = (html: string) => /<code id="new-key" class="copy">(sk_[A-Za-z0-9_-]+)<\/code>/.exec(html)?.[1];
const alertIn = (html: string) => /role="alert">([^<]*)</.exec(html)?.[1];
const statusIn = (html: string) => /role="status">([^<]*)</.exec(html)?.[1];

for (const database of testDatabases) describe(`dashboard API keys (${database.name})`, { skip: database.skip }, () => {
  let cloud: RunningCloud;
  let drop: () => Promise<void>;
  const logLines: string[] = [];
  const clock = manualClock(T0);

  before(async () => {
    const created = await database.create();
    drop = created.drop;
    cloud = await startTestCloud({
      // Sign-in throttling has its own tests below; here every test signs up and in freely.
      env: { DATABASE_URL: created.url, CLOUD_SIGNIN_RATE_LIMIT: 'off', CLOUD_SIGNUP_RATE_LIMIT: 'off' },
      deps: { clock, logger: createLogger({ clock, write: (line) => logLines.push(line) }) },
    });
  });
  after(async () => {
    await cloud?.stop();
    await drop?.();
  });

  const keyRows = (merchantId: string) => cloud.database.db.selectFrom('cloud_api_keys').selectAll().where('merchant_id', '=', merchantId).orderBy('created_at').execute();
  const keyed = (apiKey: string) => ({ 'X-Service-Api-Key': apiKey });

  /** Issues a key from the keys page of a session; returns the page and the key read from it. */
  async function issue(token: string, label: string) {
    const keysPage = await (await open(cloud.url, '/dashboard/keys', token)).text();
    const response = await postForm(cloud.url, '/dashboard/keys', token, keysPage, { label });
    const html = await response.text();
    return { status: response.status, html, key: newKeyIn(html) };
  }

  async function revoke(token: string, prefix: string) {
    const keysPage = await (await open(cloud.url, '/dashboard/keys', token)).text();
    const response = await postForm(cloud.url, '/dashboard/keys/revoke', token, keysPage, { prefix });
    return { status: response.status, html: await response.text(), setCookies: response.headers.getSetCookie() };
  }

  test('an issued key is shown once, works at once on /api/v1 and for sign-in, and is only stored as its hash', async () => {
    const merchant = await signupMerchant(cloud.url, { btc_xpub: BIP84_ZPUB });
    const token = await signIn(cloud.url, merchant.api_key);
    clock.advance(60_000);
    const issued = await issue(token, '  shop <backend>  ');
    assert.equal(issued.status, 200);
    const key = issued.key!;
    assert.match(key, /^sk_[A-Za-z0-9_-]{43}$/);
    assert.notEqual(key, merchant.api_key);
    assert.match(issued.html, /New API key “shop &lt;backend&gt;”, shown once\.<\/strong> Copy it now/);
    assert.match(issued.html, /it cannot be shown again, only its hash is stored/);

    const me = await getJson(`${cloud.url}/api/v1/me`, keyed(key));
    assert.equal(me.status, 200);
    assert.equal(me.json.merchant_id, merchant.merchant_id);
    assert.deepEqual(
      me.json.api_keys.map((k: { prefix: string; label: string; revoked: boolean }) => [k.prefix, k.label, k.revoked]),
      [
        [merchant.key_prefix, 'default', false],
        [key.slice(0, 12), 'shop <backend>', false],
      ],
    );
    assert.equal(me.json.api_keys[1].created_at, new Date(T0 + 60_000).toISOString());
    const created = await postJson(`${cloud.url}/api/v1/invoice`, { amount_sats: 10_000 }, keyed(key));
    assert.equal(created.status, 201);

    const rows = await keyRows(merchant.merchant_id);
    assert.equal(rows[1]!.key_hash, hashApiKey(key));
    assert.equal(JSON.stringify(rows).includes(key), false, 'only the hash and prefix are stored');
    const tables = ['cloud_merchants', 'cloud_dashboard_sessions', 'cloud_rate_windows'] as const;
    for (const table of tables) assert.equal(JSON.stringify(await cloud.database.db.selectFrom(table).selectAll().execute()).includes(key), false, table);

    // Not on a reload, nor on any other page, nor in any log line.
    for (const path of ['/dashboard/keys', '/dashboard', '/dashboard/invoices', '/dashboard/webhooks', '/dashboard/plan']) {
      const response = await open(cloud.url, path, token);
      assert.equal(response.status, 200, path);
      const html = await response.text();
      assert.equal(html.includes(key.slice(12)), false, `${path} shows no more than the prefix`);
    }
    assert.match(await (await open(cloud.url, '/dashboard/keys', token)).text(), new RegExp(`<code>${key.slice(0, 12)}…</code>`));
    const second = await signIn(cloud.url, key);
    assert.equal((await open(cloud.url, '/dashboard', second)).status, 200, 'the new key signs in');
    assert.ok(logLines.length > 10);
    assert.equal(logLines.some((line) => line.includes(key.slice(12))), false, 'no log line carries the key');
  });

  test('a label must be 1-60 characters without control characters: otherwise 400, a readable notice, and no key', async () => {
    const merchant = await signupMerchant(cloud.url, { btc_xpub: BIP84_ZPUB });
    const token = await signIn(cloud.url, merchant.api_key);
    for (const label of ['', '   ', 'x'.repeat(61), 'line\nbreak', 'tab\there']) {
      const refused = await issue(token, label);
      assert.equal(refused.status, 400, JSON.stringify(label));
      assert.equal(alertIn(refused.html), 'A key label is 1-60 characters, without control characters. No key was issued.');
      assert.equal(refused.key, undefined);
    }
    assert.equal((await keyRows(merchant.merchant_id)).length, 1);
    const longest = await issue(token, 'é'.repeat(60));
    assert.equal(longest.status, 200, '60 characters, counted as characters, not bytes');
    assert.ok(longest.key);
    assert.equal((await keyRows(merchant.merchant_id))[1]!.label, 'é'.repeat(60));
  });

  test('revoking a key: 401 on every keyed route at once, its sessions signed out, the other key and session untouched', async () => {
    const merchant = await signupMerchant(cloud.url, { btc_xpub: BIP84_ZPUB });
    const keeper = await signIn(cloud.url, merchant.api_key);
    const leaked = (await issue(keeper, 'leaked laptop')).key!;
    const leakedSession = await signIn(cloud.url, leaked);
    const invoice = (await postJson(`${cloud.url}/api/v1/invoice`, { amount_sats: 20_000 }, keyed(leaked))).json as { invoice_id: string };
    const prefix = leaked.slice(0, 12);

    const keysPage = await (await open(cloud.url, '/dashboard/keys', keeper)).text();
    assert.match(keysPage, new RegExp(`<a href="/dashboard/keys/revoke\\?prefix=${prefix}"[^>]*>Revoke…</a>`));
    const confirm = await open(cloud.url, `/dashboard/keys/revoke?prefix=${prefix}`, keeper);
    assert.equal(confirm.status, 200);
    const confirmHtml = await confirm.text();
    assert.match(confirmHtml, /<h1>Revoke API key<\/h1>/);
    assert.match(confirmHtml, new RegExp(`Revoke the key <code>${prefix}…</code> “leaked laptop”`));
    assert.match(confirmHtml, /every program still using it gets <code>401 unauthorized<\/code>, dashboard sessions signed in with it end, and so does every connected app approved with it\. This cannot be undone\./);
    assert.match(confirmHtml, /<a href="\/dashboard\/keys">Cancel: keep the key<\/a>/);
    assert.equal((await getJson(`${cloud.url}/api/v1/me`, keyed(leaked))).status, 200, 'the confirm page alone revokes nothing');

    const response = await postForm(cloud.url, '/dashboard/keys/revoke', keeper, confirmHtml, { prefix });
    assert.equal(response.status, 200);
    assert.equal(statusIn(await response.text()), `Key ${prefix}… is revoked: requests with it now get 401 unauthorized, and dashboard sessions signed in with it have ended.`);

    const calls = [
      () => getJson(`${cloud.url}/api/v1/me`, keyed(leaked)),
      () => getJson(`${cloud.url}/api/v1/invoices`, keyed(leaked)),
      () => getJson(`${cloud.url}/api/v1/invoice/${invoice.invoice_id}`, keyed(leaked)),
      () => postJson(`${cloud.url}/api/v1/invoice`, { amount_sats: 20_000 }, keyed(leaked)),
      () => postJson(`${cloud.url}/api/v1/webhook`, { webhook_url: 'https://public.example/hook' }, keyed(leaked)),
      () => postJson(`${cloud.url}/api/v1/billing/checkout`, { plan: 'starter' }, keyed(leaked)),
    ];
    for (const call of calls) {
      const answer = await call();
      assert.equal(answer.status, 401);
      assert.equal(answer.json.error.code, 'unauthorized');
    }
    const stillGood = await getJson(`${cloud.url}/api/v1/me`, keyed(merchant.api_key));
    assert.equal(stillGood.status, 200);
    assert.deepEqual(stillGood.json.api_keys.map((k: { revoked: boolean }) => k.revoked), [false, true]);

    const signedOut = await open(cloud.url, '/dashboard', leakedSession);
    assert.equal(signedOut.status, 302);
    assert.equal(signedOut.headers.get('location'), '/dashboard/login');
    const sessionsOfLeaked = await cloud.database.db.selectFrom('cloud_dashboard_sessions').select('session_hash').where('key_hash', '=', hashApiKey(leaked)).execute();
    assert.deepEqual(sessionsOfLeaked, [], 'its session rows are deleted, not only ignored');
    assert.equal((await open(cloud.url, '/dashboard', keeper)).status, 200, 'the session of the other key goes on');

    const again = await revoke(keeper, prefix);
    assert.equal(again.status, 404, 'a revoked key is no longer an active one');
    assert.equal(alertIn(again.html), `There is no active key ${prefix}… on this account.`);
  });

  test('the last active key cannot be revoked, and the page says why', async () => {
    const merchant = await signupMerchant(cloud.url, { btc_xpub: BIP84_ZPUB });
    const token = await signIn(cloud.url, merchant.api_key);
    const keysPage = await (await open(cloud.url, '/dashboard/keys', token)).text();
    assert.match(keysPage, /your only active key/);
    assert.doesNotMatch(keysPage, /Revoke…/);
    const why = `${merchant.key_prefix}… is your only active key, so it cannot be revoked: you would be locked out. Issue a new key first, then revoke this one.`;

    const confirm = await open(cloud.url, `/dashboard/keys/revoke?prefix=${merchant.key_prefix}`, token);
    assert.equal(confirm.status, 409);
    assert.equal(alertIn(await confirm.text()), why);
    const refused = await revoke(token, merchant.key_prefix);
    assert.equal(refused.status, 409);
    assert.equal(alertIn(refused.html), why);
    assert.equal((await keyRows(merchant.merchant_id))[0]!.revoked, 0);
    assert.equal((await getJson(`${cloud.url}/api/v1/me`, keyed(merchant.api_key))).status, 200);

  });

  test('two revocations at once of the last two keys: one wins, the other is refused as the last key (ten rounds)', async () => {
    const merchant = await signupMerchant(cloud.url, { btc_xpub: BIP84_ZPUB });
    const { db } = cloud.database;
    let remaining = merchant.key_prefix;
    for (let round = 0; round < 10; round++) {
      const fresh = newApiKey();
      await insertApiKey(db, { key_hash: fresh.hash, merchant_id: merchant.merchant_id, prefix: fresh.prefix, label: `round ${round}`, revoked: 0, created_at: clock.now() });
      const outcomes = await Promise.all([revokeApiKey(db, merchant.merchant_id, remaining), revokeApiKey(db, merchant.merchant_id, fresh.prefix)]);
      assert.deepEqual([...outcomes].sort(), ['last_key', 'revoked'], `round ${round}`);
      const active = (await keyRows(merchant.merchant_id)).filter((k) => k.revoked === 0);
      assert.equal(active.length, 1, `round ${round}: one key is always left`);
      remaining = active[0]!.prefix;
    }
  });

  test('revoking the key this session was opened with signs this session out, with a readable page', async () => {
    const merchant = await signupMerchant(cloud.url, { btc_xpub: BIP84_ZPUB });
    const token = await signIn(cloud.url, merchant.api_key);
    const replacement = (await issue(token, 'replacement')).key!;
    const revoked = await revoke(token, merchant.key_prefix);
    assert.equal(revoked.status, 200);
    assert.match(revoked.html, /<h1>Signed out<\/h1>/);
    assert.match(revoked.html, new RegExp(`Key ${merchant.key_prefix}… is revoked\\. You signed in with it, so this session has ended: sign in with another active key\\.`));
    assert.match(cookieOf(revoked.setCookies, SESSION_COOKIE)!, /^svc_session=; .*Max-Age=0/);
    assert.equal((await open(cloud.url, '/dashboard/keys', token)).status, 302);
    assert.equal((await getJson(`${cloud.url}/api/v1/me`, keyed(merchant.api_key))).status, 401);
    assert.equal((await open(cloud.url, '/dashboard', await signIn(cloud.url, replacement))).status, 200);
  });

  test('CSRF: issuing and revoking without the form token (or with a wrong one) are refused with 403 and change nothing', async () => {
    const merchant = await signupMerchant(cloud.url, { btc_xpub: BIP84_ZPUB });
    const token = await signIn(cloud.url, merchant.api_key);
    const other = (await issue(token, 'other')).key!;
    const post = (path: string, fields: Record<string, string>) =>
      fetch(`${cloud.url}${path}`, { method: 'POST', redirect: 'manual', headers: { cookie: `${SESSION_COOKIE}=${token}`, 'content-type': FORM }, body: new URLSearchParams(fields) });
    for (const csrf of [undefined, 'x'.repeat(43)]) {
      const withToken: Record<string, string> = csrf === undefined ? {} : { csrf };
      const issued = await post('/dashboard/keys', { ...withToken, label: 'forged' });
      assert.equal(issued.status, 403);
      const issuedHtml = await issued.text();
      assert.match(issuedHtml, /<h1>Form refused<\/h1>/);
      assert.equal(newKeyIn(issuedHtml), undefined);
      const revoked = await post('/dashboard/keys/revoke', { ...withToken, prefix: other.slice(0, 12) });
      assert.equal(revoked.status, 403);
      assert.match(await revoked.text(), /<h1>Form refused<\/h1>/);
    }
    const rows = await keyRows(merchant.merchant_id);
    assert.deepEqual(rows.map((r) => [r.label, r.revoked]), [['default', 0], ['other', 0]]);
    assert.equal((await getJson(`${cloud.url}/api/v1/me`, keyed(other))).status, 200);
  });

  test("another merchant's key cannot be revoked: the same 404 as a key that does not exist, and the key keeps working", async () => {
    const victim = await signupMerchant(cloud.url, { btc_xpub: BIP84_ZPUB });
    const victimSession = await signIn(cloud.url, victim.api_key);
    // Two active keys, so a refusal cannot come from the last-key rule.
    const victimSecond = (await issue(victimSession, 'second')).key!;
    const attacker = await signupMerchant(cloud.url, { btc_xpub: BIP84_ZPUB });
    const attackerSession = await signIn(cloud.url, attacker.api_key);
    await issue(attackerSession, 'own second');

    for (const prefix of [victim.key_prefix, victimSecond.slice(0, 12), 'sk_nosuchkey']) {
      const confirm = await open(cloud.url, `/dashboard/keys/revoke?prefix=${encodeURIComponent(prefix)}`, attackerSession);
      assert.equal(confirm.status, 404, prefix);
      assert.equal(alertIn(await confirm.text()), `There is no active key ${prefix}… on this account.`);
      const refused = await revoke(attackerSession, prefix);
      assert.equal(refused.status, 404, prefix);
      assert.equal(alertIn(refused.html), `There is no active key ${prefix}… on this account.`);
    }
    assert.deepEqual((await keyRows(victim.merchant_id)).map((r) => r.revoked), [0, 0]);
    assert.equal((await getJson(`${cloud.url}/api/v1/me`, keyed(victim.api_key))).status, 200);
    assert.equal((await open(cloud.url, '/dashboard', victimSession)).status, 200);
    assert.equal((await keyRows(attacker.merchant_id)).filter((r) => r.revoked === 0).length, 2, "the attacker's own keys are untouched too");
  });
});

for (const database of testDatabases) describe(`dashboard sign-in throttling (${database.name})`, { skip: database.skip }, () => {
  let instances: RunningCloud[];
  let drop: () => Promise<void>;
  let merchant: Awaited<ReturnType<typeof signupMerchant>>;
  const logLines: string[] = [];
  const clock = manualClock(T0);

  before(async () => {
    const created = await database.create();
    drop = created.drop;
    const options = {
      env: { DATABASE_URL: created.url, TRUST_PROXY: 'true', CLOUD_SIGNIN_RATE_LIMIT: '3,5' },
      deps: { clock, logger: createLogger({ clock, write: (line) => logLines.push(line) }) },
    };
    // On Postgres two instances share the windows, as behind a load balancer; attempts alternate between them.
    instances = [await startTestCloud(options)];
    if (database.name === 'postgres') instances.push(await startTestCloud(options));
    merchant = await signupMerchant(instances[0]!.url, { btc_xpub: BIP84_ZPUB });
  });
  after(async () => {
    for (const instance of instances ?? []) await instance.stop();
    await drop?.();
  });

  let attempts = 0;
  async function attempt(ip: string, apiKey: string) {
    const { url } = instances[attempts++ % instances.length]!;
    const form = await loginForm(url);
    const response = await fetch(`${url}/dashboard/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: form.cookie, 'content-type': FORM, 'x-forwarded-for': ip },
      body: new URLSearchParams({ csrf: form.csrf, api_key: apiKey }),
    });
    return { status: response.status, retryAfter: response.headers.get('retry-after'), html: await response.text(), session: cookieOf(response.headers.getSetCookie(), SESSION_COOKIE) };
  }

  test('3 attempts per IP a minute, then 429 with Retry-After and a readable page, even for the right key; allowed again after the window', async () => {
    for (let i = 0; i < 3; i++) assert.equal((await attempt('10.0.0.1', `sk_guess${i}`)).status, 401);
    const throttled = await attempt('10.0.0.1', merchant.api_key);
    assert.equal(throttled.status, 429);
    assert.equal(throttled.retryAfter, '60');
    assert.equal(throttled.session, undefined, 'no session, and the key was not even looked up');
    assert.match(throttled.html, /<h1>Sign in<\/h1>/);
    assert.equal(alertIn(throttled.html), 'Too many sign-in attempts from your network. Try again in 60 seconds.');

    clock.advance(20_000);
    assert.equal((await attempt('10.0.0.2', 'sk_guess3')).status, 401, 'another IP has its own window');
    assert.equal((await attempt('10.0.0.2', 'sk_guess4')).status, 401);
    const overall = await attempt('10.0.0.2', 'sk_guess5');
    assert.equal(overall.status, 429, 'five attempts in all this minute: an address already trying is held back');
    assert.equal(overall.retryAfter, '40', 'until the first of them leaves the window');
    const fresh = await attempt('10.0.0.3', merchant.api_key);
    assert.equal(fresh.status, 303, 'the overall ceiling never refuses an address its first attempt');
    assert.ok(fresh.session);

    clock.advance(39_999);
    assert.equal((await attempt('10.0.0.1', merchant.api_key)).retryAfter, '1');
    clock.advance(1);
    const allowed = await attempt('10.0.0.1', merchant.api_key);
    assert.equal(allowed.status, 303);
    assert.ok(allowed.session);

    const buckets = await instances[0]!.database.db.selectFrom('cloud_rate_windows').select('bucket').where('bucket', 'like', 'dashboard-signin:%').orderBy('bucket').execute();
    assert.deepEqual(buckets.map((b) => b.bucket), ['dashboard-signin:*', 'dashboard-signin:10.0.0.1', 'dashboard-signin:10.0.0.2', 'dashboard-signin:10.0.0.3']);
    const warnings = logLines.filter((line) => line.includes('dashboard sign-in throttled'));
    assert.equal(warnings.length, 3);
    assert.equal(logLines.some((line) => line.includes(merchant.api_key)), false, 'no log line carries the key');
  });

  test('sign-ins per account: the right key from ever new addresses opens at most 3 sessions a minute', async () => {
    clock.advance(60_000);
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await attempt(`10.0.1.${i}`, merchant.api_key)).status);
    assert.deepEqual(statuses, [303, 303, 303, 429, 429]);
    const held = await attempt('10.0.1.9', merchant.api_key);
    assert.equal(alertIn(held.html), `Too many sign-ins to this account. Try again in ${held.retryAfter} seconds.`);
    assert.equal(held.session, undefined);
    clock.advance(60_000);
    assert.equal((await attempt('10.0.1.9', merchant.api_key)).status, 303);
  });
});

for (const database of testDatabases) describe(`dashboard sign-in cannot be locked for everyone (${database.name})`, { skip: database.skip }, () => {
  test('320 wrong keys from 32 addresses (the default 10 a minute each) do not stop the right key from a fresh address', async () => {
    const created = await database.create();
    const cloud = await startTestCloud({ env: { DATABASE_URL: created.url, TRUST_PROXY: 'true' }, deps: { clock: manualClock(T0) } });
    try {
      const merchant = await signupMerchant(cloud.url, { btc_xpub: BIP84_ZPUB });
      const post = async (ip: string, apiKey: string) => {
        const form = await loginForm(cloud.url);
        const response = await fetch(`${cloud.url}/dashboard/login`, {
          method: 'POST',
          redirect: 'manual',
          headers: { cookie: form.cookie, 'content-type': FORM, 'x-forwarded-for': ip },
          body: new URLSearchParams({ csrf: form.csrf, api_key: apiKey }),
        });
        await response.arrayBuffer();
        return response.status;
      };
      const statuses: number[] = [];
      for (let address = 0; address < 32; address++) for (let i = 0; i < 10; i++) statuses.push(await post(`198.51.100.${address}`, `sk_wrong_${address}_${i}`));
      assert.ok(statuses.every((s) => s === 401 || s === 429), statuses.join(' '));
      assert.ok(statuses.includes(429), 'the overall ceiling (300 a minute) was reached');
      assert.equal(await post('203.0.113.7', merchant.api_key), 303, 'the right key from a fresh address signs in');
    } finally {
      await cloud.stop();
      await created.drop();
    }
  });
});

describe('CLOUD_SIGNIN_RATE_LIMIT', () => {
  const base = { DATABASE_URL: 'sqlite:/tmp/unused.db' };
  test('defaults to 10 per IP and 300 overall a minute; off, a pair, or a refused value', () => {
    assert.deepEqual(loadCloudConfig(base, defaultChains).signInRateLimit, { perClient: 10, overall: 300 });
    assert.deepEqual(loadCloudConfig({ ...base, CLOUD_SIGNIN_RATE_LIMIT: '4,40' }, defaultChains).signInRateLimit, { perClient: 4, overall: 40 });
    assert.equal(loadCloudConfig({ ...base, CLOUD_SIGNIN_RATE_LIMIT: 'off' }, defaultChains).signInRateLimit, null);
    assert.throws(() => loadCloudConfig({ ...base, CLOUD_SIGNIN_RATE_LIMIT: 'lots' }, defaultChains), (error) => error instanceof ConfigError && /CLOUD_SIGNIN_RATE_LIMIT must be/.test(error.message));
  });
});
