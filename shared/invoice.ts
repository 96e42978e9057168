import * as z from 'zod';
import { chainFacts, chainList, chainNames, DEFAULT_CHAIN, evmChainNames } from './chains.ts';
import { deprecatedField, deprecations } from './deprecated.ts';
import { invoicePriceShape, PriceCurrency, priceAmountProblem } from './prices.ts';

/** 21 million BTC in satoshis: no valid amount is larger. */
export const MAX_SATS = 2_100_000_000_000_000;
export const MEMO_MAX_LENGTH = 200;
export const ORDER_ID_MAX_LENGTH = 128;
export const METADATA_MAX_KEYS = 20;
export const METADATA_KEY_MAX_LENGTH = 40;
export const METADATA_VALUE_MAX_LENGTH = 500;
const REDIRECT_URL_MAX_LENGTH = 2000;
/** The hosts a return link may reach over plain http, where the service is not in production. */
const LOOPBACK_HOSTS: readonly string[] = ['localhost', '127.0.0.1', '[::1]'];
export const DEFAULT_EXPIRES_IN_S = 3600;

export const requestChains = chainNames;
export const RequestChain = z.enum(requestChains);
export type RequestChain = z.infer<typeof RequestChain>;

export const InvoiceChain = z.enum(chainNames);
const EvmChain = z.enum(evmChainNames);
const evmList = chainList(evmChainNames);
export const InvoiceStatus = z
  .enum(['pending', 'partial', 'confirmed', 'expired', 'failed'])
  .meta({
    id: 'InvoiceStatus',
    description:
      'pending: waiting for payment. partial: payments in blocks (Bitcoin: verified; EVM: agreed by the sources) that do not yet cover the amount. confirmed: paid with the required confirmations (tx_hash, paid_at set, webhook queued). expired: passed expires_at unpaid. failed: could not be completed.',
  });
export type InvoiceStatus = z.infer<typeof InvoiceStatus>;

export const BtcNetwork = z.enum(['mainnet', 'testnet', 'signet', 'regtest']);
export type BtcNetwork = z.infer<typeof BtcNetwork>;

const dateTime = () => z.iso.datetime();

/** The JSON number grammar (RFC 8259), whole text. */
export const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/** A JSON number's decimal text as written ("12.50", "1e-6"): money travels as this, never as a float. */
export const DecimalText = z.string().regex(JSON_NUMBER).brand<'DecimalText'>();
export type DecimalText = z.infer<typeof DecimalText>;

/** The source text of a JSON object's top-level numbers, by key: JSON.parse rounds them to doubles. */
export type NumberTexts = ReadonlyMap<string, string>;

/**
 * amount_usd: a JSON number on the wire, decimal text once parsed. Decoded from a double it is
 * that double's shortest text; the HTTP edge, which has the request's own digits, passes those
 * instead (see parseCreateInvoiceRequest), so "10.000000000000000001" is never silently 10.
 */
const UsdAmount = z.codec(z.number().gt(0), DecimalText, {
  decode: (amount) => String(amount),
  encode: (text) => Number(text),
});

/** Text a person reads on a page or in a log: no control characters (a line break could forge a log line). */
const NO_CONTROL = /^[^\p{Cc}]*$/u;

/**
 * Where a return link may point: https, or http to a loopback host (a shop on the developer's
 * machine; the service refuses it in production, see parseOrderFields). No user or password in it.
 */
function returnLinkProblem(text: string): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.username || url.password) return 'must not carry a user name or password';
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:' && LOOPBACK_HOSTS.includes(url.hostname)) return null;
  return 'must be https (http only to localhost, 127.0.0.1 or [::1], outside production)';
}

/** What a shop attaches to an invoice: all optional, each refused with `bad_body` past its bound. */
const orderRequestShape = {
  order_id: z
    .string()
    .min(1)
    .max(ORDER_ID_MAX_LENGTH)
    .regex(NO_CONTROL, 'must not contain control characters')
    .optional()
    .describe(`The shop's own order reference, 1-${ORDER_ID_MAX_LENGTH} characters, returned on the invoice and in its webhooks. Need not be unique.`),
  metadata: z
    .record(
      z
        .string()
        .min(1)
        .max(METADATA_KEY_MAX_LENGTH)
        .regex(NO_CONTROL, 'must not contain control characters'),
      z.string().max(METADATA_VALUE_MAX_LENGTH),
    )
    .refine((metadata) => Object.keys(metadata).length <= METADATA_MAX_KEYS, `at most ${METADATA_MAX_KEYS} keys`)
    .optional()
    .describe(
      `A flat object of at most ${METADATA_MAX_KEYS} string keys (1-${METADATA_KEY_MAX_LENGTH} characters) with string values (at most ${METADATA_VALUE_MAX_LENGTH} characters each), returned on the invoice and in its webhooks. No nesting, numbers or nulls.`,
    ),
  redirect_url: z
    .string()
    .max(REDIRECT_URL_MAX_LENGTH)
    // A URL parser drops tabs and line breaks; the stored text would still hold them.
    .regex(NO_CONTROL, 'must not contain control characters')
    .superRefine((text, ctx) => {
      const problem = returnLinkProblem(text);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    })
    .optional()
    .describe(
      `Where the checkout page sends the payer back once the invoice is paid ("Return to <shop>"; never shown before). https, or http to localhost, 127.0.0.1 or [::1] where the service does not run in production; at most ${REDIRECT_URL_MAX_LENGTH} characters, no user name or password.`,
    ),
};

/** How a Bitcoin invoice can be paid: on-chain to its address, or over Lightning to its BOLT11 invoice. */
export const BtcPaymentMethod = z.enum(['onchain', 'lightning']).meta({ id: 'BtcPaymentMethod' });
export type BtcPaymentMethod = z.infer<typeof BtcPaymentMethod>;

export const CreateInvoiceRequest = z
  .object({
    chain: RequestChain.optional().describe(`${chainList()}; default \`${DEFAULT_CHAIN}\`.`),
    amount_sats: z
      .number()
      .int()
      .min(1)
      .max(MAX_SATS)
      .optional()
      .describe('Bitcoin (`btc`): the amount in satoshis (1 BTC = 100,000,000 sats), an integer >= 1. Required unless the invoice is priced with `price_amount` and `price_currency`.'),
    amount_usd: UsdAmount.optional()
      .describe(`EVM chains (${evmList}): the amount in US dollars, > 0; settled in USDC or USDT (1 token = 1 USD). Required unless the invoice is priced with \`price_amount\` and \`price_currency\`.`),
    price_amount: z
      .string()
      .optional()
      .describe(
        'A price in a fiat currency instead of the amount field, as decimal text ("25.00"; at most the currency\'s minor unit of decimals, none for JPY), with `price_currency`. Converted to the asset at creation on the median of several rate sources\' quotes and fixed for the invoice\'s life.',
      ),
    price_currency: PriceCurrency.optional().describe('ISO 4217 code of `price_amount`; sent with it, never alone.'),
    asset: z.enum(['usdc', 'usdt']).optional().describe(`EVM chains only (${evmList}): \`usdc\` (default) or \`usdt\` (always fixed-address mode).`),
    payment_methods: z
      .array(BtcPaymentMethod)
      .min(1)
      .max(2)
      .refine((methods) => new Set(methods).size === methods.length, 'names a method twice')
      .optional()
      .describe(
        'Bitcoin (`btc`) only: how the payer may pay, `onchain` (a fresh address) and/or `lightning` (a BOLT11 invoice from the merchant\'s own wallet over Nostr Wallet Connect). Default: every method the merchant has. A method asked for that the merchant lacks is refused (`chain_disabled`); `lightning` alone when the wallet does not answer is 503 `lightning_unavailable`.',
      ),
    memo: z
      .string()
      .max(MEMO_MAX_LENGTH)
      .optional()
      .describe(`Any chain: shown to the payer on the checkout page (Bitcoin: also the BIP-21 label of the payment URI); at most ${MEMO_MAX_LENGTH} characters.`),
    expires_in: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe('Lifetime in seconds, >= 1 (Bitcoin and EVM xpub mode); default 3600. Fixed-address invoices always live one hour.'),
    ...orderRequestShape,
  })
  // A field the contract does not know is refused (bad_body, naming it), never dropped unread.
  .strict()
  .superRefine((body, ctx) => {
    const chain = body.chain ?? DEFAULT_CHAIN;
    const field = chainFacts[chain].amountField;
    if (body.payment_methods !== undefined && chain !== 'btc') ctx.addIssue({ code: 'custom', path: ['payment_methods'], message: 'payment_methods is for Bitcoin (btc) invoices only' });
    const priced = body.price_amount !== undefined || body.price_currency !== undefined;
    const either = `either ${field} or price_amount with price_currency`;
    if (body[field] === undefined && !priced) ctx.addIssue({ code: 'custom', path: [field], message: `${either} is required for ${chain}` });
    else if (body[field] !== undefined && priced) ctx.addIssue({ code: 'custom', path: [field], message: `send ${either}, not both` });
    else if (priced && (body.price_amount === undefined || body.price_currency === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['price_amount'], message: 'price_amount and price_currency are sent together' });
    } else if (body.price_amount !== undefined && body.price_currency !== undefined) {
      const problem = priceAmountProblem(body.price_amount, body.price_currency);
      if (problem) ctx.addIssue({ code: 'custom', path: ['price_amount'], message: problem });
    }
  })
  .meta({ id: 'CreateInvoiceRequest', description: 'Body of POST /invoice. JSON, at most 16 KB. A field not listed here is refused with 400 `bad_body` naming it.' });
export type CreateInvoiceRequest = z.infer<typeof CreateInvoiceRequest>;

export const Verification = z
  .string()
  .regex(/^(proof-of-work|own-node|own-wallet|single-source|sources:[1-9]\d*)$/)
  .meta({
    id: 'Verification',
    description:
      'How the confirmation was verified. `sources:N`: N independent RPC sources reported the same transfer at the required depth (EVM chains). `proof-of-work`: the block was checked against a proof-of-work header chain (Bitcoin). `own-node`: the merchant declared its one source trusted, its own node (Bitcoin Core RPC, or `<PREFIX>_MIN_SOURCES=1`). `own-wallet`: a Lightning payment the merchant\'s own wallet reported settled over Nostr Wallet Connect, with a preimage that hashes to the invoice\'s payment hash. `single-source`: one outside source was believed; a merchant may refuse to ship on it.',
  });

const olderServices = 'Absent only from services released before it.';

/** What the shop attached at creation, as every invoice, list entry and webhook of the invoice returns it. */
export const orderFieldsShape = {
  order_id: z.string().nullable().optional().describe(`The order reference given at creation; null when none. ${olderServices}`),
  metadata: z
    .record(z.string(), z.string())
    .nullable()
    .optional()
    .describe(`The metadata given at creation (flat, string values); null when none. ${olderServices}`),
  redirect_url: z.string().nullable().optional().describe(`The return link given at creation; null when none. ${olderServices}`),
};

/** The memo of an invoice on a chain whose invoices had none before (it was Bitcoin's only). */
export const memoOnEveryChain = {
  memo: z.string().nullable().optional().describe(`The memo given at creation, shown on the checkout page; null when none. ${olderServices}`),
};

/** The order fields and the memo, as the service fills them: each present, null when not given. */
export interface InvoiceOrderFields {
  order_id: string | null;
  metadata: Record<string, string> | null;
  memo: string | null;
  redirect_url: string | null;
}

const invoiceCoreShape = {
  invoice_id: z.string().describe('Identifier returned at creation.'),
  merchant_id: z.string(),
  chain: InvoiceChain,
  asset: z.string().describe('BTC, USDC or USDT.'),
  receive_address: z.string().describe('The on-chain address the payer sends to.'),
  child_index: z
    .number()
    .int()
    .nullable()
    .describe('BIP-32 child index of an xpub-derived address; null for fixed-address invoices.'),
  status: InvoiceStatus,
  tx_hash: z.string().nullable().describe('The transaction that completed the payment; set on confirmation.'),
  paid_at: dateTime().nullable().describe('Set on confirmation.'),
  verification: Verification.nullable()
    .optional()
    .describe('How the confirmation was verified; null while unconfirmed (and on invoices confirmed before it was recorded). Absent only from listeners released before it.'),
  expires_at: dateTime(),
  created_at: dateTime(),
  updated_at: dateTime(),
  ...orderFieldsShape,
  ...invoicePriceShape,
};

/** Where an agent pays the invoice with x402; null where it cannot (Bitcoin, USDT, a paid or ended invoice). */
const x402UrlShape = {
  x402_url: z
    .string()
    .nullable()
    .describe(
      'x402 (HTTP 402) payment URL: GET it for the payment requirements, pay it with an x402 client (EIP-3009 `exact` scheme). Null for Bitcoin, USDT, a paid or ended invoice, or a chain without settlement set up.',
    ),
};

/** A Bitcoin invoice's Lightning side, when the merchant's wallet issued one. */
const lightningShape = {
  lightning_invoice: z
    .string()
    .nullable()
    .optional()
    .describe(
      "BOLT11 invoice from the merchant's own Lightning wallet for exactly the amount, expiring with the invoice; null when the invoice is on-chain only. Absent only from services released before Lightning. A Lightning-only invoice has no address: its `receive_address` repeats this BOLT11 and `child_index` is null.",
    ),
  payment_hash: z.string().nullable().optional().describe('Payment hash of `lightning_invoice` (hex); a settlement counts only with a preimage that hashes to it. Null when on-chain only.'),
  payment_method: BtcPaymentMethod.nullable()
    .optional()
    .describe('How the invoice was completed: `onchain` or `lightning`; null until confirmed.'),
};

export const BtcInvoice = z
  .object({
    ...invoiceCoreShape,
    chain: z.literal('btc'),
    asset: z.literal('BTC'),
    amount_btc: z.string().describe('Exact decimal BTC amount, e.g. "0.00001000".'),
    amount_sats: z.number().int().describe('The amount in satoshis.'),
    network: BtcNetwork.describe('Bitcoin network of the address, from the merchant key (or BTC_NETWORK).'),
    memo: z.string().nullable().describe('The memo given at creation, if any.'),
    ...lightningShape,
    ...x402UrlShape,
  })
  .meta({ id: 'BtcInvoice', description: 'A stored Bitcoin invoice (GET /invoice/:id).' });
export type BtcInvoice = z.infer<typeof BtcInvoice>;

export const BtcInvoiceCreated = BtcInvoice.extend({
  derivation_path: z.string().describe("Derivation path of the address, e.g. m/84'/0'/0'/0/7."),
  qr_uri: z
    .string()
    .describe(
      'BIP-21 URI with the amount in BTC and the memo as label; with Lightning too, its `lightning=` parameter carries the BOLT11 (a unified QR any wallet pays either way). A Lightning-only invoice: `lightning:<BOLT11>`.',
    ),
  verify_url: z.url().describe('Block-explorer link for the receive address.'),
}).meta({ id: 'BtcInvoiceCreated', description: 'A Bitcoin invoice as returned by POST /invoice.' });
export type BtcInvoiceCreated = z.infer<typeof BtcInvoiceCreated>;

export const tokenAmountDeprecations = deprecations('EVM invoices and checkout views', { amount_usdc: '`amount_token`', amount_usdc_units: '`amount_token_units`' });

/** The token amount under its chain-neutral names, and under the names the spec gives it (USDT too). */
export const tokenAmountShape = {
  amount_token: z.string().describe('Exact decimal amount of the token `asset` names (USDC or USDT), 6 decimals.'),
  amount_token_units: z.number().int().describe('The same amount in the token\'s 6-decimal base units.'),
  amount_usdc: deprecatedField(tokenAmountDeprecations.amount_usdc, z.string(), 'The same as `amount_token`, also for USDT: exact decimal token amount with 6 decimals.'),
  amount_usdc_units: deprecatedField(tokenAmountDeprecations.amount_usdc_units, z.number().int(), 'The same as `amount_token_units`, also for USDT.'),
};

/**
 * An EVM invoice or checkout view as a listener before contract 0.7.0 answered it, with the token
 * amount under its chain-neutral names too, so a client of such a listener parses it with today's
 * shapes; any other answer as it is.
 */
export function withTokenAmountNames(answer: unknown): unknown {
  if (typeof answer !== 'object' || answer === null || !('amount_usdc' in answer) || 'amount_token' in answer) return answer;
  const older = answer as { amount_usdc: unknown; amount_usdc_units?: unknown };
  return { ...older, amount_token: older.amount_usdc, amount_token_units: older.amount_usdc_units };
}

const baseAmountShape = {
  amount_usd: z.number().describe('The USD amount requested.'),
  ...tokenAmountShape,
};

export const BaseInvoice = z
  .object({
    ...invoiceCoreShape,
    chain: EvmChain,
    asset: z.enum(['USDC', 'USDT']),
    ...baseAmountShape,
    mode: z.literal('fixed-address').optional().describe('Present only for fixed-address invoices.'),
    nonce: z.number().int().optional().describe('Fixed-address only: the nonce encoded in the low decimals of the amount.'),
    token_address: z.string().optional().describe('Fixed-address only: the ERC-20 contract the payer must send.'),
    ...memoOnEveryChain,
    ...x402UrlShape,
  })
  .meta({ id: 'BaseInvoice', description: `A stored stablecoin invoice on an EVM chain (${evmList}) (GET /invoice/:id).` });
export type BaseInvoice = z.infer<typeof BaseInvoice>;

export const BaseXpubInvoiceCreated = z
  .object({
    ...invoiceCoreShape,
    chain: EvmChain,
    asset: z.literal('USDC'),
    ...baseAmountShape,
    qr_uri: z.string().describe('EIP-681 URI: ethereum:<token>@<chain id>/transfer?address=<recipient>&uint256=<units>.'),
    derivation_path: z.string().describe('Derivation path of the address under the merchant account xpub.'),
    verify_url: z.url().describe('Block-explorer link for the receive address.'),
    ...memoOnEveryChain,
    ...x402UrlShape,
  })
  .meta({ id: 'BaseXpubInvoiceCreated', description: 'An EVM chain invoice in xpub mode, as returned by POST /invoice.' });

export const BaseFixedInvoiceCreated = z
  .object({
    invoice_id: z.string(),
    chain: EvmChain,
    asset: z.enum(['USDC', 'USDT']),
    mode: z.literal('fixed-address'),
    nonce: z.number().int().describe('Encoded in the low decimals of the amount; the payer must send the exact amount.'),
    token_address: z.string().describe('The ERC-20 contract the payer must send.'),
    receive_address: z.string().describe("The merchant's fixed receive address, shared by all fixed-address invoices."),
    ...baseAmountShape,
    ...invoicePriceShape,
    status: InvoiceStatus,
    expires_at: dateTime(),
    qr_uri: z.string().describe('EIP-681 URI with the exact amount in base units.'),
    ...orderFieldsShape,
    ...memoOnEveryChain,
    ...x402UrlShape,
  })
  .meta({
    id: 'BaseFixedInvoiceCreated',
    description: 'An EVM chain invoice in fixed-address mode, as returned by POST /invoice. The payer must send exactly amount_token.',
  });

export const CreatedInvoice = z
  .union([BtcInvoiceCreated, BaseXpubInvoiceCreated, BaseFixedInvoiceCreated])
  .meta({ id: 'CreatedInvoice' });
export const StoredInvoice = z.union([BtcInvoice, BaseInvoice]).meta({ id: 'StoredInvoice' });
export type StoredInvoice = z.infer<typeof StoredInvoice>;
