import type { Clock } from '../../core/clock.ts';
import type { RateLimitConfig } from '../settings.ts';

export const WINDOW_MS = 60_000;
/** Idle windows are forgotten once every this many requests a limiter lets through or refuses. */
const DEFAULT_SWEEP_EVERY = 1_000;

/**
 * Where the windows live: for each bucket, the times of the requests it let through. One process
 * keeps them in memory; Cloud keeps them in the database every instance shares.
 */
export interface WindowStore {
  /**
   * Hands `change` the times kept for each of `buckets` (same order) and saves the lists it returns
   * (null: saves nothing). No other change to these buckets comes in between.
   */
  update(buckets: readonly string[], change: (kept: number[][]) => number[][] | null): Promise<void>;
  /** Forgets the buckets with no time after `cutoff`. */
  sweep(cutoff: number): Promise<void>;
}

export interface RateLimiter {
  /** Returns seconds to wait, or 0 when the request may go ahead (and is then counted). */
  take(client: string): Promise<number>;
  /** Gives back the newest slot of `client` (and overall), for a request the service failed (a 5xx). */
  release(client: string): Promise<void>;
}

interface Bucket {
  id: string;
  limit: number;
  overall: boolean;
}

export interface LimiterDeps {
  clock: Clock;
  name: string;
  config: RateLimitConfig;
  sweepEvery?: number;
  /**
   * The overall window never refuses a client with no request in its own window: many addresses
   * filling the overall window cannot lock out a fresh one (sign-in, sign-up, registration), and
   * each address past it gets one request a minute.
   */
  spareNewClients?: boolean;
}

/**
 * An exact sliding window per client and overall: a request is refused when either window already
 * holds its limit of requests from the last minute, and the wait is until the oldest of those leaves.
 * Refusals are not counted. Buckets are named `<name>:<client>` and `<name>:*`, and are handed to the
 * store in name order, so two requests that need the same pair never wait on each other crosswise.
 */
export function createRateLimiter(deps: LimiterDeps & { store: WindowStore }): RateLimiter {
  const { store, clock, name, config } = deps;
  const sweepEvery = deps.sweepEvery ?? DEFAULT_SWEEP_EVERY;
  let takesSinceSweep = 0;
  const bucketsOf = (client: string): Bucket[] => {
    const buckets: Bucket[] = [{ id: `${name}:${client}`, limit: config.perClient, overall: false }];
    if (config.overall < Number.MAX_SAFE_INTEGER) buckets.push({ id: `${name}:*`, limit: config.overall, overall: true });
    return buckets.sort((a, b) => (a.id < b.id ? -1 : 1));
  };

  return {
    async take(client) {
      const now = clock.now();
      const buckets = bucketsOf(client);
      let waitMs = 0;
      await store.update(
        buckets.map((b) => b.id),
        (kept) => {
          const windows = kept.map((times) => inWindow(times, now));
          const newClient = windows[buckets.findIndex((b) => !b.overall)].length === 0;
          const applies = (b: Bucket) => !(b.overall && newClient && deps.spareNewClients);
          waitMs = Math.max(...buckets.map((b, i) => (!applies(b) || windows[i].length < b.limit ? 0 : windows[i][windows[i].length - b.limit] + WINDOW_MS - now)));
          return waitMs > 0 ? null : windows.map((times) => [...times, now]);
        },
      );
      if (++takesSinceSweep >= sweepEvery) {
        takesSinceSweep = 0;
        await store.sweep(now - WINDOW_MS);
      }
      return waitMs > 0 ? Math.max(1, Math.ceil(waitMs / 1000)) : 0;
    },

    async release(client) {
      const now = clock.now();
      await store.update(
        bucketsOf(client).map((b) => b.id),
        (kept) => kept.map((times) => inWindow(times, now).slice(0, -1)),
      );
    },
  };
}

/** The times still inside the window at `now`, oldest first. */
function inWindow(times: number[], now: number): number[] {
  return times.filter((at) => at > now - WINDOW_MS).sort((a, b) => a - b);
}

/** Windows kept by this process alone (the listener runs as one). */
export function memoryWindows(): WindowStore {
  const buckets = new Map<string, number[]>();
  return {
    // Synchronous inside: nothing else runs between the read and the write.
    async update(ids, change) {
      const saved = change(ids.map((id) => buckets.get(id) ?? []));
      saved?.forEach((times, i) => buckets.set(ids[i], times));
    },
    async sweep(cutoff) {
      for (const [id, times] of buckets) if (!times.some((at) => at > cutoff)) buckets.delete(id);
    },
  };
}
