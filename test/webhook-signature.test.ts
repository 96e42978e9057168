import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { signStandardWebhook, signWebhook, standardWebhookKey, verifyWebhook, webhookDeliveryHeaders } from '../core/webhooks/index.ts';
import { newWebhookSecret } from '../core/webhooks/signature.ts';

const secret = 'whsec_test_vector_secret';
const now = 1_750_000_000_000;

function deliveryHeaders(body: string | Uint8Array, overrides: Record<string, string | undefined> = {}) {
  return {
    'x-service-signature': signWebhook(body, secret),
    'x-service-timestamp': String(now),
    'x-service-event-id': 'evt_1',
    'x-service-attempt': '1',
    ...overrides,
  };
}

describe('signWebhook', () => {
  // Computed outside this code base: printf '%s' '<body>' | openssl dgst -sha256 -hmac 'whsec_test_vector_secret'
  // (and cross-checked with Python's hmac module).
  const vectors = [
    {
      body: '{"event":"invoice.confirmed","invoice_id":"inv_test","amount":"0.00001000"}',
      hex: '83e183a59a143156090bd12f995d18c8fdf06e5e9932ebca7a8b2b9a081482f7',
    },
    { body: 'café €', hex: '3b60bf2d35660f8ef5744adadc789927b579c3c335cc714b8b1c8c74fb6b3b50' },
  ];
  for (const { body, hex } of vectors) {
    it(`matches the pinned openssl vector for ${JSON.stringify(body)}`, () => {
      assert.equal(signWebhook(body, secret), hex);
      assert.equal(signWebhook(Buffer.from(body, 'utf8'), secret), hex);
    });
  }

  it('equals an HMAC-SHA256 computed independently over the raw bytes', () => {
    const raw = Buffer.from('{"b":1,\n "a": "ünïcode"}', 'utf8');
    const independent = createHmac('sha256', Buffer.from(secret)).update(raw).digest('hex');
    assert.equal(signWebhook(raw, secret), independent);
    assert.match(independent, /^[0-9a-f]{64}$/);
  });
});

describe('verifyWebhook', () => {
  const body = '{"event":"payment.orphan","value":"12.000417"}';

  it('accepts a correct delivery and returns the event id and attempt', () => {
    const result = verifyWebhook(body, deliveryHeaders(body, { 'x-service-attempt': '3' }), secret, now);
    assert.deepEqual(result, { ok: true, eventId: 'evt_1', attempt: 3, timestamp: now });
  });

  it('reads header names without regard to case, and fetch Headers objects', () => {
    const mixed = { 'X-Service-Signature': signWebhook(body, secret), 'X-SERVICE-TIMESTAMP': String(now), 'x-service-event-id': 'evt_1', 'X-Service-Attempt': '1' };
    assert.equal(verifyWebhook(body, mixed, secret, now).ok, true);
    assert.equal(verifyWebhook(body, new Headers(deliveryHeaders(body)), secret, now).ok, true);
  });

  it('accepts the edges of the five-minute window in both directions', () => {
    for (const ts of [now - 300_000, now + 300_000]) {
      assert.equal(verifyWebhook(body, deliveryHeaders(body, { 'x-service-timestamp': String(ts) }), secret, now).ok, true);
    }
  });

  const rejections: { name: string; body?: string; headers: Record<string, string | undefined>; secret?: string; code: string }[] = [
    { name: 'missing signature header', headers: { 'x-service-signature': undefined }, code: 'missing_header' },
    { name: 'missing timestamp header', headers: { 'x-service-timestamp': undefined }, code: 'missing_header' },
    { name: 'missing event id header', headers: { 'x-service-event-id': undefined }, code: 'missing_header' },
    { name: 'a body changed by one byte', body: body.replace('417', '418'), headers: {}, code: 'invalid_signature' },
    { name: 'the body re-serialised with spaces', body: JSON.stringify(JSON.parse(body), null, 1), headers: {}, code: 'invalid_signature' },
    { name: 'another secret', headers: {}, secret: 'whsec_other', code: 'invalid_signature' },
    { name: 'a signature that is not hex', headers: { 'x-service-signature': 'z'.repeat(64) }, code: 'invalid_signature' },
    { name: 'a truncated signature', headers: { 'x-service-signature': signWebhook(body, secret).slice(0, 63) }, code: 'invalid_signature' },
    { name: 'a timestamp that is not a number', headers: { 'x-service-timestamp': 'yesterday' }, code: 'invalid_timestamp' },
    { name: 'a timestamp 1 ms past five minutes old', headers: { 'x-service-timestamp': String(now - 300_001) }, code: 'timestamp_too_old' },
    { name: 'a timestamp in seconds instead of milliseconds', headers: { 'x-service-timestamp': String(Math.floor(now / 1000)) }, code: 'timestamp_too_old' },
    { name: 'a timestamp 1 ms past five minutes ahead', headers: { 'x-service-timestamp': String(now + 300_001) }, code: 'timestamp_too_new' },
  ];
  for (const r of rejections) {
    it(`rejects ${r.name} with ${r.code}`, () => {
      // Headers are signed over the original body; r.body is what "arrived".
      const result = verifyWebhook(r.body ?? body, deliveryHeaders(body, r.headers), r.secret ?? secret, now);
      assert.equal(result.ok, false);
      assert.equal(!result.ok && result.code, r.code);
    });
  }
});

describe('Standard Webhooks signature', () => {
  // The published vector of the Standard Webhooks reference libraries (and Svix's):
  // whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw, msg_p5jXN8AQM9LWM0D4loKWxJek, 1614265330, {"test": 2432232314}.
  it('matches the pinned reference vector', () => {
    const key = standardWebhookKey('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw');
    assert.equal(signStandardWebhook('msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}', key), 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  const whsec = `whsec_${Buffer.alloc(32, 0xa5).toString('base64')}`;
  const body = '{"event":"invoice.confirmed","invoice_id":"inv_std","amount":"0.00001000"}';
  const at = Date.now();
  const headers = (secretUsed: string, eventId = 'evt_std_1') => webhookDeliveryHeaders({ eventId, attempt: 2, body, secret: secretUsed, now: at });

  it('a delivery verifies with the standardwebhooks package', () => {
    const sent = headers(whsec);
    assert.equal(sent['webhook-id'], 'evt_std_1');
    assert.equal(sent['webhook-timestamp'], String(Math.floor(at / 1000)));
    assert.deepEqual(new Webhook(whsec).verify(body, sent), JSON.parse(body));
    assert.throws(() => new Webhook(whsec).verify(body.replace('inv_std', 'inv_evil'), sent), WebhookVerificationError);
    assert.throws(() => new Webhook(whsec).verify(body, { ...sent, 'webhook-id': 'evt_other' }), WebhookVerificationError);
  });

  it("a delivery verifies by the spec's rule computed here by hand (key = base64-decoded part after whsec_)", () => {
    const sent = headers(whsec);
    const key = Buffer.from(whsec.slice('whsec_'.length), 'base64');
    const mac = createHmac('sha256', key).update(`${sent['webhook-id']}.${sent['webhook-timestamp']}.${body}`).digest('base64');
    assert.equal(sent['webhook-signature'], `v1,${mac}`);
  });

  it('a secret not of the whsec_ + base64 form is keyed by its own bytes: whsec_ + base64(secret) or format raw verifies', () => {
    for (const other of ['plain-secret-configured-by-hand', 'whsec_base64url-_not_standard', 'whsec_']) {
      const sent = headers(other);
      assert.equal(verifyWebhook(body, sent, other, at).ok, true, other);
      assert.deepEqual(new Webhook(`whsec_${Buffer.from(other).toString('base64')}`).verify(body, sent), JSON.parse(body), other);
      assert.deepEqual(new Webhook(other, { format: 'raw' }).verify(body, sent), JSON.parse(body), other);
    }
  });

  it('verifyWebhook accepts a delivery with only the Standard Webhooks headers, signed by the standardwebhooks package', () => {
    const signature = new Webhook(whsec).sign('msg_from_lib', new Date(at), body);
    const standardOnly = { 'webhook-id': 'msg_from_lib', 'webhook-timestamp': String(Math.floor(at / 1000)), 'webhook-signature': `v1a,AAAA ${signature}` };
    assert.deepEqual(verifyWebhook(body, standardOnly, whsec, at), { ok: true, eventId: 'msg_from_lib', attempt: null, timestamp: Math.floor(at / 1000) * 1000 });
  });

  it('verifyWebhook checks every scheme present: a good X-Service signature does not excuse a bad webhook-signature', () => {
    const sent = headers(whsec);
    assert.deepEqual(verifyWebhook(body, sent, whsec, at), { ok: true, eventId: 'evt_std_1', attempt: 2, timestamp: at });
    const forged = { ...sent, 'webhook-signature': `v1,${Buffer.alloc(32).toString('base64')}` };
    const verdict = verifyWebhook(body, forged, whsec, at);
    assert.equal(!verdict.ok && verdict.code, 'invalid_signature');
  });

  const standardOnly = (overrides: Record<string, string | undefined>) => {
    const { 'webhook-id': id, 'webhook-timestamp': ts, 'webhook-signature': sig } = headers(whsec);
    return { 'webhook-id': id, 'webhook-timestamp': ts, 'webhook-signature': sig, ...overrides };
  };
  const seconds = Math.floor(at / 1000);
  const rejections: { name: string; headers: Record<string, string | undefined>; now?: number; code: string }[] = [
    { name: 'a missing webhook-id', headers: { 'webhook-id': undefined }, code: 'missing_header' },
    { name: 'another webhook-id (the id is signed)', headers: { 'webhook-id': 'evt_std_2' }, code: 'invalid_signature' },
    { name: 'a changed timestamp (the timestamp is signed)', headers: { 'webhook-timestamp': String(seconds - 1) }, code: 'invalid_signature' },
    { name: 'a v1a entry only', headers: { 'webhook-signature': `v1a,${headers(whsec)['webhook-signature'].slice(3)}` }, code: 'invalid_signature' },
    { name: 'a timestamp that is not a number', headers: { 'webhook-timestamp': 'now' }, code: 'invalid_timestamp' },
    { name: 'a replay six minutes later', headers: {}, now: at + 6 * 60_000, code: 'timestamp_too_old' },
  ];
  for (const r of rejections) {
    it(`rejects ${r.name} with ${r.code}`, () => {
      const verdict = verifyWebhook(body, standardOnly(r.headers), whsec, r.now ?? at);
      assert.equal(!verdict.ok && verdict.code, r.code);
    });
  }
});

describe('newWebhookSecret', () => {
  it('makes whsec_ + standard base64 of 32 random bytes, which the standardwebhooks package accepts', () => {
    const made = newWebhookSecret();
    assert.match(made, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.equal(Buffer.from(made.slice(6), 'base64').length, 32);
    assert.deepEqual(standardWebhookKey(made), Buffer.from(made.slice(6), 'base64'));
    assert.notEqual(newWebhookSecret(), made);
  });
});
