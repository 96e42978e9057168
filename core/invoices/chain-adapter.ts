import type { Kysely, Transaction } from 'kysely';
import type * as z from 'zod';
import type { CreatedInvoice, CreateInvoiceRequest, StoredInvoice } from '../../shared/index.ts';
import type { Clock } from '../clock.ts';
import type { ServiceError } from '../errors.ts';
import type { CoreTables } from '../schema.ts';
import type { Logger } from '../log.ts';
import type { ExpiryGuard, InvoiceRow } from './invoice.repository.ts';
import type { InvoiceShopColumns } from './invoice.tables.ts';

/** What the engine hands a chain to create one invoice: the store, the merchant, the invoice's transaction hook. */
export interface InvoiceCreation {
  db: Kysely<CoreTables>;
  clock: Clock;
  logger: Logger;
  merchantId: string;
  newInvoiceId: () => string;
  /**
   * Runs inside the transaction that stores the invoice, before the insert: a throw (a plan cap)
   * rolls back the address allocation and stores nothing.
   */
  beforeInsert?: (trx: Transaction<CoreTables>) => Promise<void>;
  /** The order reference, metadata and fiat price the engine settled for this invoice: stored as they are. */
  shopColumns: InvoiceShopColumns;
  /** What a second payment method of the same invoice filled in beforehand (a Lightning invoice beside the address): stored as it is. */
  methodColumns?: Partial<Pick<InvoiceRow, 'lightning_invoice' | 'payment_hash'>>;
}

/**
 * One merchant's way of receiving on one chain: checks what the contract leaves to the chain
 * (assets, amounts), allocates a receive address and stores the invoice, in one transaction.
 */
export interface ChainReceiver {
  create(creation: InvoiceCreation, request: CreateInvoiceRequest): Promise<z.infer<typeof CreatedInvoice>>;
}

/** What the engine needs of a chain whoever the merchant: reading its stored invoices, and when they may expire. */
export interface ChainAdapter {
  chain: string;
  /** A stored row of this chain in the contract's shape. */
  toStoredInvoice(row: InvoiceRow): StoredInvoice;
  /**
   * The expiry guard: true when the chain has seen a payment toward the invoice in time, so it
   * must stay pending past its expiry (it may still confirm; the watchers decide). Given the time
   * of the read, so a chain's hold can lapse (Bitcoin's grace after expiry). Asked of every
   * row whatever its chain, so it must match only the rows of its own chain, and never be NULL
   * (it is negated: an EXISTS is safe).
   */
  paymentSeenBeforeExpiry: ExpiryGuard;
  /** The answer to a request for this chain from a merchant who does not receive on it. */
  disabled(): ServiceError;
}

/** The chains an edition serves, by name. */
export function chainRegistry(adapters: readonly ChainAdapter[]): ReadonlyMap<string, ChainAdapter> {
  return new Map(adapters.map((adapter) => [adapter.chain, adapter]));
}
