import { defineEvmChain } from '../evm-definition.ts';

/** Polygon PoS: its chain id, stablecoins, confirmations and pace; the rest is the EVM family's. */
export const polygon = defineEvmChain({
  chain: 'polygon',
  mainnetChainId: 137,
  // About a minute at ~2 s blocks: past the 32-block reorgs Polygon PoS had before milestones,
  // and well past the milestone that now finalizes a block within seconds.
  defaultConfirmations: 32,
  // Milestone voting stalled 10-15 minutes in September 2025 while blocks kept coming.
  defaultFinality: 'tag',
  blockTimeMs: 2_000,
  knownTokens: {
    // Native USDC (Circle), not the bridged USDC.e.
    137: { usdc: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359', usdt: '0xc2132D05D31c914a87C6611C10748AEb04B58e8F' },
  },
  explorers: { 137: 'https://polygonscan.com', 80002: 'https://amoy.polygonscan.com' },
  sourceBudget: { ratePerSec: 3, burst: 12 },
  confirmationTime: 'about a minute',
  sandboxChainId: 31339,
});
