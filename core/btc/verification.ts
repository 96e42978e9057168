import type { ChainSource } from './chain-source.ts';

/**
 * How a Bitcoin confirmation was verified, as invoices and `invoice.confirmed` say it: the
 * merchant's own Bitcoin Core is trusted as such; an Esplora API is, for now, one outside source
 * believed on its word.
 */
export function btcVerification(source: ChainSource['kind']): string {
  return source === 'bitcoin-core' ? 'own-node' : 'single-source';
}
