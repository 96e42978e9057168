import { defineEvmChain } from '../evm-definition.ts';

/** Ethereum: its chain id, stablecoins, confirmations and pace; the rest is the EVM family's. */
export const ethereum = defineEvmChain({
  chain: 'eth',
  mainnetChainId: 1,
  // Two epochs of 32 twelve-second slots (about 12.8 minutes): where a block is normally finalized.
  defaultConfirmations: 64,
  // The count does not notice a finality stall (about an hour in May 2023).
  defaultFinality: 'tag',
  // One block per 12-second slot, never sooner (a missed slot makes the gap longer).
  blockTimeMs: 12_000,
  knownTokens: {
    1: { usdc: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48', usdt: '0xdAC17F958D2ee523a2206206994597C13D831ec7' },
  },
  explorers: { 1: 'https://etherscan.io', 11155111: 'https://sepolia.etherscan.io' },
  // Blocks come every 12 s: a tenth of Base's reads keep up.
  sourceBudget: { ratePerSec: 1, burst: 6 },
  confirmationTime: 'about 13 minutes',
  sandboxChainId: 31338,
});
