import type { Generated } from 'kysely';

/**
 * Fixed-address amount reservations: (base_units, nonce) is the exact amount of one invoice and
 * stays reserved until `reserved_until` (its expiry plus the quarantine). Keyed by the receive
 * address, not the merchant: merchants who registered the same fixed address never hold the same
 * exact amount at once, so one transfer can match one invoice only.
 */
export interface EvmNonceLeasesTable {
  address: string;
  /** The rounded amount in token units, as text. */
  base_units: string;
  nonce: number;
  invoice_id: string;
  reserved_until: number;
}

/** Transfer logs to watched addresses, one row per log: (tx_hash, log_index) is never counted twice. */
export interface EvmTransfersTable {
  merchant_id: string;
  /** The EVM chain the transfer was read on; rows from before it was recorded are Base's. */
  chain: Generated<string>;
  tx_hash: string;
  log_index: number;
  block_number: number;
  block_hash: string;
  /** Block timestamp (epoch ms): decides whether a payment came before the invoice's expiry. */
  block_time: number;
  token_address: string;
  from_address: string;
  to_address: string;
  /** Token units as text. */
  value: string;
  /** seen: waiting for confirmations; applied: counted for `invoice_id`; orphan: reported; ignored. */
  state: string;
  invoice_id: string | null;
  detected_at: number;
}

/** Ends of processed block ranges; the highest is where the next scan starts; reorgs are found here. */
export interface EvmBlocksTable {
  merchant_id: string;
  chain: string;
  block_number: number;
  block_hash: string;
  block_time: number;
}

/** See address-claims.ts: which kind of receive method owns a Base address. */
export interface EvmAddressClaimsTable {
  address: string;
  kind: string;
}

export interface EvmTables {
  base_address_claims: EvmAddressClaimsTable;
  base_nonce_leases: EvmNonceLeasesTable;
  base_transfers: EvmTransfersTable;
  base_blocks: EvmBlocksTable;
}

// The EVM family's tables join the core's: the chain-neutral core declares none of a chain's.
declare module '../schema.ts' {
  interface CoreTables extends EvmTables {}
}
