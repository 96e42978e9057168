import { chainFacts, type EvmChainName } from '../../shared/index.ts';
import type { TokenSymbol } from './tokens.ts';

/** How a settled Transfer's block is judged safe: by the count alone, or by the count and the node's `finalized` tag. */
export type EvmFinality = 'tag' | 'count';

/**
 * One EVM chain as the EVM module serves it: everything that differs between Base, Ethereum and
 * the others, written in the chain's own file (core/evm/chains/). Sources for the confirmation
 * defaults: docs/chains.md, "Confirmation rules".
 */
export interface EvmChainSpec {
  chain: EvmChainName;
  /** Prefix of the chain's settings: `${prefix}_RPC_URL`, `${prefix}_CONFIRMATIONS`, `MERCHANT_${prefix}_XPUB`, … (evmPrefixOf). */
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

/** The prefix of an EVM chain's settings (BASE_RPC_URL, ETH_RPC_URL, …): the contract's, which its descriptions name. */
export const evmPrefixOf = (chain: EvmChainName): string => chainFacts[chain].settingsPrefix;
