import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import {
  STANDARD_WEBHOOK_SECRET_PREFIX,
  WEBHOOK_TIMESTAMP_TOLERANCE_MS,
  standardWebhookHeaders,
  webhookHeaders,
  type WebhookVerificationCode,
} from '../../shared/webhooks.ts';

/** The exact bytes that went over the wire. A string is taken as the raw text and encoded as UTF-8. */
export type RawBody = Uint8Array | string;

/**
 * Request headers as Node (`req.headers`, lower-case keys, possibly arrays), Koa, Express or a fetch
 * `Headers` object present them; names are matched without regard to case.
 */
export type WebhookHeaderSource = Headers | Record<string, string | string[] | number | undefined>;

export type WebhookVerification =
  /** `attempt` is null when the delivery carried only the Standard Webhooks headers. */
  | { ok: true; eventId: string; attempt: number | null; timestamp: number }
  | { ok: false; code: WebhookVerificationCode; message: string };
type Failure = Extract<WebhookVerification, { ok: false }>;

const SIGNATURE_PATTERN = /^[0-9a-f]{64}$/i;
const DIGITS = /^[0-9]{1,16}$/;
/** Standard base64 with its padding, as the Standard Webhooks libraries decode it (no base64url). */
const STRICT_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

const bytesOf = (rawBody: RawBody): Uint8Array => (typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody);

function hmac(rawBody: RawBody, secret: string): Buffer {
  return createHmac('sha256', secret).update(bytesOf(rawBody)).digest();
}

/** hex(HMAC-SHA256(key = secret, message = raw body bytes)): the `X-Service-Signature` value. */
export function signWebhook(rawBody: RawBody, secret: string): string {
  return hmac(rawBody, secret).toString('hex');
}

/**
 * The HMAC key of the Standard Webhooks signature. A `whsec_` secret whose rest is standard base64
 * (what `service init`, the sandbox and Cloud make) is keyed by the decoded bytes, as the spec
 * defines. Any other secret is keyed by its own UTF-8 bytes, whole: a receiver verifies that with
 * `whsec_` + base64(secret), or the `standardwebhooks` package's `{ format: 'raw' }`.
 */
export function standardWebhookKey(secret: string): Buffer {
  const encoded = secret.startsWith(STANDARD_WEBHOOK_SECRET_PREFIX) ? secret.slice(STANDARD_WEBHOOK_SECRET_PREFIX.length) : '';
  return encoded && STRICT_BASE64.test(encoded) ? Buffer.from(encoded, 'base64') : Buffer.from(secret, 'utf8');
}

/** A new webhook secret in the Standard Webhooks form: `whsec_` + base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return `${STANDARD_WEBHOOK_SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

/** `v1,` + base64(HMAC-SHA256(key, `${id}.${timestampSeconds}.${body}`)): the `webhook-signature` value. */
export function signStandardWebhook(id: string, timestampSeconds: number, rawBody: RawBody, key: Uint8Array): string {
  const mac = createHmac('sha256', key).update(`${id}.${timestampSeconds}.`).update(bytesOf(rawBody)).digest('base64');
  return `v1,${mac}`;
}

/** Every header of one delivery attempt: both signatures over the same stored body, one clock reading. */
export function webhookDeliveryHeaders(delivery: {
  eventId: string;
  attempt: number;
  body: string;
  secret: string;
  /** Epoch ms of the attempt. */
  now: number;
}): Record<string, string> {
  const { eventId, attempt, body, secret, now } = delivery;
  const seconds = Math.floor(now / 1000);
  return {
    'content-type': 'application/json',
    [webhookHeaders.signature]: signWebhook(body, secret),
    [webhookHeaders.timestamp]: String(now),
    [webhookHeaders.eventId]: eventId,
    [webhookHeaders.attempt]: String(attempt),
    [standardWebhookHeaders.id]: eventId,
    [standardWebhookHeaders.timestamp]: String(seconds),
    [standardWebhookHeaders.signature]: signStandardWebhook(eventId, seconds, body, standardWebhookKey(secret)),
  };
}

function readHeader(headers: WebhookHeaderSource, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name)?.trim() || undefined;
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== wanted || value === undefined) continue;
    // A header repeated by a proxy is ambiguous; take the first, the signature check decides.
    return String(Array.isArray(value) ? value[0] : value).trim() || undefined;
  }
  return undefined;
}

const fail = (code: WebhookVerificationCode, message: string): Failure => ({ ok: false, code, message });

const missing = (pairs: [string, string | undefined][]): Failure | undefined => {
  const absent = pairs.filter(([, value]) => !value).map(([name]) => name);
  return absent.length > 0 ? fail('missing_header', `Missing header ${absent.join(', ')}.`) : undefined;
};

function checkWindow(timestampMs: number, now: number, unit: string): Failure | undefined {
  if (now - timestampMs > WEBHOOK_TIMESTAMP_TOLERANCE_MS) return fail('timestamp_too_old', `The timestamp is more than five minutes old (${unit} expected).`);
  if (timestampMs - now > WEBHOOK_TIMESTAMP_TOLERANCE_MS) return fail('timestamp_too_new', 'The timestamp is more than five minutes in the future.');
  return undefined;
}

/**
 * The event id inside a signed body, or undefined when the body is not a JSON object with a string
 * `event_id` (events stored before the id went into the body).
 */
function signedEventId(rawBody: RawBody): string | undefined {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(bytesOf(rawBody)).toString('utf8'));
    const id = typeof parsed === 'object' && parsed !== null ? (parsed as { event_id?: unknown }).event_id : undefined;
    return typeof id === 'string' && id ? id : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The legacy `X-Service-*` scheme: hex HMAC of the body; the timestamp (ms) is checked, not signed.
 * It yields no event id: the `X-Service-Event-Id` header is not signed.
 */
function verifyServiceScheme(rawBody: RawBody, headers: WebhookHeaderSource, secret: string, now: number): Failure | { ok: true; attempt: number; timestamp: number } {
  const signature = readHeader(headers, webhookHeaders.signature);
  const timestampText = readHeader(headers, webhookHeaders.timestamp);
  const attemptText = readHeader(headers, webhookHeaders.attempt);
  const absent = missing([
    [webhookHeaders.signature, signature],
    [webhookHeaders.timestamp, timestampText],
    [webhookHeaders.attempt, attemptText],
  ]);
  if (absent) return absent;
  if (!SIGNATURE_PATTERN.test(signature!)) return fail('invalid_signature', 'The signature is not 64 hex characters.');
  if (!timingSafeEqual(Buffer.from(signature!, 'hex'), hmac(rawBody, secret))) {
    return fail('invalid_signature', 'The signature does not match the body and secret.');
  }
  if (!DIGITS.test(timestampText!) || !DIGITS.test(attemptText!)) {
    return fail('invalid_timestamp', `${webhookHeaders.timestamp} and ${webhookHeaders.attempt} must be integers.`);
  }
  const timestamp = Number(timestampText);
  return checkWindow(timestamp, now, 'milliseconds') ?? { ok: true, attempt: Number(attemptText), timestamp };
}

/**
 * The Standard Webhooks scheme: any `v1,` entry of the space-separated `webhook-signature` matching
 * the HMAC of `id.timestamp.body` (constant-time); the signed timestamp (seconds) within the window.
 * The event id is the signed `webhook-id`.
 */
function verifyStandardScheme(rawBody: RawBody, headers: WebhookHeaderSource, secret: string, now: number): WebhookVerification {
  const signatures = readHeader(headers, standardWebhookHeaders.signature);
  const id = readHeader(headers, standardWebhookHeaders.id);
  const timestampText = readHeader(headers, standardWebhookHeaders.timestamp);
  const absent = missing([
    [standardWebhookHeaders.signature, signatures],
    [standardWebhookHeaders.id, id],
    [standardWebhookHeaders.timestamp, timestampText],
  ]);
  if (absent) return absent;
  if (!DIGITS.test(timestampText!)) return fail('invalid_timestamp', `${standardWebhookHeaders.timestamp} must be an integer (epoch seconds).`);
  const expected = Buffer.from(signStandardWebhook(id!, Number(timestampText), rawBody, standardWebhookKey(secret)).slice(3), 'base64');
  const matches = signatures!.split(' ').some((entry) => {
    const [version, value = ''] = entry.split(',');
    const given = Buffer.from(value, 'base64');
    return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!matches) return fail('invalid_signature', `No v1 entry of ${standardWebhookHeaders.signature} matches the id, timestamp, body and secret.`);
  // The attempt number is informational only: nothing a receiver decides rests on it.
  const attemptText = readHeader(headers, webhookHeaders.attempt);
  const attempt = attemptText && DIGITS.test(attemptText) ? Number(attemptText) : null;
  const timestamp = Number(timestampText) * 1000;
  return checkWindow(timestamp, now, 'seconds') ?? { ok: true, eventId: id!, attempt, timestamp };
}

export interface VerifyWebhookOptions {
  /**
   * Also accept a delivery signed only with the legacy `X-Service-Signature` (body only: its
   * timestamp is not signed). Off by default. Its event id is then the body's `event_id`.
   */
  allowLegacySignature?: boolean;
}

/**
 * Checks one delivery: the Standard Webhooks signature over id, timestamp and raw body bytes
 * (constant-time), then the signed timestamp against `now` (epoch ms) within five minutes either
 * way. A delivery with only `X-Service-Signature` is refused (`standard_signature_required`) unless
 * `allowLegacySignature`; with it allowed, every signature present must hold. Never throws on bad
 * input; each failure has its own code. The returned `eventId` comes only from signed data: keep it
 * to drop duplicates (delivery is at least once, and a replay inside the window is a duplicate).
 */
export function verifyWebhook(
  rawBody: RawBody,
  headers: WebhookHeaderSource,
  secret: string,
  now: number = Date.now(),
  options: VerifyWebhookOptions = {},
): WebhookVerification {
  if (!secret) throw new TypeError('verifyWebhook needs the webhook secret');
  const legacy = readHeader(headers, webhookHeaders.signature) !== undefined;
  const standard = readHeader(headers, standardWebhookHeaders.signature) !== undefined;
  if (!standard && !options.allowLegacySignature) {
    return legacy
      ? fail('standard_signature_required', `Only ${webhookHeaders.signature} was sent; ${standardWebhookHeaders.signature} is required (the legacy signature covers neither the timestamp nor the id).`)
      : fail('missing_header', `Missing header ${standardWebhookHeaders.signature}.`);
  }
  if (!standard && !legacy) {
    return fail('missing_header', `Missing header ${standardWebhookHeaders.signature} (or ${webhookHeaders.signature}).`);
  }
  if (legacy && options.allowLegacySignature) {
    const legacyVerdict = verifyServiceScheme(rawBody, headers, secret, now);
    if (!legacyVerdict.ok) return legacyVerdict;
    if (!standard) {
      const eventId = signedEventId(rawBody);
      if (!eventId) return fail('unsigned_event_id', `The signed body has no event_id, and ${webhookHeaders.eventId} is not signed.`);
      return { ...legacyVerdict, eventId };
    }
  }
  return verifyStandardScheme(rawBody, headers, secret, now);
}
