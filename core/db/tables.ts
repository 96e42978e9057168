import type { BaseTables } from '../base/base.tables.ts';
import type { CloudTables } from '../../cloud/cloud.tables.ts';
import type { Generated } from 'kysely';
import type { EventDeliveryColumns, WebhookAttemptsTable } from '../webhooks/delivery-tables.ts';

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

/** Transactional outbox: written in the same transaction as the change that causes the event. */
export interface EventsTable {
  event_id: string;
  merchant_id: string;
  type: string;
  /** The exact JSON body that is signed and sent; never re-serialised. */
  payload: string;
  created_at: number;
  seq: Generated<number>;
}

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

export interface Tables extends BaseTables, CloudTables {
  invoices: InvoicesTable;
  address_counters: AddressCountersTable;
  events: EventsTable & EventDeliveryColumns;
  btc_payments: BtcPaymentsTable;
  btc_blocks: BtcBlocksTable;
  webhook_attempts: WebhookAttemptsTable;
}
