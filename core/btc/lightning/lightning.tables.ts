/** A Lightning payment the merchant's wallet reported settled, with the preimage that proves it; one per payment hash. */
export interface LnSettlementsTable {
  merchant_id: string;
  payment_hash: string;
  invoice_id: string;
  preimage: string;
  /** Millisatoshis the wallet received, as text. */
  amount_msat: string;
  /** When the wallet says it settled (epoch ms); null when it did not say. */
  settled_at: number | null;
  recorded_at: number;
  /** confirmed | partial | overpayment (the invoice was complete or had ended) */
  outcome: string;
}

/** The Lightning node each wallet connection's invoices are signed by, pinned at its first invoice. */
export interface LnWalletNodesTable {
  wallet_pubkey: string;
  node_pubkey: string;
  pinned_at: number;
}

declare module '../../schema.ts' {
  interface CoreTables {
    ln_settlements: LnSettlementsTable;
    ln_wallet_nodes: LnWalletNodesTable;
  }
}
