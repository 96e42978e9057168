import type { ChainAdapter, ChainReceiver } from '../invoices/chain-adapter.ts';
import { createEvmInvoice, type EvmReceiverOptions } from './evm-invoices.ts';
import { evmModules } from './evm-module.ts';

/** Base for the invoice engine, whoever the merchant. */
export const evmAdapter: ChainAdapter = evmModules.get('base')!.adapter;

/** One EVM chain's invoices of one merchant (the chain is `options.base.chain`). */
export function evmReceiver(options: EvmReceiverOptions): ChainReceiver {
  return { create: (creation, request) => createEvmInvoice({ ...creation, ...options }, request) };
}
