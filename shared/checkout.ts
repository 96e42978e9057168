import * as z from 'zod';
import { chainSettingList, evmChainNames } from './chains.ts';
import { BtcNetwork, InvoiceStatus, tokenAmountShape } from './invoice.ts';
import { invoicePriceShape } from './prices.ts';

const dateTime = () => z.iso.datetime();

const checkoutCoreShape = {
  invoice_id: z.string(),
  shop_name: z.string().describe('The name shown to the payer (listener: `SHOP_NAME`; Cloud: the account shop name).'),
  status: InvoiceStatus,
  receive_address: z.string().describe('The address the payer sends to.'),
  qr_uri: z.string().describe('The payment URI encoded in the QR code: BIP-21 for Bitcoin, EIP-681 (with the chain id) for the EVM chains.'),
  expires_at: dateTime(),
  created_at: dateTime(),
  tx_hash: z.string().nullable().describe('The transaction that completed the payment; set on confirmation.'),
  paid_at: dateTime().nullable(),
  verify_url: z.url().nullable().describe('Block-explorer page of the receive address; null when no explorer is configured for the chain.'),
  tx_url: z.url().nullable().describe('Block-explorer page of `tx_hash`; null until confirmed.'),
  x402_url: z.string().nullable().describe("The invoice's `x402_url`: where an agent pays it with an x402 client (HTTP 402); null where it cannot (Bitcoin, USDT, paid or ended)."),
  amount_due: z
    .string()
    .describe(
      'An addition to the spec\'s view: what the payer still has to send, in the same unit as `amount_btc` / `amount_token`: the amount minus the payments already seen toward it (any number of confirmations). Equal to the amount until something arrives; while the invoice is `partial`, `qr_uri` asks for exactly this.',
    ),
  payment_seen: z
    .boolean()
    .describe(
      `An addition to the spec's view: true when payments covering the amount are seen while the status is still \`pending\`, waiting for confirmations (Bitcoin: in the mempool or blocks, 10-60 minutes; EVM chains: mined, the confirmations set for the chain: ${chainSettingList('CONFIRMATIONS', evmChainNames)}). The page then tells the payer not to pay again.`,
    ),
  memo: z
    .string()
    .nullable()
    .describe("An addition to the spec's view: the memo the merchant gave at creation (any chain; null when none), shown to the payer."),
  redirect_url: z
    .string()
    .nullable()
    .optional()
    .describe(
      "An addition to the spec's view: the invoice's return link, only once it is `confirmed` (null before, and when none was given), so the page offers \"Return to <shop>\" to a payer who paid and to no one else. Absent only from services released before it.",
    ),
  server_time: dateTime().describe(
    "The service's clock when this view was made (an addition to the spec's view): the page counts down to `expires_at` from it, so a payer device with a wrong clock still shows the right time left.",
  ),
  ...invoicePriceShape,
};

export const BtcCheckoutView = z
  .object({
    ...checkoutCoreShape,
    chain: z.literal('btc'),
    asset: z.literal('BTC'),
    network: BtcNetwork.describe("An addition to the spec's view: the Bitcoin network of the address, so the page can say when the coins are test coins."),
    amount_btc: z.string().describe('Exact decimal BTC amount to send, e.g. "0.00050000".'),
    lightning_invoice: z
      .string()
      .nullable()
      .optional()
      .describe("An addition to the spec's view: the BOLT11 invoice the payer may pay over Lightning instead (the page's Lightning tab); null when on-chain only, or once the invoice has ended. Absent only from services released before Lightning."),
  })
  .strict()
  .meta({ id: 'BtcCheckoutView' });

export const BaseCheckoutView = z
  .object({
    ...checkoutCoreShape,
    chain: z.enum(evmChainNames),
    asset: z.enum(['USDC', 'USDT']),
    ...tokenAmountShape,
    nonce: z
      .number()
      .int()
      .optional()
      .describe('Fixed-address invoices only: the nonce in the low decimals of the amount. The payer must send exactly `amount_token`.'),
  })
  .strict()
  .meta({ id: 'BaseCheckoutView' });

/**
 * What a checkout page shows, and nothing more: never an xpub, secret, API key, email or
 * derivation path. The listener serves it at GET /checkout/:id, Cloud at GET /api/v1/checkout/:id.
 */
export const CheckoutView = z.union([BtcCheckoutView, BaseCheckoutView]).meta({
  id: 'CheckoutView',
  description: 'Display-only fields of an invoice for its hosted checkout page. Public: it carries nothing secret.',
});
export type CheckoutView = z.infer<typeof CheckoutView>;

/** Statuses after which a checkout page stops polling. */
export const finalCheckoutStatuses: readonly InvoiceStatus[] = ['confirmed', 'expired', 'failed'];
