import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { signStandardWebhook, signWebhook, standardWebhookKey, verifyWebhook, webhookDeliveryHeaders } from '../../../core/webhooks/index.ts';
import { newWebhookSecret } from '../../../core/webhooks/signature.ts';
import { webhookHeaders, webhookVerificationCodes } from '../../../shared/index.ts';

const secret = 'whsec_test_vector_secret';
const now = 1_750_000_000_000;

/** Legacy-only headers: X-Service-Event-Id says evt_header, which is not signed. */
function deliveryHeaders(body: string | Uint8Array, overrides: Record<string, string | undefined> = {}) {
  return {
    'x-service-signature': signWebhook(body, secret),
    'x-service-timestamp': String(now),
    'x-service-event-id': 'evt_header',
    'x-service-attempt': '1',
    ...overrides,
  };
}
const legacy = { allowLegacySignature: true };
/** Every verification code some test below has seen returned. */
const codesSeen = new Set<string>();

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

describe('verifyWebhook with the legacy signature allowed', () => {
  const body = '{"event":"payment.orphan","event_id":"evt_body","value":"12.000417"}';

  it("accepts a correct delivery and returns the body's signed event_id, not the X-Service-Event-Id header", () => {
    const result = verifyWebhook(body, deliveryHeaders(body, { 'x-service-attempt': '3' }), secret, now, legacy);
    assert.deepEqual(result, { ok: true, eventId: 'evt_body', attempt: 3, timestamp: now });
  });

  it('reads header names without regard to case, and fetch Headers objects', () => {
    const mixed = { 'X-Service-Signature': signWebhook(body, secret), 'X-SERVICE-TIMESTAMP': String(now), 'X-Service-Attempt': '1' };
    assert.equal(verifyWebhook(body, mixed, secret, now, legacy).ok, true);
    assert.equal(verifyWebhook(body, new Headers(deliveryHeaders(body)), secret, now, legacy).ok, true);
  });

  it('accepts the edges of the five-minute window in both directions', () => {
    for (const ts of [now - 300_000, now + 300_000]) {
      assert.equal(verifyWebhook(body, deliveryHeaders(body, { 'x-service-timestamp': String(ts) }), secret, now, legacy).ok, true);
    }
  });

  it('refuses the same delivery by default: the legacy signature signs neither the timestamp nor the id', () => {
    const verdict = verifyWebhook(body, deliveryHeaders(body), secret, now);
    assert.equal(!verdict.ok && verdict.code, 'standard_signature_required');
    codesSeen.add('standard_signature_required');
  });

  const rejections: { name: string; body?: string; headers: Record<string, string | undefined>; secret?: string; code: string }[] = [
    { name: 'missing signature header', headers: { 'x-service-signature': undefined }, code: 'missing_header' },
    { name: 'missing timestamp header', headers: { 'x-service-timestamp': undefined }, code: 'missing_header' },
    {
      name: 'a signed body without event_id (the X-Service-Event-Id header is not taken)',
      body: '{"event":"payment.orphan","value":"12.000417"}',
      headers: { 'x-service-signature': signWebhook('{"event":"payment.orphan","value":"12.000417"}', secret) },
      code: 'unsigned_event_id',
    },
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
      const result = verifyWebhook(r.body ?? body, deliveryHeaders(body, r.headers), r.secret ?? secret, now, legacy);
      assert.equal(result.ok, false);
      assert.equal(!result.ok && result.code, r.code);
      codesSeen.add(r.code);
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

  it('verifyWebhook checks webhook-signature: a good X-Service signature does not excuse a bad one, allowed or not', () => {
    const sent = headers(whsec);
    assert.deepEqual(verifyWebhook(body, sent, whsec, at), { ok: true, eventId: 'evt_std_1', attempt: 2, timestamp: Math.floor(at / 1000) * 1000 });
    const forged = { ...sent, 'webhook-signature': `v1,${Buffer.alloc(32).toString('base64')}` };
    for (const options of [{}, legacy]) {
      const verdict = verifyWebhook(body, forged, whsec, at, options);
      assert.equal(!verdict.ok && verdict.code, 'invalid_signature');
    }
  });

  it('with the legacy signature allowed and both sent, a bad X-Service signature still fails, and the id is webhook-id', () => {
    const sent = headers(whsec);
    const verdict = verifyWebhook(body, { ...sent, [webhookHeaders.signature]: '0'.repeat(64) }, whsec, at, legacy);
    assert.equal(!verdict.ok && verdict.code, 'invalid_signature');
    const renamed = verifyWebhook(body, { ...sent, [webhookHeaders.eventId]: 'evt_other' }, whsec, at, legacy);
    assert.equal(renamed.ok && renamed.eventId, 'evt_std_1');
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
      codesSeen.add(r.code);
    });
  }
  it('rejects a webhook-signature missing with the legacy one absent too: missing_header', () => {
    const verdict = verifyWebhook(body, standardOnly({ 'webhook-signature': undefined }), whsec, at);
    assert.equal(!verdict.ok && verdict.code, 'missing_header');
  });
});

describe('a captured delivery replayed with a fresh timestamp and a new id', () => {
  const whsec = newWebhookSecret();
  const body = '{"event":"invoice.confirmed","event_id":"evt_captured","invoice_id":"inv_replay","amount":"0.00050000"}';
  const capturedAt = 1_750_000_000_000;
  const captured = webhookDeliveryHeaders({ eventId: 'evt_captured', attempt: 1, body, secret: whsec, now: capturedAt });
  const later = capturedAt + 60 * 60_000;
  const fresh = { [webhookHeaders.timestamp]: String(later), [webhookHeaders.eventId]: 'evt_new_unsigned', [webhookHeaders.attempt]: '1' };
  const codeOf = (verdict: ReturnType<typeof verifyWebhook>) => (verdict.ok ? `accepted as ${verdict.eventId}` : verdict.code);

  it('is refused when it keeps only the legacy headers (standard_signature_required)', () => {
    const { 'webhook-id': _id, 'webhook-timestamp': _ts, 'webhook-signature': _sig, ...legacyOnly } = captured;
    assert.equal(codeOf(verifyWebhook(body, { ...legacyOnly, ...fresh }, whsec, later)), 'standard_signature_required');
  });

  it('is refused when its webhook-timestamp and webhook-id are changed (invalid_signature)', () => {
    const replay = { ...captured, ...fresh, 'webhook-timestamp': String(later / 1000), 'webhook-id': 'evt_new_unsigned' };
    assert.equal(codeOf(verifyWebhook(body, replay, whsec, later)), 'invalid_signature');
  });

  it('is refused when it keeps its signed headers (timestamp_too_old)', () => {
    assert.equal(codeOf(verifyWebhook(body, { ...captured, ...fresh }, whsec, later)), 'timestamp_too_old');
  });

  it('within five minutes keeps its own signed id, so the receiver sees a duplicate', () => {
    assert.equal(codeOf(verifyWebhook(body, { ...captured, ...fresh, [webhookHeaders.timestamp]: String(capturedAt + 60_000) }, whsec, capturedAt + 60_000)), 'accepted as evt_captured');
  });

  it('with the legacy signature allowed, keeps the id signed in its body', () => {
    const { 'webhook-id': _id, 'webhook-timestamp': _ts, 'webhook-signature': _sig, ...legacyOnly } = captured;
    assert.equal(codeOf(verifyWebhook(body, { ...legacyOnly, ...fresh }, whsec, later, legacy)), 'accepted as evt_captured');
  });
});

describe('a delivery pinned against an independent computation', () => {
  // Computed outside this code base with the secret's base64 part as the key:
  // printf '%s' 'evt_0123456789abcdef0123456789abcdef.1767225600.<body>' |
  //   openssl dgst -sha256 -mac HMAC -macopt hexkey:$(printf '%s' '<key>' | base64 -d | xxd -p -c 64) -binary | base64
  // (and cross-checked with Python's hmac module).
  const vector = {
    secret: 'whsec_c2VydmljZS1zdGFuZGFyZC13ZWJob29rcy12ZWN0b3I=',
    id: 'evt_0123456789abcdef0123456789abcdef',
    seconds: 1767225600,
    body: '{"event":"invoice.confirmed","event_id":"evt_0123456789abcdef0123456789abcdef","invoice_id":"inv_vector","amount":"0.00050000"}',
    signature: 'v1,+xfLVH2GcGJpcMcJIssd6oaDsnrZe1WzeBeMYD04vmM=',
  };

  it('is what the service signs, and verifies to the signed id even beside an unsigned X-Service-Event-Id', () => {
    const sent = webhookDeliveryHeaders({ eventId: vector.id, attempt: 1, body: vector.body, secret: vector.secret, now: vector.seconds * 1000 });
    assert.equal(sent['webhook-signature'], vector.signature);
    const arrived = { ...sent, [webhookHeaders.eventId]: 'evt_unsigned_other' };
    assert.deepEqual(verifyWebhook(vector.body, arrived, vector.secret, vector.seconds * 1000 + 1_000), {
      ok: true,
      eventId: vector.id,
      attempt: 1,
      timestamp: vector.seconds * 1000,
    });
  });
});

describe('the verification codes', () => {
  it('each rejection reason above answered with its own code, and every catalogued code is used', () => {
    assert.deepEqual([...codesSeen].sort(), [...webhookVerificationCodes].sort());
  });
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
