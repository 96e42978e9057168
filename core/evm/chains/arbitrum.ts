import { defineEvmChain } from '../evm-definition.ts';

/** Arbitrum One: its chain id, stablecoins, confirmations and pace; the rest is the EVM family's. */
export const arbitrum = defineEvmChain({
  chain: 'arbitrum',
  mainnetChainId: 42161,
  // About 25 s of ~250 ms blocks: Base's margin in time. The sequencer's order does not reorg
  // unless the sequencer itself fails; the count is a margin for a node that served a stale tip.
  defaultConfirmations: 100,
  // `finalized` follows the L1 batches (15+ minutes), as on Base: the count is the rule.
  defaultFinality: 'count',
  // Blocks come every ~250 ms: reading once a second takes four per pass and keeps within the request budget.
  blockTimeMs: 1_000,
  knownTokens: {
    // Native USDC (Circle), not the bridged USDC.e.
    42161: { usdc: '0xaf88d065e77c8cC2239327C5EDb3A432268e5831', usdt: '0xFd086bC7CD5C481DCC9C85ebE478A1C0b69FCbb9' },
  },
  explorers: { 42161: 'https://arbiscan.io', 421614: 'https://sepolia.arbiscan.io' },
  sourceBudget: { ratePerSec: 3, burst: 12 },
  confirmationTime: 'about half a minute',
  sandboxChainId: 31340,
});
