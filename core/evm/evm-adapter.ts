import type { ChainReceiver } from '../invoices/chain-adapter.ts';
import { createEvmInvoice, type EvmReceiverOptions } from './evm-invoices.ts';

/** One EVM chain's invoices of one merchant (the chain is `options.base.chain`). */
export function evmReceiver(options: EvmReceiverOptions): ChainReceiver {
  return { create: (creation, request) => createEvmInvoice({ ...creation, ...options }, request) };
}
