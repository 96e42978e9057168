import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isPublicAddress } from '../../core/net/public-address.ts';
import { checkWebhookUrl, type Resolver } from '../../core/net/webhook-target.ts';
import { enqueueEvent } from '../../core/events/outbox.ts';
import { verifyWebhook } from '../../core/webhooks/index.ts';
import { startTestCloud, signupMerchant } from '../helpers/cloud.ts';
import { BIP84_ZPUB, postJson } from '../helpers/listener.ts';
import { startScriptedReceiver } from '../helpers/scripted-receiver.ts';

const names: Record<string, string[]> = {
  'public.example': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
  'rebind.example': ['127.0.0.1'],
  'mixed.example': ['93.184.216.34', '10.1.2.3'],
  'metadata.example': ['169.254.169.254'],
};
const resolver: Resolver = async (host) => {
  const addresses = names[host];
  if (!addresses) throw new Error('ENOTFOUND');
  return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};
const policy = { resolve: resolver, allowLoopback: false };

describe('webhook URL checks (SSRF)', () => {
  const refused = [
    ['plain http', 'http://public.example/hook'],
    ['non-default port', 'https://public.example:8443/hook'],
    ['explicit port 443 written out is the default', null],
    ['credentials', 'https://user:pw@public.example/hook'],
    ['private IPv4 literal', 'https://192.168.1.10/hook'],
    ['loopback IPv4 literal', 'https://127.0.0.1/hook'],
    ['CGNAT', 'https://100.64.0.1/hook'],
    ['link-local / metadata literal', 'https://169.254.169.254/latest/meta-data'],
    ['a name resolving to metadata', 'https://metadata.example/hook'],
    ['a name resolving to 127.0.0.1', 'https://rebind.example/hook'],
    ['a name with one private answer among public ones', 'https://mixed.example/hook'],
    ['IPv6 loopback', 'https://[::1]/hook'],
    ['IPv6 unique-local', 'https://[fd00::1]/hook'],
    ['IPv6 link-local', 'https://[fe80::1]/hook'],
    ['IPv4-mapped IPv6 loopback', 'https://[::ffff:127.0.0.1]/hook'],
    ['IPv4-mapped IPv6 private (hex form)', 'https://[::ffff:a00:1]/hook'],
    ['multicast', 'https://224.0.0.1/hook'],
    ['unresolvable name', 'https://nowhere.example/hook'],
    ['not a URL', 'hooks'],
  ] as const;
  for (const [name, url] of refused) {
    if (url === null) continue;
    it(`refuses ${name}`, async () => {
      await assert.rejects(checkWebhookUrl(url, policy), (error: { code?: string }) => error.code === 'invalid_webhook_url');
    });
  }
  it('accepts https on the default port to a host resolving only to public addresses', async () => {
    const target = await checkWebhookUrl('https://public.example/hook', policy);
    assert.equal(target.address.address, '93.184.216.34');
    assert.equal((await checkWebhookUrl('https://public.example:443/hook', policy)).url.port, '');
    assert.equal((await checkWebhookUrl('https://[2606:2800:220:1:248:1893:25c8:1946]/hook', policy)).address.family, 6);
  });
  it('classifies addresses', () => {
    for (const ip of ['8.8.8.8', '1.1.1.1', '2001:4860:4860::8888', '::ffff:8.8.8.8']) assert.equal(isPublicAddress(ip), true, ip);
    for (const ip of ['0.0.0.0', '10.0.0.1', '172.16.0.1', '172.31.255.255', '192.168.0.1', '127.0.0.1', '169.254.169.254', '100.100.100.200', '198.18.0.1', '255.255.255.255', '::', '::1', 'fe80::1', 'fc00::1', 'fd00:ec2::254', 'ff02::1', '::ffff:10.0.0.1', '::ffff:7f00:1', '64:ff9b::7f00:1', '2002:7f00:1::', '2001:db8::1']) {
      assert.equal(isPublicAddress(ip), false, ip);
    }
  });
});

describe('Cloud webhook delivery', () => {
  it("delivers each merchant's events to its saved URL with its current secret, over a connection pinned to the checked address", async () => {
    const receiver = await startScriptedReceiver(() => ({ status: 200, body: '{"ok":true}' }));
    const port = new URL(receiver.url).port;
    // hooks-a.test resolves to the receiver; the delivery must go there without asking DNS again.
    let lookups = 0;
    const cloud = await startTestCloud({
      env: { CLOUD_WEBHOOK_ALLOW_LOOPBACK: 'true' },
      deps: {
        resolve: async (host) => {
          lookups++;
          if (host === 'hooks-a.test' || host === 'hooks-b.test') return [{ address: '127.0.0.1', family: 4 }];
          throw new Error('ENOTFOUND');
        },
        webhooks: { pollIntervalMs: 20 },
      },
    });
    try {
      const a = await signupMerchant(cloud.url, { btc_xpub: BIP84_ZPUB, webhook_url: `http://hooks-a.test:${port}/a` });
      const b = await signupMerchant(cloud.url, { btc_xpub: BIP84_ZPUB, webhook_url: `http://hooks-b.test:${port}/b` });
      const rotated = await postJson(`${cloud.url}/api/v1/webhook`, { webhook_url: `http://hooks-b.test:${port}/b2` }, { 'X-Service-Api-Key': b.api_key });
      const payload = (merchantId: string, id: string) => ({
        event: 'invoice.confirmed' as const, invoice_id: id, merchant_id: merchantId, chain: 'btc' as const, asset: 'BTC', amount: '0.00001000',
        address: 'bc1q', tx_hash: 'ab'.repeat(32), confirmations: 1, confirmed_at: new Date().toISOString(),
      });
      const before = lookups;
      await enqueueEvent(cloud.database.db, { merchantId: a.merchant_id, payload: payload(a.merchant_id, 'inv_a'), createdAt: Date.now() });
      await enqueueEvent(cloud.database.db, { merchantId: b.merchant_id, payload: payload(b.merchant_id, 'inv_b'), createdAt: Date.now() });
      await enqueueEvent(cloud.database.db, { merchantId: 'no_webhook', payload: payload('no_webhook', 'inv_c'), createdAt: Date.now() });
      const deadline = Date.now() + 10_000;
      while (receiver.requests.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      await new Promise((r) => setTimeout(r, 200));
      assert.equal(receiver.requests.length, 2);
      const byPath = Object.fromEntries(receiver.requests.map((req) => [req.path, req]));
      assert.ok(verifyWebhook(byPath['/a'].body, byPath['/a'].headers, a.webhook_secret!).ok);
      assert.equal(JSON.parse(byPath['/a'].body.toString()).merchant_id, a.merchant_id);
      // B's URL and secret were replaced: the old secret no longer signs.
      assert.ok(verifyWebhook(byPath['/b2'].body, byPath['/b2'].headers, rotated.json.webhook_secret).ok);
      assert.equal(verifyWebhook(byPath['/b2'].body, byPath['/b2'].headers, b.webhook_secret!).ok, false);
      assert.equal(byPath['/b2'].headers.host, `hooks-b.test:${port}`);
      assert.equal(lookups - before, 2, 'one check per delivery, the connection used its answer');
    } finally {
      await cloud.stop();
      await receiver.close();
    }
  });

  it('re-checks before every delivery: a name that now resolves to 127.0.0.1 is not contacted', async () => {
    const receiver = await startScriptedReceiver(() => ({ status: 200 }));
    let answer = '93.184.216.34';
    const cloud = await startTestCloud({
      deps: { resolve: async () => [{ address: answer, family: 4 }], webhooks: { pollIntervalMs: 20 } },
    });
    try {
      const m = await signupMerchant(cloud.url, { btc_xpub: BIP84_ZPUB, webhook_url: 'https://rebinding.test/hook' });
      answer = '127.0.0.1';
      const eventId = await enqueueEvent(cloud.database.db, {
        merchantId: m.merchant_id,
        payload: { event: 'invoice.confirmed', invoice_id: 'inv_r', merchant_id: m.merchant_id, chain: 'btc', asset: 'BTC', amount: '1', address: 'x', tx_hash: 'y', confirmations: 1, confirmed_at: new Date().toISOString() },
        createdAt: Date.now(),
      });
      const deadline = Date.now() + 5_000;
      let attempt;
      while (!attempt && Date.now() < deadline) {
        attempt = await cloud.database.db.selectFrom('webhook_attempts').selectAll().where('event_id', '=', eventId).executeTakeFirst();
        await new Promise((r) => setTimeout(r, 20));
      }
      assert.ok(attempt);
      assert.match(attempt.error!, /refused before sending: .*public addresses/);
      assert.equal(receiver.requests.length, 0);
    } finally {
      await cloud.stop();
      await receiver.close();
    }
  });
});
