import type { Kysely } from 'kysely';
import type { BtcNetwork } from '../../shared/index.ts';
import type { Clock } from '../clock.ts';
import type { Logger } from '../log.ts';
import type { SourceBudgets } from '../net/source-budgets.ts';
import type { CoreTables } from '../schema.ts';
import { createBitcoinCoreSource } from './bitcoin-core-source.ts';
import type { Fetch } from '../net/fetch.ts';
import { createMempoolSocket } from './mempool-socket.ts';
import { createVerifiedEsplora } from './verified-esplora.ts';
import type { BtcWatcherDeps } from './watcher.ts';

export type BtcWatching = Pick<BtcWatcherDeps, 'source' | 'mode' | 'addresses' | 'socket' | 'headers'>;

/** Where the listener's Bitcoin data comes from. */
export interface BtcSourceOptions {
  /** The merchant's own Bitcoin Core. */
  rpcUrl: string | null;
  /** Esplora APIs (BTC_ESPLORA_URL, comma-separated); empty: none. */
  esploraUrls: string[];
  /** The Esplora is the merchant's own, so the whole mempool is scanned. */
  esploraSelfHosted: boolean;
  /** mempool.space WebSocket for address-scoped watching; null: poll the addresses only. */
  wsUrl: string | null;
  wsMaxAddresses: number;
  wsMaxConnections: number;
}

/**
 * How the listener watches Bitcoin. BTC_RPC_URL (the merchant's own node) wins over Esplora, is
 * trusted as the merchant's own, and scans the whole mempool, as does an Esplora declared
 * self-hosted; a third-party Esplora is asked only about the open invoices' addresses, live over
 * its WebSocket where it has one. Every Esplora block is checked against the header chain verified
 * from the release's checkpoint. Requests go through the budget of the chosen URL (an own source
 * gets the own ceiling). Null when no source is known (regtest without a URL).
 */
export function btcWatchingFor(
  btc: BtcSourceOptions,
  deps: {
    network: BtcNetwork;
    fetch: Fetch;
    budgets: SourceBudgets;
    db: Kysely<CoreTables>;
    clock: Clock;
    logger: Logger;
    onRejected?(source: string, reason: string): void;
  },
): BtcWatching | null {
  if (btc.rpcUrl) return { source: createBitcoinCoreSource({ url: btc.rpcUrl, fetch: deps.budgets.fetchFor(deps.fetch, 'btc', btc.rpcUrl, true) }), mode: 'full' };
  if (!btc.esploraUrls.length) return null;
  const { source, headers, first } = createVerifiedEsplora({
    network: deps.network,
    urls: btc.esploraUrls,
    fetchFor: (url) => deps.budgets.fetchFor(deps.fetch, 'btc', url, btc.esploraSelfHosted),
    sprintFor: (url) => deps.budgets.sprintFor('btc', url, btc.esploraSelfHosted),
    db: deps.db,
    clock: deps.clock,
    logger: deps.logger,
    onRejected: deps.onRejected,
  });
  if (btc.esploraSelfHosted) return { source, headers, mode: 'full' };
  const socket = btc.wsUrl ? createMempoolSocket({ url: btc.wsUrl, clock: deps.clock, logger: deps.logger, maxAddresses: btc.wsMaxAddresses, maxConnections: btc.wsMaxConnections }) : null;
  return { source, headers, mode: 'address', addresses: first, socket };
}
