/** One output paying a watched Bitcoin address; (txid, vout) is credited once, to one invoice. */
export interface BtcPaymentsTable {
  merchant_id: string;
  invoice_id: string;
  txid: string;
  vout: number;
  value_sats: number;
  /** mempool | block | gone (left the mempool, or its block was reorganised away). */
  status: string;
  block_height: number | null;
  block_hash: string | null;
  first_seen_at: number;
  /** 1 once the merchant was told (counted into invoice.confirmed, or sent as payment.orphan). */
  reported: number;
}

/** Blocks the Bitcoin watcher has processed (recent ones only), to find the fork point of a reorg. */
export interface BtcBlocksTable {
  merchant_id: string;
  height: number;
  hash: string;
  processed_at: number;
}

/** The verified header chain's best branch per network (core/btc/header-chain.ts). */
export interface BtcHeadersTable {
  network: string;
  height: number;
  /** The 80-byte serialized header. */
  header: Uint8Array;
}

// Bitcoin's tables join the core's: the chain-neutral core declares none of a chain's.
declare module '../schema.ts' {
  interface CoreTables {
    btc_payments: BtcPaymentsTable;
    btc_blocks: BtcBlocksTable;
    btc_headers: BtcHeadersTable;
  }
}
