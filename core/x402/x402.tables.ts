import type { Generated } from 'kysely';

/**
 * One row per invoice paid through x402: the authorization being (or that was) settled for it.
 * The row is the invoice's lock: one payer at a time, and one settlement per authorization nonce.
 */
export interface X402SettlementsTable {
  invoice_id: string;
  merchant_id: string;
  /**
   * `settling`: being verified and submitted; `sent`: the transaction was reported mined; `unseen`:
   * the settler reported a transaction the chain does not show; `refused`: nothing was sent;
   * `lapsed`: a settle that never answered whose authorization can no longer be mined. The invoice
   * may be paid again after `refused` and `lapsed`.
   */
  state: string;
  payer: string;
  /** The EIP-3009 authorization nonce (0x + 64 hex). */
  nonce: string;
  /** The authorization's `validBefore` (Unix seconds): until then a `settling` lock holds; null on locks taken before it was kept. */
  valid_before: number | null;
  tx_hash: string | null;
  /** Gas units the built-in settler spent on this invoice's settlements, every attempt (reverted ones too). */
  gas_used: Generated<number>;
  /** CAIP-2 network. */
  network: string;
  created_at: number;
  updated_at: number;
}

export interface X402Tables {
  x402_settlements: X402SettlementsTable;
}
