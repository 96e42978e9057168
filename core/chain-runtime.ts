import type { Kysely } from 'kysely';
import { chainFacts, type ChainFacts, type ChainHealth, type ChainName, type Health } from '../shared/index.ts';
import type { Fetch } from './net/fetch.ts';
import type { Clock } from './clock.ts';
import type { ChainReceiver } from './invoices/chain-adapter.ts';
import type { StatusFeed } from './invoices/status-feed.ts';
import type { Logger } from './log.ts';
import type { ServiceMetrics } from './metrics.ts';
import type { SourceBudgets } from './net/source-budgets.ts';
import type { CoreTables } from './schema.ts';
import type { WatcherProblem, WatcherProgress } from './watch-progress.ts';

/** One chain's watcher and receiver tuning, for tests, benchmarks and the sandbox. */
export interface ChainTuning {
  pollIntervalMs?: number;
  /** Fixed-address receivers: the digits of the amount's nonce, and how long a nonce rests after use. */
  nonceDigits?: number;
  quarantineMs?: number;
}

/** Tuning by chain name (`base`) or by family (`evm`, `bitcoin`); a chain's own entry wins over its family's. */
export type ChainTunings = Readonly<Partial<Record<string, ChainTuning>>>;

/** What a chain reads of the tuning. */
export function tuningOf(tuning: ChainTunings | undefined, chain: ChainName, facts: Pick<ChainFacts, 'family'>): ChainTuning {
  return { ...tuning?.[facts.family], ...tuning?.[chain] };
}

/** The engine's parts a listener gives each chain to run for its one merchant. */
export interface ListenerChainParts {
  db: Kysely<CoreTables>;
  feed: StatusFeed;
  clock: Clock;
  logger: Logger;
  metrics: ServiceMetrics;
  budgets: SourceBudgets;
  /** Network access of the chain sources. */
  fetch: Fetch;
  merchantId: string;
  /** The chain's worker (ChainDefinition.startWorker), started on first use. */
  worker(): unknown;
  tuning: ChainTunings;
}

/** What one chain's watcher contributes to the listener's /health. */
export interface ChainHealthReport {
  /** The top-level chain fields (ws_connected, subscribed_count, …) when this chain is the one they describe. */
  headline: Record<string, unknown>;
  /**
   * The chain's own sections of /health. A section two chains both report (`evm_chains`, keyed
   * by chain) collects the entries of all of them.
   */
  sections: Partial<Health>;
  /** The chain's entry of /health `chains`, but for its family, which the chain's facts tell. */
  entry: { chain: ChainName; health: Omit<ChainHealth, 'family'> };
}

/** One chain's watcher, run by the listener for its merchant. */
export interface ChainWatch {
  chain: ChainName;
  start(): void;
  /** Resolves once the watcher and whatever it opened (sockets) have stopped. */
  stop(): Promise<void>;
  /** One pass now, for tests and benchmarks that wait on the chain. */
  syncOnce(): Promise<void>;
  problem(): WatcherProblem | null;
  progress(): WatcherProgress;
  health(): ChainHealthReport;
}

/**
 * What the listener needs of one chain besides its ChainModule: the receiver of its one merchant,
 * its watcher and that watcher's /health report, built from the chain's settings.
 */
export interface ChainRuntime<Settings> {
  /**
   * Readies the database for these settings before the listener serves (an address claimed, a key's
   * older id adopted). Returns why the listener must not start, or null.
   */
  prepare(db: Kysely<CoreTables>, settings: Settings, context: { clock: Clock; logger: Logger }): Promise<string | null>;
  /** Block-explorer base URL the checkout page links to; null when none is known. */
  explorerUrl(settings: Settings): string | null;
  /** What the started-listener log line tells of the chain's network (a network name, a chain id). */
  network(settings: Settings): string | number;
  /** The merchant's receive method on this chain (invoice creation). */
  receiver(settings: Settings, parts: ListenerChainParts): Promise<ChainReceiver>;
  /** The next `count` addresses the merchant's account key will hand out (none without one): no x402 settler key may be one. */
  upcomingReceiveAddresses?(db: Kysely<CoreTables>, settings: Settings, count: number): Promise<string[]>;
  /** The merchant's watcher; null (with a warning logged) when the settings name no source to watch. */
  watch(settings: Settings, parts: ListenerChainParts): ChainWatch | null;
}

/**
 * The chains' reports as the /health fields: `chains`, every chain's entry in one shape; and the
 * older fields, the first chain's headline and every chain's sections.
 */
export function mergeChainHealth(reports: readonly ChainHealthReport[]): { headline: Record<string, unknown>; sections: Partial<Health> } {
  const chains: Partial<Record<ChainName, ChainHealth>> = {};
  const sections: Record<string, unknown> = { chains };
  for (const report of reports) {
    const { chain, health } = report.entry;
    chains[chain] = { family: chainFacts[chain].family, ...health };
    for (const [key, value] of Object.entries(report.sections)) {
      sections[key] = key in sections ? { ...(sections[key] as object), ...(value as object) } : value;
    }
  }
  return { headline: reports[0]?.headline ?? {}, sections: sections as Partial<Health> };
}

/** A merchant's fixed receive address on an EVM chain. */
export interface MerchantAddress {
  merchantId: string;
  address: string;
}

/** The engine's parts a multi-merchant platform (Cloud) gives a chain to watch every merchant's invoices on it. */
export interface PlatformChainParts {
  db: Kysely<CoreTables>;
  feed: StatusFeed;
  clock: Clock;
  logger: Logger;
  /** The watchers report their steps, passes and lag to these (labelled by chain only). */
  metrics?: ServiceMetrics;
  /** Request budgets per source URL; they outlive a term as leader. */
  budgets: SourceBudgets;
  fetch: Fetch;
  /** Every merchant's fixed address on the chain (read for all chains at once, reused a while). */
  fixedAddresses(chain: ChainName): Promise<MerchantAddress[]>;
  tuning: ChainTunings;
}

/** A platform watcher as it runs: the merchants' problems and status are never told apart. */
export interface RunningPlatformWatch {
  stop(): Promise<void>;
  problem(): WatcherProblem | null;
  status(): object;
}

/** One watcher the platform runs for every merchant's invoices of a chain (or of some of its networks). */
export interface PlatformWatch {
  /** `chain:networks` or `chain:chainId`: names the watcher in states and problems, never a merchant. */
  key: string;
  /**
   * Null: started with the platform. Otherwise the watcher starts only once this finds something to
   * watch (Bitcoin: an invoice of its networks), so an unused source is never asked anything.
   */
  needed: (() => Promise<boolean>) | null;
  /** Builds and starts the watcher on fresh sources (a later term as leader gets new ones). */
  start(): RunningPlatformWatch;
}

/** What a multi-merchant platform runs of one chain: its watchers for all merchants, from the platform's settings. */
export interface PlatformChainRuntime<Settings> {
  watches(settings: Settings, parts: PlatformChainParts): PlatformWatch[];
}
