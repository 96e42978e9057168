import type { BtcNetwork } from '../../shared/index.ts';

/**
 * The Esplora sources used when BTC_ESPLORA_URL is unset: two independent operators where both
 * serve the network, so a lie is named and withholding noticed (docs/chains.md, "Several Esplora
 * sources"). Each has its own request budget. Regtest has no public source.
 */
export const defaultEsploraUrls: Record<BtcNetwork, string[]> = {
  mainnet: ['https://mempool.space/api', 'https://blockstream.info/api'],
  testnet: ['https://mempool.space/testnet/api', 'https://blockstream.info/testnet/api'],
  signet: ['https://mempool.space/signet/api'],
  regtest: [],
};
