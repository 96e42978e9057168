import type { Clock } from '../clock.ts';
import type { Config } from '../../listener/config.ts';
import type { Logger } from '../log.ts';
import { createBitcoinCoreSource } from './bitcoin-core-source.ts';
import type { Fetch } from './chain-source.ts';
import { createEsploraSource } from './esplora-source.ts';
import { createMempoolSocket } from './mempool-socket.ts';
import type { BtcWatcherDeps } from './watcher.ts';

export type BtcWatching = Pick<BtcWatcherDeps, 'source' | 'mode' | 'addresses' | 'socket'>;

/**
 * How the listener watches Bitcoin. BTC_RPC_URL (the merchant's own node) wins over Esplora and
 * scans the whole mempool, as does an Esplora declared self-hosted; a third-party Esplora is asked
 * only about the open invoices' addresses, live over its WebSocket where it has one. Null when no
 * source is known (regtest without a URL).
 */
export function btcWatchingFor(btc: NonNullable<Config['btc']>, deps: { fetch: Fetch; clock: Clock; logger: Logger }): BtcWatching | null {
  if (btc.rpcUrl) return { source: createBitcoinCoreSource({ url: btc.rpcUrl, fetch: deps.fetch }), mode: 'full' };
  if (!btc.esploraUrl) return null;
  const esplora = createEsploraSource({ baseUrl: btc.esploraUrl, fetch: deps.fetch });
  if (btc.esploraSelfHosted) return { source: esplora, mode: 'full' };
  const socket = btc.wsUrl ? createMempoolSocket({ url: btc.wsUrl, clock: deps.clock, logger: deps.logger, maxAddresses: btc.wsMaxAddresses, maxConnections: btc.wsMaxConnections }) : null;
  return { source: esplora, mode: 'address', addresses: esplora, socket };
}
