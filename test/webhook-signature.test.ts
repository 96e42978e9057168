import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import { signWebhook, verifyWebhook } from '../core/webhooks/index.ts';

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
