import { createHmac, timingSafeEqual } from 'node:crypto';
import { WEBHOOK_TIMESTAMP_TOLERANCE_MS, webhookHeaders, type WebhookVerificationCode } from '../../shared/webhooks.ts';

/** The exact bytes that went over the wire. A string is taken as the raw text and encoded as UTF-8. */
export type RawBody = Uint8Array | string;

/**
 * Request headers as Node (`req.headers`, lower-case keys, possibly arrays), Koa, Express or a fetch
 * `Headers` object present them; names are matched without regard to case.
 */
export type WebhookHeaderSource = Headers | Record<string, string | string[] | number | undefined>;

export type WebhookVerification =
  | { ok: true; eventId: string; attempt: number; timestamp: number }
  | { ok: false; code: WebhookVerificationCode; message: string };

const SIGNATURE_PATTERN = /^[0-9a-f]{64}$/i;
const DIGITS = /^[0-9]{1,16}$/;

function hmac(rawBody: RawBody, secret: string): Buffer {
  return createHmac('sha256', secret).update(typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody).digest();
}

/** hex(HMAC-SHA256(key = secret, message = raw body bytes)): the `X-Service-Signature` value. */
export function signWebhook(rawBody: RawBody, secret: string): string {
  return hmac(rawBody, secret).toString('hex');
}

function readHeader(headers: WebhookHeaderSource, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== wanted || value === undefined) continue;
    // A header repeated by a proxy is ambiguous; take the first, the signature check decides.
    return String(Array.isArray(value) ? value[0] : value);
  }
  return undefined;
}

const fail = (code: WebhookVerificationCode, message: string): WebhookVerification => ({ ok: false, code, message });

/**
 * Checks one delivery: the signature over the raw body bytes (constant-time), then the timestamp
 * against `now` (epoch ms) within five minutes either way. Never throws on bad input; each failure
 * has its own code. Keep the returned `eventId` to drop duplicates: delivery is at least once.
 */
export function verifyWebhook(
  rawBody: RawBody,
  headers: WebhookHeaderSource,
  secret: string,
  now: number = Date.now(),
): WebhookVerification {
  if (!secret) throw new TypeError('verifyWebhook needs the webhook secret');
  const signature = readHeader(headers, webhookHeaders.signature)?.trim();
  const timestampText = readHeader(headers, webhookHeaders.timestamp)?.trim();
  const eventId = readHeader(headers, webhookHeaders.eventId)?.trim();
  const attemptText = readHeader(headers, webhookHeaders.attempt)?.trim();
  const missing = [
    [webhookHeaders.signature, signature],
    [webhookHeaders.timestamp, timestampText],
    [webhookHeaders.eventId, eventId],
    [webhookHeaders.attempt, attemptText],
  ].filter(([, value]) => !value);
  if (missing.length > 0) return fail('missing_header', `Missing header ${missing.map(([name]) => name).join(', ')}.`);

  if (!SIGNATURE_PATTERN.test(signature!)) return fail('invalid_signature', 'The signature is not 64 hex characters.');
  if (!timingSafeEqual(Buffer.from(signature!, 'hex'), hmac(rawBody, secret))) {
    return fail('invalid_signature', 'The signature does not match the body and secret.');
  }

  if (!DIGITS.test(timestampText!) || !DIGITS.test(attemptText!)) {
    return fail('invalid_timestamp', `${webhookHeaders.timestamp} and ${webhookHeaders.attempt} must be integers.`);
  }
  const timestamp = Number(timestampText);
  if (now - timestamp > WEBHOOK_TIMESTAMP_TOLERANCE_MS) {
    return fail('timestamp_too_old', 'The timestamp is more than five minutes old (milliseconds expected).');
  }
  if (timestamp - now > WEBHOOK_TIMESTAMP_TOLERANCE_MS) {
    return fail('timestamp_too_new', 'The timestamp is more than five minutes in the future.');
  }
  return { ok: true, eventId: eventId!, attempt: Number(attemptText), timestamp };
}
