import type { Kysely } from 'kysely';
import type { StatusFeed } from '../core/invoices/status-feed.ts';
import { createRpcSource, type RpcSource } from '../core/base/rpc.ts';
import { createSharedRpcSource } from '../core/base/shared-rpc-source.ts';
import { createBaseWatcher } from '../core/base/watcher.ts';
import type { BtcWatching } from '../core/btc/chain-source-factory.ts';
import type { Fetch } from '../core/btc/chain-source.ts';
import { createEsploraSource } from '../core/btc/esplora-source.ts';
import { createMempoolSocket, mempoolSocketUrl } from '../core/btc/mempool-socket.ts';
import { createSharedChainSource } from '../core/btc/shared-chain-source.ts';
import { createBtcWatcher } from '../core/btc/watcher.ts';
import { watchObserver, type ServiceMetrics } from '../core/metrics.ts';
import type { Clock } from '../core/clock.ts';
import type { CloudTables } from './cloud.tables.ts';
import type { Logger } from '../core/log.ts';
import type { SourceBudgets } from '../core/net/source-budgets.ts';
import type { WatcherProblem } from '../core/watch-progress.ts';
import type { CloudConfig } from './cloud-config.ts';
import { merchantBtcKey, type createMerchantReceivers } from './merchant-context.ts';

interface Running {
  stop(): Promise<void>;
  problem(): WatcherProblem | null;
  status(): object;
}

/**
 * The elected instance's chain watching: one Bitcoin and one Base watcher per merchant that has
 * that chain (the listener's watchers, scoped by merchant id), with merchants who signed up since
 * picked up every `refreshMs`. Confirmations and events go through the same code as the listener's.
 *
 * The watchers of one chain share one source per URL, which downloads each block and mempool
 * transaction once and asks the tip (Base: head and headers) at most once per short window, so
 * the chain traffic does not grow with the number of merchants. Each watcher keeps its own
 * progress and reorg handling, so one merchant's failure or catch-up never holds back another.
 * With a third-party Esplora (address-scoped watching) the watchers of a URL also share one
 * mempool.space WebSocket, which tracks the merchants' newest open invoices in turn up to its limit.
 */
export function createCloudChainWatchers(deps: {
  db: Kysely<CloudTables>;
  /** Where the invoices' status changes are published (every instance hears them). */
  feed: StatusFeed;
  clock: Clock;
  logger: Logger;
  config: CloudConfig;
  receivers: ReturnType<typeof createMerchantReceivers>;
  fetch: Fetch;
  /** Request budgets per source URL (made by the caller, so its /health can show them). */
  budgets: SourceBudgets;
  refreshMs?: number;
  btcPollIntervalMs?: number;
  basePollIntervalMs?: number;
  /** Every merchant's watcher reports its steps, passes and lag to these (labelled by chain only). */
  metrics?: ServiceMetrics;
}) {
  const observers = deps.metrics && { btc: watchObserver(deps.metrics, 'btc') };
  const running = new Map<string, Running>();
  let timer: NodeJS.Timeout | undefined;
  let active = false;
  const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
  // Budgets sit below the shared caches: one per URL for all merchants, and they outlive a term as
  // leader, so a new term cannot reopen a Retry-After window.
  const budgets = deps.budgets;
  const btc = deps.config.btc;
  const btcSources = onePerUrl<BtcWatching>((url) => {
    const esplora = createEsploraSource({ baseUrl: url, fetch: budgets.fetchFor(deps.fetch, 'btc', url, btc.esploraSelfHosted) });
    const source = createSharedChainSource(esplora, { clock: deps.clock });
    if (btc.esploraSelfHosted) return { source, mode: 'full' };
    const wsUrl = btc.wsUrl === 'off' ? null : (btc.wsUrl ?? mempoolSocketUrl(url));
    const socket = wsUrl ? createMempoolSocket({ url: wsUrl, clock: deps.clock, logger: deps.logger, maxAddresses: btc.wsMaxAddresses, maxConnections: btc.wsMaxConnections }) : null;
    return { source, mode: 'address', addresses: esplora, socket };
  });
  const baseSources = onePerUrl<RpcSource>((url) =>
    createSharedRpcSource(
      createRpcSource(url, {
        fetch: budgets.fetchFor(deps.fetch, 'base', url),
        sleep,
        logger: deps.logger,
      }),
      { clock: deps.clock },
    ),
  );

  async function refresh() {
    const merchants = await deps.db.selectFrom('cloud_merchants').selectAll().execute();
    // Stopped while the merchants were read: no watcher may start after stop().
    if (!active) return;
    for (const merchant of merchants) {
      const log = deps.logger.child({ merchant_id: merchant.merchant_id });
      const btcKey = `btc:${merchant.merchant_id}:${merchant.btc_xpub}`;
      if (merchant.btc_xpub && !running.has(btcKey)) {
        const accountKey = merchantBtcKey(deps.config, merchant.btc_xpub);
        const esplora = deps.config.btc.esploraUrls[accountKey.network];
        if (esplora) {
          const watcher = createBtcWatcher({
            observer: observers?.btc,
            db: deps.db,
            feed: deps.feed,
            merchantId: merchant.merchant_id,
            keyId: accountKey.keyId,
            ...btcSources.get(esplora),
            clock: deps.clock,
            logger: log,
            pollIntervalMs: deps.btcPollIntervalMs,
          });
          watcher.start();
          running.set(btcKey, watcher);
        }
      }
      // One watcher per EVM chain the merchant receives on (Base, Ethereum, …).
      for (const evm of deps.receivers.receivers(merchant).evm) {
        const chain = evm.base.chain;
        const evmKey = `${chain}:${merchant.merchant_id}:${merchant.base_xpub}:${merchant.base_address}:${merchant.receive_methods}`;
        if (running.has(evmKey)) continue;
        const watcher = createBaseWatcher({
          observer: deps.metrics && watchObserver(deps.metrics, chain),
          db: deps.db,
          feed: deps.feed,
          clock: deps.clock,
          logger: log.child({ chain }),
          merchantId: merchant.merchant_id,
          base: evm.base,
          sources: evm.base.rpcUrls.map((url) => baseSources.get(url)),
          pollIntervalMs: deps.basePollIntervalMs,
        });
        watcher.start();
        running.set(evmKey, watcher);
      }
    }
  }

  let refreshing: Promise<void> = Promise.resolve();
  const loop = async () => {
    if (!active) return;
    refreshing = refresh().catch((error) => deps.logger.warn('chain watcher refresh failed', { error: String(error) }));
    await refreshing;
    if (active) timer = setTimeout(loop, deps.refreshMs ?? 30_000);
  };

  return {
    get count() {
      return running.size;
    },
    /** Each watcher's status and progress by `chain:merchant_id` (never the key it watches), for tests' failure messages. */
    states(): Record<string, object> {
      return Object.fromEntries([...running].map(([key, watcher]) => [key.split(':').slice(0, 2).join(':'), watcher.status()]));
    },
    /**
     * One problem per chain and kind, for the public /api/v1/health: how many merchant watchers
     * have it (never which merchants), the first one's reason, and the earliest since.
     */
    problems(): WatcherProblem[] {
      const grouped = new Map<string, WatcherProblem[]>();
      for (const watcher of running.values()) {
        const problem = watcher.problem();
        if (problem) grouped.set(`${problem.component}:${problem.kind}`, [...(grouped.get(`${problem.component}:${problem.kind}`) ?? []), problem]);
      }
      return [...grouped.values()].map((same) => {
        const component = same[0].component;
        const watchers = [...running.keys()].filter((key) => key.startsWith(`${component}:`)).length;
        return {
          component,
          kind: same[0].kind,
          reason: `${same.length} of ${watchers} merchant watchers; first: ${same[0].reason}`,
          since: same.map((p) => p.since).sort()[0],
        };
      });
    },
    start() {
      if (active) return;
      active = true;
      void loop();
    },
    async stop() {
      active = false;
      clearTimeout(timer);
      await refreshing;
      const all = [...running.values()];
      running.clear();
      await Promise.all(all.map((w) => w.stop()));
      // A later term as leader starts from fresh answers (and sockets: each closed with its last watcher).
      btcSources.clear();
      baseSources.clear();
    },
  };
}

/** One source per URL, made on first use and shared by every watcher of that URL until cleared. */
function onePerUrl<T>(create: (url: string) => T) {
  const made = new Map<string, T>();
  return {
    get(url: string): T {
      let source = made.get(url);
      if (!source) {
        source = create(url);
        made.set(url, source);
      }
      return source;
    },
    clear: () => made.clear(),
  };
}
