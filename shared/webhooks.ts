import * as z from 'zod';
import { invoicePriceShape } from './prices.ts';
import type { ErrorCode } from './errors.ts';
import { BtcPaymentMethod, InvoiceChain, memoOnEveryChain, orderFieldsShape, Verification } from './invoice.ts';

export const webhookHeaders = {
  signature: 'X-Service-Signature',
  timestamp: 'X-Service-Timestamp',
  eventId: 'X-Service-Event-Id',
  attempt: 'X-Service-Attempt',
} as const;

/**
 * The Standard Webhooks headers sent on every delivery besides `webhookHeaders`: the event id, the
 * attempt time in epoch seconds, and `v1,` + base64 HMAC-SHA256 of `id.timestamp.body`.
 */
export const standardWebhookHeaders = {
  id: 'webhook-id',
  timestamp: 'webhook-timestamp',
  signature: 'webhook-signature',
} as const;

/** The prefix of a Standard Webhooks secret; the rest is the key, base64-encoded. */
export const STANDARD_WEBHOOK_SECRET_PREFIX = 'whsec_';

/** Wait after each failed attempt; the 10th failure is final. */
export const webhookRetryDelaysMs = [1_000, 5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000, 10_800_000, 43_200_000];
export const WEBHOOK_MAX_ATTEMPTS = webhookRetryDelaysMs.length + 1;
export const WEBHOOK_ACK_TIMEOUT_MS = 10_000;
export const WEBHOOK_TIMESTAMP_TOLERANCE_MS = 5 * 60_000;

/** Why a receiver rejects a delivery; each answers 401 with the error envelope. */
export const webhookVerificationCodes = [
  'missing_header',
  'standard_signature_required',
  'unsigned_event_id',
  'invalid_signature',
  'invalid_timestamp',
  'timestamp_too_old',
  'timestamp_too_new',
] as const satisfies readonly ErrorCode[];
export type WebhookVerificationCode = (typeof webhookVerificationCodes)[number];

/** The answer of the local `webhook-receiver` to a verified delivery. */
export const WebhookReceipt = z
  .object({
    ok: z.literal(true),
    event_id: z.string(),
    attempt: z.number().int().nullable().describe('X-Service-Attempt, or null for a delivery that carried only the Standard Webhooks headers.'),
    duplicate: z.boolean().describe('True when this receiver already accepted the event id (a retry after a lost answer).'),
  })
  .meta({ id: 'WebhookReceipt', description: 'Answer of the local webhook receiver to a verified delivery.' });
export type WebhookReceipt = z.infer<typeof WebhookReceipt>;

/** Inside the signed body, so a receiver de-duplicates by an id no one can change without the secret. */
const EventId = z
  .string()
  .describe('The event id, the same on every retry and equal to the `webhook-id` header: de-duplicate by it.');

const queuedBefore = 'Always sent by this version (null when not given); absent only on events queued by an earlier one.';

/** What ties an invoice's events to the shop's order: sent on every event of an invoice. */
const invoiceOrderEventShape = {
  order_id: orderFieldsShape.order_id.describe(`The order reference given at creation. ${queuedBefore}`),
  metadata: orderFieldsShape.metadata.describe(`The metadata given at creation. ${queuedBefore}`),
  memo: memoOnEveryChain.memo.describe(`The memo given at creation. ${queuedBefore}`),
  redirect_url: orderFieldsShape.redirect_url.describe(`The return link given at creation. ${queuedBefore}`),
};

export const InvoiceConfirmedEvent = z
  .object({
    event: z.literal('invoice.confirmed'),
    event_id: EventId,
    invoice_id: z.string(),
    merchant_id: z.string(),
    chain: InvoiceChain,
    asset: z.string(),
    amount: z.string().describe("Decimal amount in the asset's unit (BTC or token), e.g. \"0.00001000\"."),
    address: z.string(),
    tx_hash: z.string().nullable().describe('The transaction that completed the payment; null when it was paid over Lightning (see `payment_hash` and `preimage`).'),
    confirmations: z.number().int().describe('Confirmations of `tx_hash`; 0 for a Lightning payment, final once settled.'),
    payment_method: BtcPaymentMethod.optional().describe('Bitcoin invoices: `onchain` or `lightning`, how the invoice was completed. Absent on EVM chains.'),
    payment_hash: z.string().optional().describe('Lightning only: the payment hash of the BOLT11 invoice that was paid.'),
    preimage: z.string().optional().describe('Lightning only: the preimage the wallet reported, whose SHA-256 is `payment_hash`: proof of payment.'),
    confirmed_at: z.iso.datetime(),
    verification: Verification.optional().describe('How the confirmation was verified; always sent by this version (absent only on events queued by an earlier one).'),
    ...invoiceOrderEventShape,
    ...invoicePriceShape,
  })
  .meta({ id: 'InvoiceConfirmedEvent', description: 'Sent when an invoice moves to confirmed.' });
export type InvoiceConfirmedEvent = z.infer<typeof InvoiceConfirmedEvent>;

export const PaymentOrphanEvent = z
  .object({
    event: z.literal('payment.orphan'),
    event_id: EventId,
    chain: InvoiceChain,
    asset: z.string(),
    token_address: z.string().nullable().describe('ERC-20 contract; null for Bitcoin.'),
    address: z.string().describe('The receive address the transfer went to (Lightning: the BOLT11 invoice that was paid).'),
    tx_hash: z.string().nullable().describe('The transaction; null for a Lightning payment.'),
    payment_method: BtcPaymentMethod.optional().describe('Bitcoin only: `onchain` or `lightning`.'),
    payment_hash: z.string().optional().describe('Lightning only: the payment hash of the BOLT11 invoice paid after the invoice was already completed (an overpayment).'),
    value: z.string().describe("Decimal string in the asset's unit (e.g. \"12.000417\" USDC, \"0.00005\" BTC)."),
    detected_at: z.iso.datetime().describe('ISO 8601 time the listener saw the transfer.'),
  })
  .meta({
    id: 'PaymentOrphanEvent',
    description:
      'A transfer that matches no open invoice (inexact amount, or invoice expired). The funds are in your wallet; no invoice is marked paid; handle it by hand.',
  });
export type PaymentOrphanEvent = z.infer<typeof PaymentOrphanEvent>;

/**
 * Events a merchant receives only when subscribed (`MERCHANT_WEBHOOK_EVENTS` on the listener,
 * `webhook_events` of Cloud's POST /api/v1/webhook); by default only the specified ones are sent.
 */
export const optInWebhookEvents = ['invoice.payment_seen', 'invoice.partial', 'invoice.expired'] as const;
export const OptInWebhookEvent = z.enum(optInWebhookEvents).meta({ id: 'OptInWebhookEvent', description: 'An event sent only to merchants who subscribed to it.' });
export type OptInWebhookEvent = z.infer<typeof OptInWebhookEvent>;

/** What every opt-in event says of its invoice: the fields of invoice.confirmed that exist before a payment confirms. */
const lifecycleShape = {
  event_id: EventId,
  invoice_id: z.string(),
  merchant_id: z.string(),
  chain: InvoiceChain,
  asset: z.string(),
  status: z.enum(['pending', 'partial', 'expired']).describe('The invoice status when the event was written.'),
  amount: z.string().describe("The invoice's amount: decimal in the asset's unit (BTC or token), e.g. \"12.500000\"."),
  amount_paid: z
    .string()
    .describe(
      "Verified so far, in the same unit, at any number of confirmations: Bitcoin payments whose transaction bytes hash to their txid (in the mempool or in blocks), EVM transfers the RPC sources agree on. Not yet confirmed: nothing is paid until invoice.confirmed.",
    ),
  address: z.string(),
  occurred_at: z.iso.datetime().describe('When the service stored the change.'),
  ...invoiceOrderEventShape,
  ...invoicePriceShape,
};

export const InvoicePaymentSeenEvent = z
  .object({ event: z.literal('invoice.payment_seen'), ...lifecycleShape })
  .meta({
    id: 'InvoicePaymentSeenEvent',
    description:
      'Opt-in. A first payment toward the invoice was seen, not yet confirmed (sent once per invoice). `amount_paid` is its verified amount; it may still be replaced or reorganised away: fulfil on invoice.confirmed only.',
  });
export const InvoicePartialEvent = z
  .object({ event: z.literal('invoice.partial'), ...lifecycleShape })
  .meta({ id: 'InvoicePartialEvent', description: 'Opt-in. Payments in blocks do not cover the amount yet: the invoice reads `partial` (sent once per invoice).' });
export const InvoiceExpiredEvent = z
  .object({ event: z.literal('invoice.expired'), ...lifecycleShape })
  .meta({ id: 'InvoiceExpiredEvent', description: 'Opt-in. The invoice passed `expires_at` unpaid and reads `expired` (sent once per invoice).' });

export const WebhookEvent = z.discriminatedUnion('event', [InvoiceConfirmedEvent, PaymentOrphanEvent, InvoicePaymentSeenEvent, InvoicePartialEvent, InvoiceExpiredEvent]);
export type WebhookEvent = z.infer<typeof WebhookEvent>;

/** An event as its producer builds it: the outbox adds `event_id` when it stores the event. */
export type WebhookEventContent<E extends WebhookEvent = WebhookEvent> = E extends WebhookEvent ? Omit<E, 'event_id'> : never;
