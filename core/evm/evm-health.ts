import type * as z from 'zod';
import type { BaseHealth, ChainHealth } from '../../shared/health.ts';
import { chainFacts, type EvmChainName } from '../../shared/index.ts';
import { evmSettingNamesOf } from './evm-config.ts';
import { evmPrefixOf } from './evm-chain-spec.ts';
import type { EvmWatcherStatus } from './watcher.ts';

/**
 * The top-level chain fields of /health when Base is the only chain watched: they describe one
 * chain, never a mix (block heights of two chains cannot be added or compared).
 */
export function evmChainStatus(status: EvmWatcherStatus) {
  return {
    ws_connected: false,
    subscribed_count: status.watched_addresses,
    last_event_at: status.last_tick_at,
    last_block_height: status.last_block_height,
  };
}

/** One EVM chain's watcher for /health (`base`, `evm_chains`); the warnings name the chain's own settings. */
export function evmHealth(status: EvmWatcherStatus, chain: EvmChainName): z.infer<typeof BaseHealth> {
  const { rpcUrl, minSources } = evmSettingNamesOf({ envPrefix: evmPrefixOf(chain) });
  let warning: string | null = null;
  const [disagreeing] = status.disagreeing_sources;
  const [refused] = status.refused_sources;
  if (refused) {
    warning = refused.reason;
  } else if (disagreeing) {
    warning = `RPC sources disagree: ${disagreeing.source} ${disagreeing.reason}; nothing one source alone reports is counted`;
  } else if (!status.fixed_address_confirming) {
    warning = `single RPC source: fixed-address invoices stay pending until a second independent ${rpcUrl} is added`;
  } else if (status.sources_up === 0 && status.last_error !== null) {
    warning = `no ${chainFacts[chain].name} RPC source answers; the watcher catches up when one returns`;
  } else if (status.last_error) {
    warning = `last poll failed: ${status.last_error}`;
  } else if (status.min_sources === 1) {
    warning = `${minSources}=1: payments are confirmed on one RPC source's word, trusted as your own node; list a second independent ${rpcUrl} to have sources verify each other`;
  }
  return {
    rpc_sources: status.sources,
    rpc_sources_up: status.sources_up,
    fixed_address_confirming: status.fixed_address_confirming,
    warning,
    last_block_height: status.last_block_height,
    head_block_height: status.head_block_height,
    watched_addresses: status.watched_addresses,
    awaiting_second_source: status.awaiting_second_source,
    min_sources: status.min_sources,
    disagreeing_sources: status.disagreeing_sources,
    progress: status.progress,
  };
}

/** One EVM chain's entry of /health `chains`. */
export function evmChainHealth(status: EvmWatcherStatus, chain: EvmChainName): Omit<ChainHealth, 'family'> {
  return {
    watched_addresses: status.watched_addresses,
    last_event_at: status.last_tick_at,
    last_block_height: status.last_block_height,
    progress: status.progress,
    evm: evmHealth(status, chain),
  };
}
