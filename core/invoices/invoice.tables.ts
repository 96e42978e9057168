/** Times are epoch milliseconds; amounts are integers in the smallest unit. */
export interface InvoicesTable {
  invoice_id: string;
  merchant_id: string;
  chain: string;
  asset: string;
  network: string | null;
  receive_address: string;
  child_index: number | null;
  derivation_path: string | null;
  /** Which wallet key the child index belongs to (hash of the key material, not the key). */
  key_id: string | null;
  amount_sats: number | null;
  /** Token amount in base units, as text: a bigint may not fit a JS number. */
  amount_units: string | null;
  memo: string | null;
  status: string;
  tx_hash: string | null;
  paid_at: number | null;
  /** How the confirmation was verified (`sources:2`, `own-node`, …); null while unconfirmed, and on invoices confirmed before it was recorded. */
  verification: string | null;
  expires_at: number;
  created_at: number;
  updated_at: number;
  /** Base only: the ERC-20 contract the invoice is paid in. */
  token_address: string | null;
  /** Base fixed-address mode only: the nonce in the amount's low decimals. */
  nonce: number | null;
  /** Base only: the USD amount exactly as requested (decimal text). */
  amount_usd: string | null;
  /**
   * Set by migration 0009 only: the earlier invoice that was given the same address before
   * addresses were unique across merchants. Null on every invoice created since.
   */
  address_duplicate_of: string | null;
  /** The shop's order reference (at most 128 characters). */
  order_id: string | null;
  /** The shop's flat string-to-string metadata, as JSON text. */
  metadata: string | null;
  /** Where the checkout sends the payer back once paid. */
  redirect_url: string | null;
  /** A fiat price (decimal text in price_currency) the asset amount was converted from; null when priced in the asset. */
  price_amount: string | null;
  /** ISO 4217 code of price_amount. */
  price_currency: string | null;
  /** Price currency per asset unit, decimal text, fixed at creation; null when no rate was needed. */
  rate: string | null;
  /** The rate sources whose quotes made the rate, as a JSON array of names. */
  rate_sources: string | null;
  /** When the rate was taken. */
  rate_at: number | null;
  /** Bitcoin with Lightning: the BOLT11 invoice the merchant's own wallet issued; null otherwise (migration 0028). */
  lightning_invoice?: string | null;
  /** The payment hash of `lightning_invoice`, hex. */
  payment_hash?: string | null;
  /** How a Bitcoin invoice was completed, `onchain` or `lightning`; null until confirmed (and on invoices confirmed before it was recorded). */
  payment_method?: string | null;
}

/** The next child index of each wallet key, whichever merchants registered it. */
export interface AddressCountersTable {
  chain: string;
  key_id: string;
  next_index: number;
}

/** What a shop attaches to an invoice, and how its fiat price became the amount: set by the engine, stored by every chain alike. */
export type InvoiceShopColumns = Pick<InvoicesTable, 'order_id' | 'metadata' | 'memo' | 'redirect_url' | 'price_amount' | 'price_currency' | 'rate' | 'rate_sources' | 'rate_at'>;

/** An invoice with none of them: priced in its asset, no order reference. */
export const noShopColumns: InvoiceShopColumns = {
  order_id: null,
  metadata: null,
  memo: null,
  redirect_url: null,
  price_amount: null,
  price_currency: null,
  rate: null,
  rate_sources: null,
  rate_at: null,
};
