import type { ChainAdapter, ChainReceiver } from '../invoices/chain-adapter.ts';
import { rowToBaseInvoice } from './base-invoice.mapper.ts';
import { createBaseInvoice, type BaseReceiverOptions } from './base-invoices.ts';
import { baseTransferSeenBeforeExpiry } from './partial.ts';

/** Base for the invoice engine, whoever the merchant. */
export const baseAdapter: ChainAdapter = {
  chain: 'base',
  toStoredInvoice: rowToBaseInvoice,
  paymentSeenBeforeExpiry: baseTransferSeenBeforeExpiry,
};

/** Base invoices of one merchant. */
export function baseReceiver(options: BaseReceiverOptions): ChainReceiver {
  return { create: (creation, request) => createBaseInvoice({ ...creation, ...options }, request) };
}
