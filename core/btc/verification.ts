import type { ChainSource } from './chain-source.ts';

/**
 * How a Bitcoin confirmation was verified, for the invoice and its `invoice.confirmed` event:
 * `proof-of-work` when counted on the header chain verified from the release checkpoint
 * (third-party Esplora sources: every block's header checked, every block's transactions against
 * its merkle root), `own-node` when the merchant's own Bitcoin Core said so (trusted as theirs).
 */
export type BtcVerification = 'proof-of-work' | 'own-node';

export function btcVerificationOf(source: ChainSource): BtcVerification {
  return source.syncHeaders ? 'proof-of-work' : 'own-node';
}
