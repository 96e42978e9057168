import { chainFacts, type EvmChainName } from '../../shared/index.ts';
import type { TokenSymbol } from './tokens.ts';

/**
 * One EVM chain as the EVM module serves it: everything that differs between Base, Ethereum and
 * the others is here, so adding an EVM chain is one entry (plus its name in shared/chains.ts).
 * Sources for the confirmation defaults: docs/chains.md, "Confirmation rules".
 */
/** How a settled Transfer's block is judged safe: by the count alone, or by the count and the node's `finalized` tag. */
export type EvmFinality = 'tag' | 'count';

export interface EvmChainSpec {
  chain: EvmChainName;
  /** Prefix of the chain's settings (`${prefix}_RPC_URL`, `MERCHANT_${prefix}_XPUB`, …): the contract's, which its descriptions name. */
  envPrefix: string;
  mainnetChainId: number;
  /** Blocks a Transfer needs (its own block counts as one) before it settles an invoice. */
  defaultConfirmations: number;
  /**
   * `tag`: a Transfer also waits for its block to be at or below the node's `finalized` block, so a
   * finality stall holds payments back instead of letting the count alone settle them.
   */
  defaultFinality: EvmFinality;
  /** The time between blocks: the watcher reads the chain once a block is due, not sooner. */
  blockTimeMs: number;
  /** Canonical 6-decimal stablecoin contracts by chain id; other chains need `symbol:0xcontract`. */
  knownTokens: Readonly<Record<number, Partial<Record<TokenSymbol, string>>>>;
  explorers: Readonly<Record<number, string>>;
  /** Request budget per public RPC URL (requests per second, burst). */
  sourceBudget: { ratePerSec: number; burst: number };
  /** How long the default confirmations take, for the payer ("about a minute"). */
  confirmationTime: string;
  /** The chain id of the sandbox's local node standing in for the chain: never a real chain's. */
  sandboxChainId: number;
}

export const evmChainSpecs: readonly EvmChainSpec[] = [
  {
    chain: 'base',
    envPrefix: chainFacts.base.settingsPrefix,
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
  },
  {
    chain: 'eth',
    envPrefix: chainFacts.eth.settingsPrefix,
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
  },
  {
    chain: 'polygon',
    envPrefix: chainFacts.polygon.settingsPrefix,
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
  },
];

export function evmSpecOf(chain: string): EvmChainSpec {
  const spec = evmChainSpecs.find((candidate) => candidate.chain === chain);
  if (!spec) throw new Error(`${chain} is not an EVM chain`);
  return spec;
}
