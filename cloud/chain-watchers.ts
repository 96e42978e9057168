import type { Kysely } from 'kysely';
import type { StatusFeed } from '../core/invoices/status-feed.ts';
import { createRpcSource } from '../core/base/rpc.ts';
import { createSharedRpcSource } from '../core/base/shared-rpc-source.ts';
import { createBaseWatcher, type FixedAddress } from '../core/base/watcher.ts';
import { chainBaseScope } from '../core/base/base-transfer.repository.ts';
import { evmSpecOf } from '../core/base/evm-chains.ts';
import { receiveMethodsOf } from './receive-methods.ts';
import type { BtcWatching } from '../core/btc/chain-source-factory.ts';
import type { Fetch } from '../core/btc/chain-source.ts';
import { createEsploraSource } from '../core/btc/esplora-source.ts';
import { createMempoolSocket, mempoolSocketUrl } from '../core/btc/mempool-socket.ts';
import { createSharedChainSource } from '../core/btc/shared-chain-source.ts';
import { createBtcWatcher } from '../core/btc/watcher.ts';
import { networksScope } from '../core/btc/btc-payment.repository.ts';
import { watchObserver, type ServiceMetrics } from '../core/metrics.ts';
import type { Clock } from '../core/clock.ts';
import type { CloudTables } from './cloud.tables.ts';
import type { Logger } from '../core/log.ts';
import type { SourceBudgets } from '../core/net/source-budgets.ts';
import type { WatcherProblem } from '../core/watch-progress.ts';
import type { CloudConfig } from './cloud-config.ts';

interface Running {
  stop(): Promise<void>;
  problem(): WatcherProblem | null;
  status(): object;
}

/**
 * The elected instance's chain watching: one Bitcoin watcher per Esplora URL and one watcher per EVM
 * chain, each for every merchant's invoices (the listener's watchers, with merchants as a column of the
 * invoices they index rather than one watcher each). A merchant who signs up needs nothing
 * started: its invoices join the watchers' index at their next pass. Confirmations and events go
 * through the same code as the listener's, each payment credited to its invoice's merchant.
 *
 * Memory and idle work grow with open invoices, not merchants: no timer, socket or closure per
 * merchant. A merchant's bad data (an invoice address that cannot be read, a key that does not
 * parse) is left out of the index for that merchant alone and never stops the others.
 * With a third-party Esplora (address-scoped watching) the watcher of a URL uses one
 * mempool.space WebSocket, which tracks the newest open invoices up to its limit, merchants in turns.
 */
export function createCloudChainWatchers(deps: {
  db: Kysely<CloudTables>;
  /** Where the invoices' status changes are published (every instance hears them). */
  feed: StatusFeed;
  clock: Clock;
  logger: Logger;
  config: CloudConfig;
  fetch: Fetch;
  /** Request budgets per source URL (made by the caller, so its /health can show them). */
  budgets: SourceBudgets;
  /** How long the merchants' fixed EVM addresses are reused before they are read again (one query for all). */
  refreshMs?: number;
  btcPollIntervalMs?: number;
  basePollIntervalMs?: number;
  /** The watchers report their steps, passes and lag to these (labelled by chain only). */
  metrics?: ServiceMetrics;
}) {
  const btcObserver = deps.metrics && watchObserver(deps.metrics, 'btc');
  const running = new Map<string, Running>();
  let active = false;
  const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
  // Budgets outlive a term as leader, so a new term cannot reopen a Retry-After window.
  const budgets = deps.budgets;
  const btc = deps.config.btc;

  function btcWatching(url: string): BtcWatching {
    const esplora = createEsploraSource({ baseUrl: url, fetch: budgets.fetchFor(deps.fetch, 'btc', url, btc.esploraSelfHosted) });
    const source = createSharedChainSource(esplora, { clock: deps.clock });
    if (btc.esploraSelfHosted) return { source, mode: 'full' };
    const wsUrl = btc.wsUrl === 'off' ? null : (btc.wsUrl ?? mempoolSocketUrl(url));
    const socket = wsUrl ? createMempoolSocket({ url: wsUrl, clock: deps.clock, logger: deps.logger, maxAddresses: btc.wsMaxAddresses, maxConnections: btc.wsMaxConnections }) : null;
    return { source, mode: 'address', addresses: esplora, socket };
  }

  /**
   * One Bitcoin watcher per Esplora URL, for every merchant's invoices of the networks it serves,
   * started once the first invoice of those networks exists: an instance whose merchants take no
   * Bitcoin never asks a public Esplora anything. One query per URL not yet watched, on one timer.
   */
  async function startBtcWatchers() {
    const networksByUrl = new Map<string, string[]>();
    for (const [network, url] of Object.entries(btc.esploraUrls)) networksByUrl.set(url, [...(networksByUrl.get(url) ?? []), network]);
    for (const [url, networks] of networksByUrl) {
      const scope = networksScope(networks);
      const key = `btc:${scope.networks!.join(',')}`;
      if (running.has(key)) continue;
      const invoice = await deps.db.selectFrom('invoices').select('invoice_id').where('chain', '=', 'btc').where('network', 'in', scope.networks!).limit(1).executeTakeFirst();
      // Stopped while the database was read: no watcher may start after stop().
      if (!invoice || !active) continue;
      const watcher = createBtcWatcher({
        observer: btcObserver,
        db: deps.db,
        feed: deps.feed,
        scope,
        ...btcWatching(url),
        clock: deps.clock,
        logger: deps.logger.child({ watch_scope: scope.key }),
        pollIntervalMs: deps.btcPollIntervalMs,
      });
      watcher.start();
      running.set(key, watcher);
    }
    // True while some URL still has no watcher: look again later.
    return [...running.keys()].filter((key) => key.startsWith('btc:')).length < networksByUrl.size;
  }

  let timer: NodeJS.Timeout | undefined;
  let checking: Promise<void> = Promise.resolve();
  const checkLoop = async () => {
    if (!active) return;
    checking = startBtcWatchers()
      .then((more) => {
        if (more && active) timer = setTimeout(checkLoop, deps.refreshMs ?? 30_000);
      })
      .catch((error) => {
        deps.logger.warn('could not look for Bitcoin invoices to watch; trying again', { error: String(error) });
        if (active) timer = setTimeout(checkLoop, deps.refreshMs ?? 30_000);
      });
    await checking;
  };

  /** Every merchant's fixed address on each EVM chain, read in one query for all chains and reused for `refreshMs`. */
  const fixedAddressesByChain = (() => {
    let cached: { at: number; byChain: Map<string, FixedAddress[]> } | null = null;
    return async (chain: string): Promise<FixedAddress[]> => {
      if (!cached || deps.clock.now() - cached.at >= (deps.refreshMs ?? 30_000)) {
        const rows = await deps.db.selectFrom('cloud_merchants').select(['merchant_id', 'btc_xpub', 'base_xpub', 'base_address', 'receive_methods']).execute();
        const byChain = new Map<string, FixedAddress[]>();
        for (const row of rows) {
          for (const method of receiveMethodsOf(row)) {
            if (method.address) byChain.set(method.chain, [...(byChain.get(method.chain) ?? []), { merchantId: row.merchant_id, address: method.address }]);
          }
        }
        cached = { at: deps.clock.now(), byChain };
      }
      return cached.byChain.get(chain) ?? [];
    };
  })();

  /** One watcher per EVM chain the platform serves, for every merchant's invoices and fixed addresses on it. */
  function startEvmWatchers() {
    for (const evm of deps.config.evm) {
      const watcher = createBaseWatcher({
        observer: deps.metrics && watchObserver(deps.metrics, evm.chain),
        db: deps.db,
        feed: deps.feed,
        clock: deps.clock,
        logger: deps.logger.child({ chain: evm.chain }),
        scope: chainBaseScope(evm.chain, evm.chainId),
        base: { ...evm, fixedAddress: null },
        fixedAddresses: () => fixedAddressesByChain(evm.chain),
        sources: evm.rpcUrls.map((url) =>
          createSharedRpcSource(
            createRpcSource(url, { fetch: budgets.fetchFor(deps.fetch, evm.chain, url, false, evmSpecOf(evm.chain).sourceBudget), sleep, logger: deps.logger }),
            { clock: deps.clock },
          ),
        ),
        pollIntervalMs: deps.basePollIntervalMs,
      });
      watcher.start();
      running.set(`${evm.chain}:${evm.chainId}`, watcher);
    }
  }

  return {
    get count() {
      return running.size;
    },
    /** Each watcher's status and progress by `chain:networks` (never a merchant's key), for tests' failure messages. */
    states(): Record<string, object> {
      return Object.fromEntries([...running].map(([key, watcher]) => [key, watcher.status()]));
    },
    /**
     * One problem per chain and kind, for the public /api/v1/health: how many of the chain's
     * watchers have it (never which merchants), the first one's reason, and the earliest since.
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
          reason: `${same.length} of ${watchers} ${component} watchers (all merchants); first: ${same[0].reason}`,
          since: same.map((p) => p.since).sort()[0],
        };
      });
    },
    start() {
      if (active) return;
      active = true;
      startEvmWatchers();
      void checkLoop();
    },
    async stop() {
      active = false;
      clearTimeout(timer);
      await checking;
      const all = [...running.values()];
      running.clear();
      // A later term as leader starts from fresh sources, answers and sockets.
      await Promise.all(all.map((w) => w.stop()));
    },
  };
}
