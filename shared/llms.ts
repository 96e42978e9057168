import { conditionOf, errorCatalogue, errorConditions, type ErrorCode, type ErrorCondition } from './errors.ts';
import { chainFacts, chainNameList, evmChainNames } from './chains.ts';
import { deprecatedFields } from './deprecations.ts';
import { MAX_SATS, MEMO_MAX_LENGTH, METADATA_KEY_MAX_LENGTH, METADATA_MAX_KEYS, METADATA_VALUE_MAX_LENGTH, ORDER_ID_MAX_LENGTH } from './invoice.ts';
import { API_VERSION, CONTRACT_VERSION } from './version.ts';
import { WEBHOOK_MAX_ATTEMPTS, optInWebhookEvents, standardWebhookHeaders, webhookHeaders, webhookRetryDelaysMs } from './webhooks.ts';

const formatDelay = (ms: number) => (ms >= 3_600_000 ? `${ms / 3_600_000} h` : ms >= 60_000 ? `${ms / 60_000} min` : `${ms / 1000} s`);

/** llms.txt (llmstxt.org format): the API in plain words for language models, generated from the contract. */
export function buildLlmsTxt(): string {
  const errorLines = (Object.keys(errorCatalogue) as ErrorCode[]).map(
    (code) => `- \`${errorCatalogue[code].status} ${code}\`: ${errorCatalogue[code].description}`,
  );
  const conditionLines = (Object.keys(errorConditions) as ErrorCondition[]).map(
    (condition) =>
      `- \`${condition}\`: ${errorConditions[condition]} Codes: ${(Object.keys(errorCatalogue) as ErrorCode[]).filter((code) => conditionOf(code) === condition).map((code) => `\`${code}\``).join(', ')}.`,
  );
  const deprecatedLines = deprecatedFields.map(({ field, replacement, where }) => `- \`${field}\` (${where}): use ${replacement}.`);
  return `# Service

> Non-custodial crypto payment invoices (interface version ${API_VERSION}, contract ${CONTRACT_VERSION}). Create an invoice for Bitcoin, or for USDC/USDT on an EVM chain (${chainNameList(evmChainNames)}); the payer sends to the invoice's receive address; the service watches the chain, marks the invoice \`confirmed\` and sends a signed \`invoice.confirmed\` webhook. It never holds keys or funds: payments settle straight to the merchant's wallet.

All requests and responses are JSON. Errors are \`{"error": {"code": "...", "message": "..."}}\`: branch on \`code\`, never on \`message\`; where several codes mean the same, \`error.condition\` names it (see Errors).

## Create an invoice

\`POST /invoice\` with header \`X-Service-Api-Key: <key>\` (when the listener has a key) and a JSON body of at most 16 KB:

- Bitcoin: \`{"amount_sats": 1000}\` (integer satoshis, 1 to ${MAX_SATS}; 1 BTC = 100,000,000 sats). Optional \`expires_in\` (seconds, integer >= 1, default 3600).
- Stablecoins on an EVM chain (${evmChainNames.map((chain) => `${chainFacts[chain].name}: \`"chain": "${chain}"\``).join(', ')}): \`{"chain": "${evmChainNames[0]}", "amount_usd": 12.5, "asset": "usdc"}\` (US dollars > 0; \`asset\` is \`usdc\` (default) or \`usdt\`). In fixed-address mode (\`"mode": "fixed-address"\` in the answer) many invoices share one address and the payer MUST send exactly \`amount_token\`: the low decimals identify the invoice. Fixed-address invoices live one hour.

- Optional on every chain: \`memo\` (at most ${MEMO_MAX_LENGTH} characters, shown to the payer; on Bitcoin also the BIP-21 label), \`order_id\` (your order reference, at most ${ORDER_ID_MAX_LENGTH} characters), \`metadata\` (a flat object of at most ${METADATA_MAX_KEYS} string keys of up to ${METADATA_KEY_MAX_LENGTH} characters, string values of up to ${METADATA_VALUE_MAX_LENGTH}) and \`redirect_url\` (https; the checkout page links back to it once paid, never before). They come back on the invoice and in its webhook (null when not given). Any other field is refused: \`400 bad_body\`, the message names it.

Answer \`201\`: the invoice. Show the payer \`receive_address\` and the amount (\`amount_btc\` for Bitcoin, \`amount_token\` of the token \`asset\` names for the EVM chains), or the \`qr_uri\` (BIP-21 or EIP-681 payment URI). Keep \`invoice_id\`.

Example answer (Bitcoin): \`{"invoice_id": "inv_…", "chain": "btc", "asset": "BTC", "amount_sats": 1000, "amount_btc": "0.00001000", "receive_address": "bc1q…", "status": "pending", "qr_uri": "bitcoin:bc1q…?amount=0.00001", "expires_at": "…", …}\`

## Read an invoice

\`GET /invoice/{invoice_id}\` (no key). \`status\` is one of:

- \`pending\`: waiting for payment.
- \`partial\`: payments seen that do not yet cover the amount.
- \`confirmed\`: paid with the required confirmations; \`tx_hash\` and \`paid_at\` are set. Only now deliver goods.
- \`expired\`: passed \`expires_at\` unpaid.
- \`failed\`: could not be completed.

Prefer the webhook to polling; if you poll, do it sparingly (every 30 s or more). Bitcoin needs 1 confirmation below 0.001 BTC, 3 below 0.01 BTC and 6 from 0.01 BTC (about 10 minutes each).

## Checkout page

Give the payer the link \`/pay/{invoice_id}\`: a page served by the listener with the shop name, the exact amount, the address, a QR code and the live status. Its data is \`GET /checkout/{invoice_id}\` (no key): the display-only checkout view (\`invoice_id, shop_name, chain, asset, status, receive_address, amount_btc\` or \`amount_token, amount_token_units\` and, fixed-address only, \`nonce\`; \`qr_uri, expires_at, created_at, tx_hash, paid_at, verify_url, tx_url, server_time\`).

## Webhooks

Each event is a JSON \`POST\` to the merchant's webhook URL with the Standard Webhooks headers \`${standardWebhookHeaders.id}\` (the event id, the same on every retry: de-duplicate by it), \`${standardWebhookHeaders.timestamp}\` (epoch seconds of this attempt) and \`${standardWebhookHeaders.signature}\` (\`v1,\` + base64 HMAC-SHA256 of \`id.timestamp.body\`, keyed by the base64-decoded part of the \`whsec_\` secret), so the \`standardwebhooks\` libraries verify deliveries; and the legacy headers \`${webhookHeaders.signature}\` (hex HMAC-SHA256 of the raw body bytes alone), \`${webhookHeaders.timestamp}\` (epoch milliseconds, not signed), \`${webhookHeaders.eventId}\` (not signed) and \`${webhookHeaders.attempt}\` (1-based).

To verify: check \`${standardWebhookHeaders.signature}\` over the raw bytes exactly as received (re-serialising breaks it), compare in constant time, reject timestamps more than five minutes from your clock, and take the event id only from signed data (\`${standardWebhookHeaders.id}\` or the body's \`event_id\`). Do not accept \`${webhookHeaders.signature}\` alone or trust \`${webhookHeaders.eventId}\`: they sign neither the timestamp nor the id, so a captured delivery replayed with a fresh timestamp and a new id would pass as new. Answer any 2xx within 10 seconds; otherwise the event is retried after ${webhookRetryDelaysMs.map(formatDelay).join(', ')} (${WEBHOOK_MAX_ATTEMPTS} attempts in all).

Events: \`invoice.confirmed\` (\`event, event_id, invoice_id, merchant_id, chain, asset, amount, address, tx_hash, confirmations, confirmed_at, verification, order_id, metadata, memo, redirect_url\`; \`amount\` is a decimal string in the asset's unit) and \`payment.orphan\` (a transfer that matches no open invoice: \`event, event_id, chain, asset, token_address, address, tx_hash, value, detected_at\`; no invoice is marked paid, handle it by hand). Opt-in, once per invoice and only when subscribed (\`MERCHANT_WEBHOOK_EVENTS\` on the listener, \`webhook_events\` of \`POST /api/v1/webhook\` on Cloud): ${optInWebhookEvents.map((name) => `\`${name}\``).join(', ')} (\`event, event_id, invoice_id, merchant_id, chain, asset, status, amount, amount_paid, address, occurred_at\`; \`amount_paid\` is verified but not yet confirmed).

## Cloud (hosted, under /api/v1)

The same invoice bodies and fields under \`/api/v1\`, with a per-merchant key in \`X-Service-Api-Key\`: \`POST /api/v1/signup\` (\`email\`, \`shop_name\`, and \`receive_methods\`: one entry per chain, at least one, such as \`{"chain": "btc", "xpub": "zpub…"}\` or, on an EVM chain, \`{"chain": "${evmChainNames[0]}", "xpub": "xpub…"}\` and/or \`"address": "0x…"\` (fixed-address mode, needed for USDT); optional \`webhook_url\`) returns \`api_key\` once. Then \`POST /api/v1/invoice\`, \`GET /api/v1/invoice/{id}\`, \`GET /api/v1/invoices?limit=25\` (\`&order_id=…\`: the invoices of one order), \`GET /api/v1/me\`, \`POST /api/v1/webhook\`, \`POST /api/v1/billing/checkout\`; public: \`GET /api/v1/plans\`, \`GET /api/v1/checkout/{id}\`, \`GET /api/v1/health\`. Plans: free 50, starter 500 (19 USD), pro 5000 (49 USD) invoices per calendar month (UTC); at the cap \`POST /api/v1/invoice\` answers 402 \`plan_limit_reached\`. Never send a private key: only public keys (xpub).

## MCP (for agents)

\`/mcp\` (Cloud: \`/api/v1/mcp\`) is a Model Context Protocol server over Streamable HTTP, with the key as for creating invoices (\`X-Service-Api-Key\` or \`Authorization: Bearer\`). Tools: \`create_invoice\`, \`get_invoice_status\`, \`list_supported_assets\`, \`wait_for_payment\` (returns when the invoice is confirmed or expired, or after \`timeout_s\`), and on Cloud \`list_invoices\`. Invoices are resources \`invoice://{invoice_id}\`; subscribe to one to get \`notifications/resources/updated\` when its status changes.

## Errors

${errorLines.join('\n')}

Conditions (\`error.condition\`, on every code that shares one):

${conditionLines.join('\n')}

## Deprecated

Still sent and accepted, for the clients that read them; use the replacement:

${deprecatedLines.join('\n')}

## Docs

- [OpenAPI 3.1 description](/openapi.json): every endpoint, field, error and webhook of this API.
- [Health](/health): \`ok\`, every configured chain's watcher in \`chains\`, uptime.
`;
}
