import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { HDNodeWallet } from 'ethers';
import { startTestCloud, signupMerchant, getJson } from '../helpers/cloud.ts';
import { BIP84_ZPUB, postJson } from '../helpers/listener.ts';
import { createLogger } from '../../core/log.ts';
import { hashApiKey } from '../../cloud/keys/api-keys.ts';
import type { RunningCloud } from '../../cloud/cloud-app.ts';

// BIP-84 test vector account private key (the zprv of BIP84_ZPUB): must be refused, never echoed.
const BIP84_ZPRV =
  'zprvAdG4iTXWBoARxkkzNpNh8r6Qag3irQB8PzEMkAFeTRXxHpbF9z4QgEvBRmfvqWvGp42t42nvgGpNgYSJA9iefm1yYNZKEm7z6qUWCroSQnE';
const wallet = HDNodeWallet.fromPhrase('test test test test test test test test test test test junk', undefined, "m/44'/60'/0'");
const BASE_XPUB = wallet.neuter().extendedKey;
const BASE_ADDRESS = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

describe('Cloud /api/v1', () => {
  let cloud: RunningCloud;
  const logLines: string[] = [];
  let a: Awaited<ReturnType<typeof signupMerchant>>;
  let b: Awaited<ReturnType<typeof signupMerchant>>;
  const api = (path: string) => `${cloud.url}/api/v1${path}`;
  const keyA = () => ({ 'X-Service-Api-Key': a.api_key });
  const keyB = () => ({ 'X-Service-Api-Key': b.api_key });

  before(async () => {
    cloud = await startTestCloud({
      // Ethereum's platform settings (no watching here): merchants may receive on it.
      env: { CLOUD_CHECKOUT_BASE_URL: 'https://pay.example.com', CLOUD_SIGNUP_RATE_LIMIT: '1000,1000', ETH_RPC_URL: 'http://127.0.0.1:9', ETH_MIN_SOURCES: '1' },
      deps: { logger: createLogger({ write: (line) => logLines.push(line) }) },
    });
    a = await signupMerchant(cloud.url, { shop_name: 'Shop A', btc_xpub: BIP84_ZPUB, webhook_url: 'https://hooks.example.com/a' });
    b = await signupMerchant(cloud.url, { shop_name: 'Shop B', base_address: BASE_ADDRESS, btc_xpub: BIP84_ZPUB });
  });
  after(() => cloud.stop());

  it('signup answers 201 with the key once, a Free plan, and a webhook secret only with a URL', async () => {
    assert.equal(a.plan, 'free');
    assert.match(a.api_key, /^sk_[A-Za-z0-9_-]{43}$/);
    assert.equal(a.key_prefix, a.api_key.slice(0, 12));
    assert.match(a.webhook_secret!, /^whsec_/);
    assert.equal(b.webhook_secret, undefined);
    const stored = await cloud.database.db.selectFrom('cloud_api_keys').selectAll().where('merchant_id', '=', a.merchant_id).execute();
    assert.equal(stored.length, 1);
    assert.equal(stored[0].key_hash, hashApiKey(a.api_key));
    assert.ok(!JSON.stringify(stored).includes(a.api_key), 'the key itself is not stored');
  });

  const signupCases: [string, Record<string, unknown>, string][] = [
    ['missing email', { email: undefined, btc_xpub: BIP84_ZPUB }, 'invalid_email'],
    ['malformed email', { email: 'not-an-email', btc_xpub: BIP84_ZPUB }, 'invalid_email'],
    ['one-character shop name', { shop_name: 'x', btc_xpub: BIP84_ZPUB }, 'invalid_shop_name'],
    ['81-character shop name', { shop_name: 'x'.repeat(81), btc_xpub: BIP84_ZPUB }, 'invalid_shop_name'],
    ['no receive method', {}, 'no_receive_method'],
    ['btc zprv', { btc_xpub: BIP84_ZPRV }, 'private_key_rejected'],
    ['base xprv', { base_xpub: wallet.extendedKey }, 'private_key_rejected'],
    ['bad btc xpub', { btc_xpub: 'xpub123' }, 'invalid_xpub'],
    ['bad base xpub', { base_xpub: 'xpub123' }, 'invalid_xpub'],
    ['bad address', { base_address: '0x1234' }, 'invalid_address'],
    ['lower-case address (no checksum)', { base_address: BASE_ADDRESS.toLowerCase() }, 'invalid_address'],
    ['http webhook', { btc_xpub: BIP84_ZPUB, webhook_url: 'http://hooks.example.com/a' }, 'invalid_webhook_url'],
    ['webhook to a private address', { btc_xpub: BIP84_ZPUB, webhook_url: 'https://10.0.0.1/hook' }, 'invalid_webhook_url'],
  ];
  for (const [name, body, code] of signupCases) {
    it(`signup: ${name} → 400 ${code}`, async () => {
      const response = await postJson(api('/signup'), { email: `x-${Math.random()}@example.com`, shop_name: 'Shop', ...body });
      assert.equal(response.status, 400);
      assert.equal(response.json.error.code, code);
      if (code === 'private_key_rejected') {
        const secret = String(body.btc_xpub ?? body.base_xpub);
        assert.ok(!response.text.includes(secret.slice(4, 40)), 'the private key is not echoed');
        assert.ok(!logLines.some((line) => line.includes(secret.slice(4, 40))), 'the private key is not logged');
        const rows = await cloud.database.db.selectFrom('cloud_merchants').selectAll().execute();
        assert.ok(!JSON.stringify(rows).includes(secret.slice(4, 40)), 'the private key is not stored');
      }
    });
  }

  it('signup: the same email twice → 409 email_taken (case-insensitive)', async () => {
    const email = `dup-${Date.now()}@example.com`;
    assert.equal((await postJson(api('/signup'), { email, shop_name: 'Shop', btc_xpub: BIP84_ZPUB })).status, 201);
    const again = await postJson(api('/signup'), { email: email.toUpperCase(), shop_name: 'Shop', btc_xpub: BIP84_ZPUB });
    assert.equal(again.status, 409);
    assert.equal(again.json.error.code, 'email_taken');
  });

  it('signup: base_xpub wins over base_address', async () => {
    const m = await signupMerchant(cloud.url, { base_xpub: BASE_XPUB, base_address: BASE_ADDRESS });
    const me = await getJson(api('/me'), { 'X-Service-Api-Key': m.api_key });
    assert.deepEqual(me.json.chains, [{ chain: 'base', mode: 'xpub', xpub: `${BASE_XPUB.slice(0, 8)}…${BASE_XPUB.slice(-4)}`, fixed_address: null }]);
    const row = await cloud.database.db.selectFrom('cloud_merchants').select(['base_address']).where('merchant_id', '=', m.merchant_id).executeTakeFirstOrThrow();
    assert.equal(row.base_address, null);
  });

  it('signup takes a receive method per chain beside the older fields; /me lists each, and invoices are made on each chain', async () => {
    const m = await signupMerchant(cloud.url, { receive_methods: [{ chain: 'eth', xpub: BASE_XPUB }, { chain: 'btc', xpub: BIP84_ZPUB }], base_address: BASE_ADDRESS });
    const me = await getJson(api('/me'), { 'X-Service-Api-Key': m.api_key });
    const shortXpub = `${BASE_XPUB.slice(0, 8)}…${BASE_XPUB.slice(-4)}`;
    assert.deepEqual(me.json.chains, [
      { chain: 'eth', mode: 'xpub', xpub: shortXpub, fixed_address: null },
      { chain: 'btc', mode: 'xpub', xpub: 'zpub6rFR…tZYs', fixed_address: null },
      { chain: 'base', mode: 'fixed-address', xpub: null, fixed_address: BASE_ADDRESS },
    ]);
    const row = await cloud.database.db.selectFrom('cloud_merchants').select(['btc_xpub', 'base_xpub', 'base_address']).where('merchant_id', '=', m.merchant_id).executeTakeFirstOrThrow();
    assert.deepEqual(row, { btc_xpub: BIP84_ZPUB, base_xpub: null, base_address: BASE_ADDRESS }, 'the older columns still say what they can');

    const key = { 'X-Service-Api-Key': m.api_key };
    const onEth = await postJson(api('/invoice'), { chain: 'eth', amount_usd: 3 }, key);
    assert.equal(onEth.status, 201, onEth.text);
    assert.equal(onEth.json.chain, 'eth');
    assert.equal(onEth.json.receive_address, wallet.deriveChild(0).deriveChild(0).address, 'child 0 of the merchant\'s EVM key');
    assert.match(onEth.json.qr_uri, /^ethereum:0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48@1\/transfer\?/, 'Ethereum\'s USDC, on chain id 1');
    // This instance has no Base RPC URL: the merchant's Base method waits for the platform's.
    const onBase = await postJson(api('/invoice'), { chain: 'base', amount_usd: 3, asset: 'usdt' }, key);
    assert.equal(onBase.json.error.code, 'base_disabled', onBase.text);
  });

  const methodCases: [string, unknown, string][] = [
    ['an unknown chain', [{ chain: 'doge', xpub: BASE_XPUB }], 'unsupported_chain'],
    ['a fixed address for Bitcoin', [{ chain: 'btc', address: BASE_ADDRESS }], 'invalid_address'],
    ['a bad EVM address', [{ chain: 'eth', address: '0x1234' }], 'invalid_address'],
    ['a Bitcoin key on an EVM chain', [{ chain: 'eth', xpub: BIP84_ZPUB }], 'invalid_xpub'],
    ['an entry with neither', [{ chain: 'eth' }], 'no_receive_method'],
    ['a chain twice', [{ chain: 'eth', xpub: BASE_XPUB }, { chain: 'eth', address: BASE_ADDRESS }], 'bad_body'],
    ['not a list', { chain: 'eth', xpub: BASE_XPUB }, 'bad_body'],
  ];
  for (const [title, methods, code] of methodCases) {
    it(`signup with receive_methods holding ${title} answers ${code}`, async () => {
      const r = await postJson(api('/signup'), { email: `m${Math.random()}@example.com`, shop_name: 'Shop', receive_methods: methods });
      assert.equal(r.status, 400, r.text);
      assert.equal(r.json.error.code, code);
    });
  }

  it('GET /me: account fields, shortened xpub, no secrets', async () => {
    const me = await getJson(api('/me'), keyA());
    assert.equal(me.status, 200);
    assert.equal(me.json.merchant_id, a.merchant_id);
    assert.equal(me.json.shop_name, 'Shop A');
    assert.equal(me.json.plan, 'free');
    assert.equal(me.json.plan_expires_at, null);
    assert.equal(me.json.usage.monthly_limit, 50);
    assert.equal(me.json.webhook_url, 'https://hooks.example.com/a');
    assert.deepEqual(me.json.chains, [{ chain: 'btc', mode: 'xpub', xpub: 'zpub6rFR…tZYs', fixed_address: null }]);
    assert.equal(me.json.api_keys[0].prefix, a.key_prefix);
    assert.ok(!me.text.includes(a.api_key) && !me.text.includes(a.webhook_secret!) && !me.text.includes(BIP84_ZPUB));
  });

  it('keyed endpoints answer 401 unauthorized without or with a wrong key', async () => {
    for (const headers of [{}, { 'X-Service-Api-Key': 'sk_wrong' }] as Record<string, string>[]) {
      for (const [method, path] of [['GET', '/me'], ['GET', '/invoices'], ['POST', '/webhook'], ['POST', '/billing/checkout'], ['POST', '/invoice'], ['GET', '/invoice/inv_x']]) {
        const response = await fetch(api(path), { method, headers: { 'content-type': 'application/json', ...headers }, body: method === 'POST' ? '{}' : undefined });
        assert.equal(response.status, 401, `${method} ${path}`);
        assert.equal((await response.json()).error.code, 'unauthorized');
      }
    }
  });

  it('POST /invoice: same fields as the listener plus checkout_url; GET /invoice/:id reads it back', async () => {
    const created = await postJson(api('/invoice'), { amount_sats: 1000, memo: 'Order 1' }, keyA());
    assert.equal(created.status, 201);
    assert.equal(created.json.merchant_id, a.merchant_id);
    assert.equal(created.json.receive_address, 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu');
    assert.equal(created.json.checkout_url, `https://pay.example.com/pay/${created.json.invoice_id}`);
    const read = await getJson(api(`/invoice/${created.json.invoice_id}`), keyA());
    assert.equal(read.status, 200);
    assert.equal(read.json.amount_btc, '0.00001000');
    assert.equal(read.json.qr_uri, undefined);
    assert.equal(read.json.checkout_url, created.json.checkout_url, 'the read carries the hosted page the create answer did');
  });

  it('POST /invoice: listener codes (invalid_amount, unsupported_chain, base_disabled, bad_body)', async () => {
    const cases: [unknown, string][] = [
      [{ amount_sats: 0 }, 'invalid_amount'],
      [{ chain: 'doge', amount_sats: 1 }, 'unsupported_chain'],
      [{ chain: 'base', amount_usd: 5 }, 'base_disabled'],
      ['{nope', 'bad_body'],
    ];
    for (const [body, code] of cases) {
      const response = await postJson(api('/invoice'), body, keyA());
      assert.equal(response.json.error.code, code);
    }
  });

  it('POST /invoice: amount_usd keeps the digits the client wrote, not the double JSON.parse makes of them', async () => {
    // Base needs an RPC URL to be offered; creating an xpub invoice never calls it.
    const withBase = await startTestCloud({ env: { BASE_RPC_URL: 'http://127.0.0.1:9', BASE_MIN_SOURCES: '1' } });
    try {
      const m = await signupMerchant(withBase.url, { base_xpub: BASE_XPUB });
      const create = (body: string) => postJson(`${withBase.url}/api/v1/invoice`, body, { 'X-Service-Api-Key': m.api_key });
      const created = await create('{"chain":"base","amount_usd":12.50}');
      assert.equal(created.status, 201, created.text);
      assert.equal(created.json.amount_usd, 12.5);
      assert.equal(created.json.amount_usdc_units, 12_500_000);
      const rounded = await create('{"chain":"base","amount_usd":10.000000000000000001}');
      assert.equal(rounded.json.error.code, 'invalid_amount', rounded.text);
      assert.match(rounded.json.error.message, /more than 6 decimals/);
    } finally {
      await withBase.stop();
    }
  });

  it('tenant isolation: another merchant\'s invoice is 404 not_found exactly like a missing one', async () => {
    const created = await postJson(api('/invoice'), { amount_sats: 2000 }, keyA());
    const foreign = await getJson(api(`/invoice/${created.json.invoice_id}`), keyB());
    const missing = await getJson(api('/invoice/inv_doesnotexist0000'), keyB());
    assert.equal(foreign.status, 404);
    assert.deepEqual(foreign.json, missing.json);
    const listB = await getJson(api('/invoices'), keyB());
    assert.ok(!listB.json.invoices.some((i: { invoice_id: string }) => i.invoice_id === created.json.invoice_id));
    const meB = await getJson(api('/me'), keyB());
    assert.equal(meB.json.merchant_id, b.merchant_id);
    // B registered the same key: it draws from the key's one sequence, never A's address (docs/security.md, "Invariants").
    const own = await postJson(api('/invoice'), { amount_sats: 3000 }, keyB());
    assert.equal(own.json.merchant_id, b.merchant_id);
    assert.ok(own.json.child_index > created.json.child_index);
    assert.notEqual(own.json.receive_address, created.json.receive_address);
  });

  it('GET /invoices: most recent first, limit default 25 and clamped to 1-100', async () => {
    const m = await signupMerchant(cloud.url, { btc_xpub: BIP84_ZPUB });
    const key = { 'X-Service-Api-Key': m.api_key };
    const ids: string[] = [];
    for (let i = 0; i < 27; i++) ids.push((await postJson(api('/invoice'), { amount_sats: 100 + i }, key)).json.invoice_id);
    const byDefault = await getJson(api('/invoices'), key);
    assert.equal(byDefault.json.invoices.length, 25);
    const all = (await getJson(api('/invoices?limit=100'), key)).json.invoices;
    assert.equal(all.length, 27);
    const sorted = [...all].sort((x: { created_at: string; invoice_id: string }, y: { created_at: string; invoice_id: string }) =>
      y.created_at.localeCompare(x.created_at) || y.invoice_id.localeCompare(x.invoice_id));
    assert.deepEqual(all, sorted);
    assert.equal((await getJson(api('/invoices?limit=0'), key)).json.invoices.length, 1);
    assert.equal((await getJson(api('/invoices?limit=-5'), key)).json.invoices.length, 1);
    assert.equal((await getJson(api('/invoices?limit=1000'), key)).json.invoices.length, 27);
    assert.equal((await getJson(api('/invoices?limit=2'), key)).json.invoices.length, 2);
    const entry = all.find((i: { invoice_id: string }) => i.invoice_id === ids[0]);
    // The spec's fields, and the checkout_url the create answer carried (hosted checkout is on here).
    assert.deepEqual(Object.keys(entry).sort(), ['amount', 'asset', 'chain', 'checkout_url', 'created_at', 'expires_at', 'invoice_id', 'memo', 'metadata', 'order_id', 'paid_at', 'receive_address', 'redirect_url', 'status', 'tx_hash']);
    assert.equal(entry.amount, '0.00000100');
    assert.equal(entry.checkout_url, `https://pay.example.com/pay/${ids[0]}`);
  });

  it('serves the hosted checkout page behind checkout_url, polling the Cloud view', async () => {
    const created = await postJson(api('/invoice'), { amount_sats: 5000 }, keyA());
    const page = await fetch(`${cloud.url}/pay/${created.json.invoice_id}`);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-security-policy') ?? '', /default-src 'none'/);
    const html = await page.text();
    assert.ok(html.includes('Shop A'));
    assert.ok(html.includes('0.00005000'));
    assert.ok(html.includes('/api/v1/checkout'), 'the page script polls the Cloud view');
    for (const secret of [a.api_key, a.webhook_secret!, BIP84_ZPUB]) assert.ok(!html.includes(secret));
  });

  it('GET /checkout/:id: public, CORS open, display fields only', async () => {
    const created = await postJson(api('/invoice'), { amount_sats: 5000 }, keyA());
    const view = await getJson(api(`/checkout/${created.json.invoice_id}`), { origin: 'https://shop.example' });
    assert.equal(view.status, 200);
    assert.equal(view.headers.get('access-control-allow-origin'), '*');
    assert.equal(view.json.shop_name, 'Shop A');
    assert.equal(view.json.amount_btc, '0.00005000');
    assert.equal(view.json.verify_url, `https://mempool.space/address/${created.json.receive_address}`);
    assert.deepEqual(Object.keys(view.json).sort(), [
      'amount_btc', 'amount_due', 'asset', 'chain', 'created_at', 'expires_at', 'invoice_id', 'lightning_invoice', 'memo', 'network', 'paid_at', 'payment_seen',
      'price_amount', 'price_currency', 'qr_uri', 'rate', 'rate_at', 'rate_sources', 'receive_address', 'redirect_url', 'server_time', 'shop_name', 'status', 'tx_hash', 'tx_url', 'verify_url', 'x402_url',
    ]);
    assert.deepEqual([view.json.network, view.json.memo], ['mainnet', null]);
    for (const secret of [a.api_key, a.webhook_secret!, BIP84_ZPUB, 'example.com"', a.merchant_id]) assert.ok(!view.text.includes(secret));
    const preflight = await fetch(api(`/checkout/${created.json.invoice_id}`), { method: 'OPTIONS' });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get('access-control-allow-origin'), '*');
    const missing = await getJson(api('/checkout/inv_nope'));
    assert.equal(missing.json.error.code, 'not_found');
  });

  it('POST /webhook: a fresh secret every call; invalid URLs refused', async () => {
    const first = await postJson(api('/webhook'), { webhook_url: 'https://hooks.example.com/new' }, keyB());
    const second = await postJson(api('/webhook'), { webhook_url: 'https://hooks.example.com/new' }, keyB());
    assert.equal(first.status, 200);
    assert.equal(first.json.webhook_url, 'https://hooks.example.com/new');
    assert.notEqual(first.json.webhook_secret, second.json.webhook_secret);
    const row = await cloud.database.db.selectFrom('cloud_merchants').select('webhook_secret').where('merchant_id', '=', b.merchant_id).executeTakeFirstOrThrow();
    assert.equal(row.webhook_secret, second.json.webhook_secret);
    const bad = await postJson(api('/webhook'), { webhook_url: 'https://hooks.example.com:8443/x' }, keyB());
    assert.equal(bad.json.error.code, 'invalid_webhook_url');
  });

  it('GET /plans and GET /health', async () => {
    const plans = await getJson(api('/plans'));
    assert.deepEqual(plans.json.plans, [
      { plan: 'free', invoices_per_month: 50, price_usd_per_month: 0 },
      { plan: 'starter', invoices_per_month: 500, price_usd_per_month: 19 },
      { plan: 'pro', invoices_per_month: 5000, price_usd_per_month: 49 },
    ]);
    assert.equal(plans.json.transaction_fee, 0);
    const health = await getJson(api('/health'));
    assert.equal(health.json.ok, true);
    assert.equal(health.json.service, 'service-cloud');
    assert.ok(Math.abs(Date.parse(health.json.ts) - Date.now()) < 60_000);
    assert.equal((await getJson(api('/nope'))).json.error.code, 'not_found');
  });

  it('no log line carries an API key, webhook secret or full xpub', () => {
    const all = logLines.join('\n');
    assert.ok(logLines.length > 20);
    for (const secret of [a.api_key, b.api_key, a.webhook_secret!, BIP84_ZPUB, BASE_XPUB]) assert.ok(!all.includes(secret));
  });
});

describe('Cloud signup throttle', () => {
  it('answers 429 rate_limited with Retry-After past the per-IP window', async () => {
    const cloud = await startTestCloud({ env: { CLOUD_SIGNUP_RATE_LIMIT: '2,100' } });
    try {
      const body = () => ({ email: `t-${Math.random()}@example.com`, shop_name: 'Shop', btc_xpub: BIP84_ZPUB });
      assert.equal((await postJson(`${cloud.url}/api/v1/signup`, body())).status, 201);
      assert.equal((await postJson(`${cloud.url}/api/v1/signup`, { email: 'bad' })).status, 400);
      const third = await postJson(`${cloud.url}/api/v1/signup`, body());
      assert.equal(third.status, 429);
      assert.equal(third.json.error.code, 'rate_limited');
      const retryAfter = Number(third.headers.get('retry-after'));
      assert.ok(retryAfter >= 1 && retryAfter <= 60);
    } finally {
      await cloud.stop();
    }
  });

  it('addresses that fill the overall window cannot stop a fresh address from signing up', async () => {
    const cloud = await startTestCloud({ env: { CLOUD_SIGNUP_RATE_LIMIT: '2,4', TRUST_PROXY: 'true' } });
    try {
      const signup = (ip: string) => postJson(`${cloud.url}/api/v1/signup`, { email: `t-${Math.random()}@example.com`, shop_name: 'Shop', btc_xpub: BIP84_ZPUB }, { 'x-forwarded-for': ip });
      for (const ip of ['198.51.100.1', '198.51.100.1', '198.51.100.2', '198.51.100.2']) assert.equal((await signup(ip)).status, 201, ip);
      const third = await signup('198.51.100.3');
      assert.equal(third.status, 201, 'the overall window is full, but this address has not signed up this minute');
      const again = await signup('198.51.100.3');
      assert.equal(again.status, 429, 'its second is held back by the full overall window');
      assert.equal(again.json.error.code, 'rate_limited');
    } finally {
      await cloud.stop();
    }
  });
});
