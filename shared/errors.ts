import * as z from 'zod';
import { chainList, evmChainNames } from './chains.ts';

/**
 * What a code means when several codes mean the same: clients branch on `condition` to handle them
 * alike, whichever code the chain answers with.
 */
export const errorConditions = {
  chain_not_configured: `The chain asked for (${chainList()}) is not configured for this merchant.`,
} as const;
export type ErrorCondition = keyof typeof errorConditions;

const chainNotConfigured =
  'Deprecated for branching: every chain\'s "not configured" answer also carries `condition: "chain_not_configured"`; branch on that (this code stays, as specified).';

/**
 * Every error code the interface can answer with. `status` is the HTTP status that carries it;
 * the codes are stable and clients branch on them, never on `message`.
 */
export const errorCatalogue = {
  bad_body: {
    status: 400,
    description:
      'The body is not valid JSON, is larger than 16 KB, is not well-formed UTF-8, holds a string with an unpaired surrogate (`\\ud800`), is not a JSON object, has a field the contract does not know (the message names it), or a field other than the amount is malformed (memo over 200 characters, expires_in not an integer >= 1, order_id, metadata or redirect_url out of bounds, redirect_url not https in production). Also the `order_id` query parameter of Cloud\'s invoice list given twice or out of bounds. Also a path or query string whose percent-escapes are not well-formed UTF-8, a request that is not well-formed HTTP, and one whose headers or whole request did not arrive in time (`HTTP_HEADERS_TIMEOUT_S`, `HTTP_REQUEST_TIMEOUT_S`; the connection is closed).',
  },
  bad_query: {
    status: 400,
    description:
      'Invoice lists: a query parameter is unknown or given twice, or its value is malformed (a `status`, `chain`, `asset` or `format` not among those listed, a `created_from`/`created_to` that is not an ISO 8601 date-time or date, a text over 200 characters, a `cursor` this server did not issue). The message names the parameter.',
  },
  invalid_amount: {
    status: 400,
    description:
      '`amount_sats` is missing or not a positive integer (btc), or `amount_usd` is missing or not a positive number (base); or the body sends both or neither of the amount field and `price_amount` with `price_currency`, one of the pair without the other, a currency not accepted, or a price with more decimals than its currency has (none for JPY).',
  },
  unsupported_chain: { status: 400, description: `\`chain\` is not one the API knows (${chainList()}).` },
  chain_disabled: {
    status: 400,
    condition: 'chain_not_configured',
    description: `Bitcoin is not configured for this merchant (no \`MERCHANT_BTC_XPUB\`). ${chainNotConfigured}`,
  },
  base_disabled: {
    status: 400,
    condition: 'chain_not_configured',
    description: `The EVM chain asked for (${chainList(evmChainNames)}) is not configured for this merchant; every EVM chain answers this code. ${chainNotConfigured}`,
  },
  asset_disabled: {
    status: 400,
    description: 'The token is not enabled (self-hosted: add it to `MERCHANT_EVM_TOKENS`).',
  },
  unauthorized: {
    status: 401,
    description:
      'Missing or invalid API key in `X-Service-Api-Key` (on the MCP endpoint also `Authorization: Bearer`, which may also carry an OAuth access token). Where OAuth is offered, the MCP endpoint adds `WWW-Authenticate: Bearer resource_metadata=…`, with `error="invalid_token"` when the token is invalid, expired, revoked or issued for another server.',
  },
  invalid_key_request: {
    status: 400,
    description: 'Cloud POST /api/v1/keys: `label` is not 1-60 characters without control characters, or `scopes` is not a non-empty list of `invoices:read` / `invoices:write`.',
  },
  insufficient_scope: {
    status: 403,
    description:
      'The OAuth access token or scoped API key lacks the scope this call needs (`invoices:read` or `invoices:write`); `WWW-Authenticate` names it. Ask for it again with that scope.',
  },
  origin_not_allowed: {
    status: 403,
    description: 'MCP endpoint: the request comes from a browser page whose `Origin` is not in `MCP_ALLOWED_ORIGINS`. Clients that send no Origin are not affected.',
  },
  plan_limit_reached: {
    status: 402,
    description: 'Cloud only: the monthly invoice cap of the plan is reached; `error` adds `plan`, `limit` and `used`.',
  },
  invalid_email: { status: 400, description: 'Cloud signup: `email` is missing or not an email address.' },
  invalid_shop_name: { status: 400, description: 'Cloud signup: `shop_name` is missing or not 2-80 characters.' },
  no_receive_method: { status: 400, description: 'Cloud signup: no receive method was given (`receive_methods`, or `btc_xpub`, `base_xpub`, `base_address`).' },
  private_key_rejected: {
    status: 400,
    description: 'Cloud signup: a field holds an extended PRIVATE key; it is neither stored nor logged. Send the public key (xpub).',
  },
  invalid_xpub: { status: 400, description: 'Cloud signup: `btc_xpub` (BIP-84 account key), `base_xpub` or a `receive_methods` entry\'s `xpub` (EVM account key at m/44\'/60\'/0\') is not valid, or a Bitcoin entry has none.' },
  invalid_address: { status: 400, description: 'Cloud signup: `base_address` or a `receive_methods` entry\'s `address` is not an EIP-55 checksummed 0x address, or is given for Bitcoin.' },
  invalid_webhook_url: {
    status: 400,
    description: 'Cloud: the webhook URL is not https on the default port, or its host does not resolve only to public addresses.',
  },
  unknown_webhook_event: {
    status: 400,
    description: 'Cloud: `webhook_events` is not a list of opt-in event names (`invoice.payment_seen`, `invoice.partial`, `invoice.expired`); nothing was saved.',
  },
  unknown_plan: { status: 400, description: 'Cloud billing: `plan` is not `starter` or `pro`, or `method` is not `crypto` or `card`.' },
  email_taken: { status: 409, description: 'Cloud signup: an account with this email exists.' },
  method_unavailable: { status: 409, description: 'Cloud billing: this payment method is not available on this service.' },
  card_provider_error: { status: 502, description: 'Cloud billing: the card processor failed; retry later or pay with crypto.' },
  missing_header: {
    status: 401,
    description:
      'Webhook receiver: a header the delivery needs is absent (`webhook-id`, `webhook-timestamp`, `webhook-signature`; with the legacy signature allowed and sent alone, `X-Service-Signature`, `X-Service-Timestamp` and `X-Service-Attempt`).',
  },
  standard_signature_required: {
    status: 401,
    description:
      'Webhook receiver: the delivery carries only the legacy `X-Service-Signature`, which does not sign the timestamp or the id; the receiver requires `webhook-signature` unless the legacy one is explicitly allowed (`allowLegacySignature`, `--allow-legacy-signature`).',
  },
  unsigned_event_id: {
    status: 401,
    description:
      'Webhook receiver: a delivery signed only with the allowed legacy `X-Service-Signature` whose signed body has no `event_id`; the unsigned `X-Service-Event-Id` header is never taken as the id.',
  },
  invalid_signature: {
    status: 401,
    description:
      'Webhook receiver: no `v1` entry of `webhook-signature` matches the id, timestamp, raw body and secret (or, where the legacy signature is checked, `X-Service-Signature` is not hex(HMAC-SHA256(secret, raw body bytes))).',
  },
  invalid_timestamp: {
    status: 401,
    description: 'Webhook receiver: `webhook-timestamp` (or the legacy `X-Service-Timestamp` or `X-Service-Attempt`) is not an integer.',
  },
  timestamp_too_old: {
    status: 401,
    description:
      'Webhook receiver: the signed `webhook-timestamp` (seconds; the legacy `X-Service-Timestamp`, milliseconds) is more than five minutes behind the receiver clock.',
  },
  timestamp_too_new: {
    status: 401,
    description: 'Webhook receiver: the signed `webhook-timestamp` (or the legacy `X-Service-Timestamp`) is more than five minutes ahead of the receiver clock.',
  },
  not_found: { status: 404, description: 'No such invoice or route.' },
  headers_too_large: {
    status: 431,
    description:
      'The request line and headers together exceed 16 KB (for example an overlong invoice id in the path); the connection is closed.',
  },
  rate_limited: {
    status: 429,
    description: 'Too many requests (invoice creations, sign-ups, x402 requests), or (invoice lists) a CSV export while this merchant already runs two; the `Retry-After` header says how many seconds to wait. On Cloud an x402 request may also meet its invoice\'s merchant\'s share (`CLOUD_X402_RATE_PER_PLAN`, the Free plans\' share); the message names the limit.',
  },
  too_many_sessions: {
    status: 429,
    description:
      'MCP `initialize` (2025-era session) or `subscriptions/listen` (2026-07-28 stream): this merchant (Cloud) or credential (listener) already holds its most open sessions or listen streams (`MCP_MAX_SESSIONS_PER_OWNER`, default 100, each counted apart), or starts sessions faster than `MCP_INITIALIZE_RATE_LIMIT` allows (per owner and per client address). On Cloud also: the plan of the merchant allows no more (`CLOUD_MCP_SESSIONS_PER_PLAN`), or the share of the server for Free plans is taken (`CLOUD_FAIR_SHARE_RESERVE` keeps the rest for paid plans); the message names the cap. `Retry-After` says how many seconds to wait; end sessions (DELETE) and streams you no longer use.',
  },
  too_many_streams: {
    status: 429,
    description:
      'Checkout event stream refused: this client address has `CHECKOUT_STREAMS_PER_CLIENT` streams open already (default 20); on Cloud also, the merchant of the invoice has as many open as its plan allows (`CLOUD_CHECKOUT_STREAMS_PER_PLAN`), or the share of the server for Free plans is taken (`CLOUD_FAIR_SHARE_RESERVE`). Poll the checkout view instead; `Retry-After` says when to try a stream again.',
  },
  create_failed: { status: 500, description: 'The invoice could not be created (storage failure); nothing was stored.' },
  lookup_failed: { status: 500, description: 'The invoice could not be read (storage failure).' },
  database_unavailable: {
    status: 503,
    description:
      'The database cannot be used right now (unreachable, restarting, failing over; SQLite: disk full or file locked). The answer comes within a few seconds with `Retry-After`; retry then. Nothing acknowledged is lost.',
  },
  internal_error: { status: 500, description: 'Any other unexpected failure; the response never carries internals.' },
  rate_unavailable: {
    status: 503,
    description:
      'An invoice priced with `price_amount` could not be converted: fewer than `RATE_MIN_SOURCES` rate sources gave a fresh quote within `RATE_MAX_SPREAD` of their median. Nothing was stored; retry after `Retry-After` seconds. Invoices in the asset\'s own amount field still work.',
  },
  invalid_lightning_connection: {
    status: 400,
    description:
      "A Lightning connection (`nwc_url`) that cannot be used: not a `nostr+walletconnect://` URI with a wallet key, a `wss://` relay and a secret; or one the wallet lets spend (`pay_invoice`…), or that lacks `make_invoice` or `lookup_invoice`, or whose wallet is on a network the service does not serve. The message says what to change in the wallet. Nothing was saved.",
  },
  lightning_unavailable: {
    status: 503,
    description:
      "An invoice that asked for Lightning only (`payment_methods: [\"lightning\"]`) could not get a BOLT11 invoice: the merchant's wallet did not answer over Nostr Wallet Connect in time, answered one that failed the checks, or its connection has come to allow spending or lost a receiving method (the message says what to change in the wallet). Nothing was stored; retry after `Retry-After` seconds, or allow `onchain`.",
  },
  capacity: {
    status: 503,
    description:
      'Fixed-address nonce pool temporarily exhausted for this amount; or every slot of a bounded resource is taken (open checkout event streams, `CHECKOUT_STREAMS_MAX`; MCP sessions). Retry after `Retry-After` seconds; a checkout page polls the view meanwhile.',
  },
  invalid_payment: {
    status: 402,
    description:
      'x402: `PAYMENT-SIGNATURE` is malformed (base64, JSON) or does not pay this invoice exactly (version, scheme, network, token, recipient, value, validity window, signature, a nonce already used), or the settler found it invalid. `reason` holds the x402 reason; `PAYMENT-REQUIRED` carries the requirements again. Nothing was sent.',
  },
  payment_in_progress: {
    status: 409,
    description: "x402: another payer's authorization is being settled for this invoice (one payer at a time), or a settler reported a transaction the chain does not show. Nothing was sent for this request.",
  },
  invoice_paid: { status: 409, description: 'x402: the invoice is paid, or a payment covering it is confirming; its `x402_url` is null.' },
  invoice_ended: { status: 410, description: 'x402: the invoice expired or failed; its `x402_url` is null.' },
  x402_unavailable: {
    status: 409,
    description: 'x402: this invoice cannot be paid with x402 (Bitcoin, USDT, or no settlement set up for its chain: `X402_SETTLER_KEY` or `X402_FACILITATOR_URL`); its `x402_url` is null.',
  },
  settlement_unavailable: {
    status: 503,
    description: 'x402: the facilitator or the chain node did not answer in time, or cannot be reached; `Retry-After` says when to retry. Nothing was settled.',
  },
  settlement_failed: {
    status: 502,
    description: 'x402: the settlement failed (reverted), or the facilitator reported a transaction the chain does not show within the wait; the invoice stays pending and /health reports it.',
  },
} as const satisfies Record<string, { status: number; description: string; condition?: ErrorCondition }>;

export type ErrorCode = keyof typeof errorCatalogue;
export const errorCodes = Object.keys(errorCatalogue) as [ErrorCode, ...ErrorCode[]];
const errorConditionNames = Object.keys(errorConditions) as [ErrorCondition, ...ErrorCondition[]];

/** The condition a code answers, if it shares one with other codes. */
export const conditionOf = (code: ErrorCode): ErrorCondition | undefined =>
  (errorCatalogue[code] as { condition?: ErrorCondition }).condition;

export const ErrorDetail = z
  .object({
    code: z.enum(errorCodes).describe('Stable, machine-readable code: branch on this.'),
    message: z.string().describe('Human-readable; may change, never branch on it.'),
    condition: z
      .enum(errorConditionNames)
      .optional()
      .describe(
        `What the code means, where several codes mean the same (an addition to the spec's envelope): ${errorConditionNames.map((name) => `\`${name}\` (${errorConditions[name]} Codes: ${errorCodes.filter((code) => conditionOf(code) === name).map((code) => `\`${code}\``).join(', ')}.)`).join('; ')} Branch on it where present; the codes stay as specified.`,
      ),
    plan: z.string().optional().describe('plan_limit_reached only: the current plan.'),
    limit: z.number().int().optional().describe('plan_limit_reached only: the monthly cap.'),
    used: z.number().int().optional().describe('plan_limit_reached only: invoices created this month.'),
    reason: z.string().optional().describe('invalid_payment only: the x402 reason (`invalidReason`), e.g. invalid_exact_evm_recipient_mismatch.'),
  })
  .meta({ id: 'ErrorDetail' });

/** The envelope's `error` for a code: the condition it shares with other codes added. */
export function errorDetail(code: ErrorCode, message: string): z.infer<typeof ErrorDetail> {
  const condition = conditionOf(code);
  return { code, message, ...(condition && { condition }) };
}

export const ErrorEnvelope = z
  .object({ error: ErrorDetail })
  .meta({ id: 'ErrorEnvelope', description: 'Every non-2xx answer carries this envelope.' });
export type ErrorEnvelope = z.infer<typeof ErrorEnvelope>;
