import { defineEvmChain } from '../evm-definition.ts';

/** Base: its chain id, stablecoins, confirmations and pace; the rest is the EVM family's. */
export const base = defineEvmChain({
  chain: 'base',
  mainnetChainId: 8453,
  // About 24 s at Base's 2 s block time, well past the depth of reorgs seen on Base.
  defaultConfirmations: 12,
  // An L2 whose `finalized` follows L1 batches (15+ minutes): the count is the rule.
  defaultFinality: 'count',
  blockTimeMs: 2_000,
  knownTokens: {
    8453: { usdc: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', usdt: '0xfde4C96c8593536E31F229EA8f37b2ADa2699bb2' },
    84532: { usdc: '0x036CbD53842c5426634e7929541eC2318f3dCF7e' },
  },
  explorers: { 8453: 'https://basescan.org', 84532: 'https://sepolia.basescan.org' },
  sourceBudget: { ratePerSec: 3, burst: 12 },
  confirmationTime: 'about a minute',
  // anvil's own default.
  sandboxChainId: 31337,
});
