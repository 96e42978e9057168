import type { Clock } from '../clock.ts';
import type { Logger } from '../log.ts';
import type { SourceBudgets } from '../net/source-budgets.ts';
import { createBitcoinCoreSource } from './bitcoin-core-source.ts';
import type { Fetch } from './chain-source.ts';
import { createEsploraSource } from './esplora-source.ts';
import { createMempoolSocket } from './mempool-socket.ts';
import type { BtcWatcherDeps } from './watcher.ts';

export type BtcWatching = Pick<BtcWatcherDeps, 'source' | 'mode' | 'addresses' | 'socket'>;

/** Where the listener's Bitcoin data comes from. */
export interface BtcSourceOptions {
  /** The merchant's own Bitcoin Core. */
  rpcUrl: string | null;
  esploraUrl: string | null;
  /** The Esplora is the merchant's own, so the whole mempool is scanned. */
  esploraSelfHosted: boolean;
  /** mempool.space WebSocket for address-scoped watching; null: poll the addresses only. */
  wsUrl: string | null;
  wsMaxAddresses: number;
  wsMaxConnections: number;
}

/**
 * How the listener watches Bitcoin. BTC_RPC_URL (the merchant's own node) wins over Esplora and
 * scans the whole mempool, as does an Esplora declared self-hosted; a third-party Esplora is asked
 * only about the open invoices' addresses, live over its WebSocket where it has one. Requests go
 * through the budget of the chosen URL (an own source gets the own ceiling). Null when no source
 * is known (regtest without a URL).
 */
export function btcWatchingFor(
  btc: BtcSourceOptions,
  deps: { fetch: Fetch; budgets: SourceBudgets; clock: Clock; logger: Logger },
): BtcWatching | null {
  if (btc.rpcUrl) return { source: createBitcoinCoreSource({ url: btc.rpcUrl, fetch: deps.budgets.fetchFor(deps.fetch, 'btc', btc.rpcUrl, true) }), mode: 'full' };
  if (!btc.esploraUrl) return null;
  const esplora = createEsploraSource({ baseUrl: btc.esploraUrl, fetch: deps.budgets.fetchFor(deps.fetch, 'btc', btc.esploraUrl, btc.esploraSelfHosted) });
  if (btc.esploraSelfHosted) return { source: esplora, mode: 'full' };
  const socket = btc.wsUrl ? createMempoolSocket({ url: btc.wsUrl, clock: deps.clock, logger: deps.logger, maxAddresses: btc.wsMaxAddresses, maxConnections: btc.wsMaxConnections }) : null;
  return { source: esplora, mode: 'address', addresses: esplora, socket };
}
