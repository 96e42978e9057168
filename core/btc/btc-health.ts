import type { ChainHealth } from '../../shared/index.ts';
import type { BtcWatcherStatus } from './watcher.ts';

/** The Bitcoin watcher's entry of /health `chains`: its top-level `btc_*` fields under their chain-neutral names. */
export function btcChainHealth(status: Omit<BtcWatcherStatus, 'refused_merchants'>): Omit<ChainHealth, 'family'> {
  return {
    watched_addresses: status.subscribed_count,
    last_event_at: status.last_event_at,
    last_block_height: status.last_block_height,
    progress: status.btc_progress,
    bitcoin: {
      source: status.btc_source,
      source_error: status.btc_source_error,
      ws_connected: status.ws_connected,
      ...(status.btc_headers && { headers: status.btc_headers }),
      watch: status.btc_watch,
      ...(status.btc_gap && { gap: status.btc_gap }),
    },
  };
}
