import type { ChainAdapter, ChainReceiver } from '../invoices/chain-adapter.ts';
import { createBaseInvoice, type BaseReceiverOptions } from './base-invoices.ts';
import { evmModules } from './evm-module.ts';

/** Base for the invoice engine, whoever the merchant. */
export const baseAdapter: ChainAdapter = evmModules.get('base')!.adapter;

/** One EVM chain's invoices of one merchant (the chain is `options.base.chain`). */
export function baseReceiver(options: BaseReceiverOptions): ChainReceiver {
  return { create: (creation, request) => createBaseInvoice({ ...creation, ...options }, request) };
}
