import * as z from 'zod';
import { systemClock, type Clock } from '../clock.ts';
import { budgetedFetch, createRequestBudget, sourceLabel, type PacedFetch, type RequestBudget, type RequestBudgetStats, type SprintLimits } from './request-budget.ts';

export interface BudgetLimits {
  ratePerSec: number;
  burst: number;
}

/**
 * Defaults, per source. mempool.space and Blockstream publish no figure; both answer 429 to bursts
 * of a few dozen requests a second, and the issue's simulator limits at 10 req/s with bursts of
 * 20. One request a second with bursts of 10 stays a tenth of that, a ceiling of 86,400 requests
 * a day (the watchers' steady use is far lower, see docs/chains.md, "Request budgets").
 * Public Base RPCs (mainnet.base.org, free tiers of Alchemy, Infura, QuickNode, CDP) allow tens of
 * requests a second; a 2 s poll needs 1 to 2 a second, so 3 with bursts of 12.
 * Your own node (Bitcoin Core, an Esplora declared yours, any source on loopback) gets a ceiling
 * that only guards against a runaway loop.
 */
export const DEFAULT_BUDGETS = {
  btc: { ratePerSec: 1, burst: 10 },
  base: { ratePerSec: 3, burst: 12 },
  own: { ratePerSec: 50, burst: 100 },
} as const satisfies Record<string, BudgetLimits>;

/**
 * While a Bitcoin header chain makes its first sync (about 2,500 pages of 10 headers from the
 * shipped checkpoint), a public source's budget sprints: half the public limit the simulator
 * applies (10 req/s, bursts of 20), so two sources bring the shipped checkpoint's headers in well
 * under ten minutes. Each 429 halves the sprint, and every Retry-After window is kept.
 */
const HEADER_SYNC_SPRINT: SprintLimits = { ratePerSec: 5, burst: 20 };

/** A chain's name: its sources share the chain's settings and defaults. */
export type SourceKind = string;
/** What the settings say per kind of source; an unset figure takes the default. */
export type BudgetSettings = Partial<Record<SourceKind, Partial<BudgetLimits>>>;

const blank = (value: unknown) => (typeof value === 'string' && value.trim() === '' ? undefined : value);
const rate = z.preprocess(blank, z.coerce.number().positive('must be a number of requests per second above 0').max(10_000).optional());
const burst = z.preprocess(blank, z.coerce.number().int('must be a whole number of requests').min(1).max(100_000).optional());

/** Budget settings, shared by the listener's and Cloud's configuration schemas. */
export const budgetSettingsSchema = {
  BTC_SOURCE_RATE_PER_S: rate,
  BTC_SOURCE_BURST: burst,
  BASE_RPC_RATE_PER_S: rate,
  BASE_RPC_BURST: burst,
};
export const budgetSettingNames = Object.keys(budgetSettingsSchema) as Array<keyof typeof budgetSettingsSchema>;

export function budgetSettingsFrom(raw: { [K in keyof typeof budgetSettingsSchema]?: number }): BudgetSettings {
  return {
    btc: { ratePerSec: raw.BTC_SOURCE_RATE_PER_S, burst: raw.BTC_SOURCE_BURST },
    base: { ratePerSec: raw.BASE_RPC_RATE_PER_S, burst: raw.BASE_RPC_BURST },
  };
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** The limits of one source: the settings, else the default for its kind, or for a source that is yours. */
export function budgetLimitsFor(settings: BudgetSettings, kind: SourceKind, url: string, own = false, defaults?: BudgetLimits): BudgetLimits {
  const fallback = own || LOOPBACK.has(new URL(url).hostname) ? DEFAULT_BUDGETS.own : (defaults ?? DEFAULT_BUDGETS[kind as keyof typeof DEFAULT_BUDGETS] ?? DEFAULT_BUDGETS.btc);
  const set = settings[kind] ?? {};
  return { ratePerSec: set.ratePerSec ?? fallback.ratePerSec, burst: set.burst ?? fallback.burst };
}

/**
 * The budgets of one process, one per source URL, however many watchers (Cloud merchants) read
 * that URL: the public service counts this client as one. Pacing is real time, so the clock is
 * the system's even where tests drive invoice expiry with a hand-moved one.
 */
export function createSourceBudgets(deps: {
  settings: BudgetSettings;
  clock?: Clock;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}) {
  const clock = deps.clock ?? systemClock;
  // Unref: a request waiting out a long Retry-After window must not hold a stopping process open.
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref()));
  const made = new Map<string, RequestBudget>();
  return {
    /** The budget of `url`, made on first use; `own` marks a source that is the merchant's (Bitcoin Core, a self-hosted Esplora). */
    forUrl(kind: SourceKind, url: string, own = false, defaults?: BudgetLimits): RequestBudget {
      let budget = made.get(url);
      if (!budget) {
        const limits = budgetLimitsFor(deps.settings, kind, url, own, defaults);
        budget = createRequestBudget({ label: sourceLabel(url), ...limits, clock, sleep, random: deps.random });
        made.set(url, budget);
      }
      return budget;
    },
    /** A fetch through the budget of `url`; `defaults`: the chain's own, where the settings say nothing. */
    fetchFor(fetch: typeof globalThis.fetch, kind: SourceKind, url: string, own = false, defaults?: BudgetLimits): PacedFetch {
      return budgetedFetch(fetch, this.forUrl(kind, url, own, defaults));
    },
    /** Turns the header-sync sprint of `url`'s budget on or off (never below its usual limits). */
    sprintFor(kind: SourceKind, url: string, own = false): (on: boolean) => void {
      const budget = this.forUrl(kind, url, own);
      return (on) => budget.sprint(on ? HEADER_SYNC_SPRINT : null);
    },
    stats(): RequestBudgetStats[] {
      return [...made.values()].map((budget) => budget.stats());
    },
    /** `stats` with the time spent waiting out windows, for the metrics. */
    metricStats(): Array<RequestBudgetStats & { retry_wait_ms: number }> {
      return [...made.values()].map((budget) => ({ ...budget.stats(), retry_wait_ms: budget.retryWaitMs() }));
    },
  };
}
export type SourceBudgets = ReturnType<typeof createSourceBudgets>;
