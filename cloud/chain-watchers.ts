import type { Kysely } from 'kysely';
import type { StatusFeed } from '../core/invoices/status-feed.ts';
import type { ChainTunings, MerchantAddress, PlatformChainParts, RunningPlatformWatch } from '../core/chain-runtime.ts';
import { fixedAddressesByChain } from './merchants/receive-methods.ts';
import type { Fetch } from '../core/net/fetch.ts';
import type { ServiceMetrics } from '../core/metrics.ts';
import type { Clock } from '../core/clock.ts';
import type { CloudTables } from './storage/cloud.tables.ts';
import type { Logger } from '../core/log.ts';
import type { SourceBudgets } from '../core/net/source-budgets.ts';
import type { WatcherProblem } from '../core/watch-progress.ts';
import type { CloudConfig } from './cloud-config.ts';

/**
 * The elected instance's chain watching: one Bitcoin watcher per Esplora URL and one watcher per EVM
 * chain, each for every merchant's invoices (the listener's watchers, with merchants as a column of the
 * invoices they index rather than one watcher each), as the chains' platform runtimes describe them.
 * A merchant who signs up needs nothing started: its invoices join the watchers' index at their
 * next pass. Confirmations and events go through the same code as the listener's, each payment
 * credited to its invoice's merchant.
 *
 * Memory and idle work grow with open invoices, not merchants: no timer, socket or closure per
 * merchant. A merchant's bad data (an invoice address that cannot be read, a key that does not
 * parse) is left out of the index for that merchant alone and never stops the others.
 */
export interface CloudChainWatchersDeps {
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
  /** Watcher tuning by chain or family (poll intervals), for tests and the sandbox. */
  tuning?: ChainTunings;
  /** The watchers report their steps, passes and lag to these (labelled by chain only). */
  metrics?: ServiceMetrics;
}

/** Every merchant's fixed address on each chain, read in one query for all chains and reused for `refreshMs`. */
function cachedFixedAddresses(deps: CloudChainWatchersDeps, refreshMs: number) {
  let cached: { at: number; byChain: Map<string, MerchantAddress[]> } | null = null;
  return async (chain: string): Promise<MerchantAddress[]> => {
    if (!cached || deps.clock.now() - cached.at >= refreshMs) cached = { at: deps.clock.now(), byChain: await fixedAddressesByChain(deps.db) };
    return cached.byChain.get(chain) ?? [];
  };
}

/** One problem per chain and kind: how many of the chain's watchers have it (never which merchants), the first one's reason, the earliest since. */
function groupedProblems(running: ReadonlyMap<string, RunningPlatformWatch>): WatcherProblem[] {
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
}

export function createCloudChainWatchers(deps: CloudChainWatchersDeps) {
  const running = new Map<string, RunningPlatformWatch>();
  let active = false;
  const refreshMs = deps.refreshMs ?? 30_000;
  const fixedAddresses = cachedFixedAddresses(deps, refreshMs);

  const parts: PlatformChainParts = {
    db: deps.db,
    feed: deps.feed,
    clock: deps.clock,
    logger: deps.logger,
    metrics: deps.metrics,
    // Budgets outlive a term as leader, so a new term cannot reopen a Retry-After window.
    budgets: deps.budgets,
    fetch: deps.fetch,
    fixedAddresses,
    tuning: deps.tuning ?? {},
  };
  const watches = deps.config.chains.flatMap(({ definition, settings }) => definition.platform.watches(settings, parts));
  const startedWithThePlatform = watches.filter((watch) => watch.needed === null);
  const startedWhenNeeded = watches.filter((watch) => watch.needed !== null);

  /**
   * Starts the watchers that wait for something to watch and now have it; one query per watcher
   * not yet started, on one timer. True while some watcher is still waiting: look again later.
   */
  async function startNeededWatchers() {
    for (const watch of startedWhenNeeded) {
      if (running.has(watch.key)) continue;
      const needed = await watch.needed!();
      // Stopped while the database was read: no watcher may start after stop().
      if (!needed || !active) continue;
      running.set(watch.key, watch.start());
    }
    return startedWhenNeeded.some((watch) => !running.has(watch.key));
  }

  let timer: NodeJS.Timeout | undefined;
  let checking: Promise<void> = Promise.resolve();
  const checkLoop = async () => {
    if (!active) return;
    checking = startNeededWatchers()
      .then((more) => {
        if (more && active) timer = setTimeout(checkLoop, refreshMs);
      })
      .catch((error) => {
        deps.logger.warn('could not look for invoices to watch; trying again', { error: String(error) });
        if (active) timer = setTimeout(checkLoop, refreshMs);
      });
    await checking;
  };

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
    problems: (): WatcherProblem[] => groupedProblems(running),
    start() {
      if (active) return;
      active = true;
      for (const watch of startedWithThePlatform) running.set(watch.key, watch.start());
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
