import type { Kysely } from 'kysely';
import { createRpcSource } from '../base/rpc.ts';
import { createBaseWatcher } from '../base/watcher.ts';
import { parseAccountKey } from '../btc/account-key.ts';
import type { Fetch } from '../btc/chain-source.ts';
import { createEsploraSource } from '../btc/esplora-source.ts';
import { createBtcWatcher } from '../btc/watcher.ts';
import type { Clock } from '../clock.ts';
import type { Tables } from '../db/tables.ts';
import type { Logger } from '../log.ts';
import type { CloudConfig } from './cloud-config.ts';
import type { createMerchantReceivers } from './merchant-context.ts';

interface Running {
  stop(): Promise<void>;
}

/**
 * The elected instance's chain watching: one Bitcoin and one Base watcher per merchant that has
 * that chain (the listener's watchers, scoped by merchant id), with merchants who signed up since
 * picked up every `refreshMs`. Confirmations and events go through the same code as the listener's.
 */
export function createCloudChainWatchers(deps: {
  db: Kysely<Tables>;
  clock: Clock;
  logger: Logger;
  config: CloudConfig;
  receivers: ReturnType<typeof createMerchantReceivers>;
  fetch: Fetch;
  refreshMs?: number;
  btcPollIntervalMs?: number;
}) {
  const running = new Map<string, Running>();
  let timer: NodeJS.Timeout | undefined;
  let active = false;

  async function refresh() {
    const merchants = await deps.db.selectFrom('cloud_merchants').selectAll().execute();
    for (const merchant of merchants) {
      const log = deps.logger.child({ merchant_id: merchant.merchant_id });
      const btcKey = `btc:${merchant.merchant_id}:${merchant.btc_xpub}`;
      if (merchant.btc_xpub && !running.has(btcKey)) {
        const accountKey = parseAccountKey(merchant.btc_xpub);
        const esplora = deps.config.btc.esploraUrls[accountKey.network];
        if (esplora) {
          const watcher = createBtcWatcher({
            db: deps.db,
            merchantId: merchant.merchant_id,
            keyId: accountKey.keyId,
            source: createEsploraSource({ baseUrl: esplora, fetch: deps.fetch }),
            clock: deps.clock,
            logger: log,
            pollIntervalMs: deps.btcPollIntervalMs,
          });
          watcher.start();
          running.set(btcKey, watcher);
        }
      }
      const baseKey = `base:${merchant.merchant_id}:${merchant.base_xpub}:${merchant.base_address}`;
      const base = deps.receivers.receivers(merchant).base;
      if (base && !running.has(baseKey)) {
        const watcher = createBaseWatcher({
          db: deps.db,
          clock: deps.clock,
          logger: log.child({ chain: 'base' }),
          merchantId: merchant.merchant_id,
          base: base.base,
          sources: base.base.rpcUrls.map((url) => createRpcSource(url, { fetch: deps.fetch, sleep: (ms) => new Promise((r) => setTimeout(r, ms)) })),
        });
        watcher.start();
        running.set(baseKey, watcher);
      }
    }
  }

  const loop = async () => {
    if (!active) return;
    await refresh().catch((error) => deps.logger.warn('chain watcher refresh failed', { error: String(error) }));
    if (active) timer = setTimeout(loop, deps.refreshMs ?? 30_000);
  };

  return {
    get count() {
      return running.size;
    },
    start() {
      if (active) return;
      active = true;
      void loop();
    },
    async stop() {
      active = false;
      clearTimeout(timer);
      const all = [...running.values()];
      running.clear();
      await Promise.all(all.map((w) => w.stop()));
    },
  };
}
