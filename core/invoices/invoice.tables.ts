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
}

/** The next child index of each wallet key, whichever merchants registered it. */
export interface AddressCountersTable {
  chain: string;
  key_id: string;
  next_index: number;
}
