import type { Clock } from '../clock.ts';
import { exponentialBackoffMs } from './backoff.ts';

export interface RequestBudgetOptions {
  /** For logs and /health: scheme://host[:port] only, never a path (hosted providers put API keys there) nor credentials. */
  label: string;
  /** Token bucket refill, requests per second. */
  ratePerSec: number;
  /** Bucket size: requests that may go at once after a quiet spell. */
  burst: number;
  clock: Clock;
  sleep: (ms: number) => Promise<void>;
  /** Jitter source in [0, 1). */
  random?: () => number;
  /** First backoff step after a 429 without a usable Retry-After; doubles on each further one. */
  baseBackoffMs?: number;
  maxBackoffMs?: number;
  /** A Retry-After longer than this is cut to it, so a misconfigured server cannot park the listener for days. */
  maxRetryAfterMs?: number;
}

export interface RequestBudgetStats {
  label: string;
  /** Requests let through since start. */
  requests: number;
  /** HTTP 429 answers received since start. */
  http_429: number;
  /** ISO time before which no request may go; null when one may go now. */
  next_request_at: string | null;
}

export interface SprintLimits {
  ratePerSec: number;
  burst: number;
}

export interface RequestBudget {
  /** Waits for a token and for any Retry-After or backoff window; callers are served in order. */
  acquire(): Promise<void>;
  /**
   * A higher rate and burst for a while (a first header sync), never below the usual ones; each
   * 429 halves the sprint rate back towards the usual one. null: the usual limits again.
   */
  sprint(limits: SprintLimits | null): void;
  /** After each response: 429 (and 503 with Retry-After) opens a window; any other answer ends the backoff streak. */
  record(status: number, retryAfter: string | null): void;
  stats(): RequestBudgetStats;
  /** Milliseconds callers spent waiting out Retry-After and backoff windows since start (token waits excluded). */
  retryWaitMs(): number;
}

const DELTA_SECONDS = /^\d+$/;

/**
 * Milliseconds to wait from `now` according to a Retry-After value (RFC 9110 §10.2.3: delta-seconds
 * or an HTTP-date); null when absent or unreadable. A date in the past means no wait.
 */
export function retryAfterMs(value: string | null, now: number): number | null {
  if (value === null) return null;
  const text = value.trim();
  if (DELTA_SECONDS.test(text)) return Number(text) * 1000;
  // An HTTP-date always names the day or month in letters; without this check Date.parse reads "12" as a year.
  if (!/[a-z]/i.test(text)) return null;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - now);
}

/**
 * A token bucket with a shared pause window, one per chain source. Every caller, not only the one
 * that got the 429, waits out the window: public services count the whole client, and a request
 * sent inside the window is what gets an IP banned.
 */
export function createRequestBudget(options: RequestBudgetOptions): RequestBudget {
  const { label, ratePerSec, burst, clock, sleep } = options;
  if (!(ratePerSec > 0) || !(burst >= 1)) throw new Error(`request budget ${label}: rate and burst must be positive`);
  const random = options.random ?? Math.random;
  const baseBackoffMs = options.baseBackoffMs ?? 1_000;
  const maxBackoffMs = options.maxBackoffMs ?? 60_000;
  const maxRetryAfterMs = options.maxRetryAfterMs ?? 3_600_000;
  const bucket = createTokenBucket(ratePerSec, burst, clock.now());
  let pausedUntil = 0;
  let streak = 0;
  let requests = 0;
  let http429 = 0;
  let retryWaitMs = 0;
  const waiting: Array<() => void> = [];
  let serving = false;

  /** Milliseconds until a request may go: 0 when a token is ready and no window is open. */
  function waitMs(now: number): number {
    return Math.max(bucket.waitMs(now), pausedUntil - now);
  }

  // One loop serves the queue head at a time, so callers go in arrival order and a window opened
  // while the loop sleeps is seen before the next request goes.
  async function serve(): Promise<void> {
    serving = true;
    try {
      while (waiting.length > 0) {
        const now = clock.now();
        const wait = waitMs(now);
        if (wait > 0) {
          retryWaitMs += Math.min(wait, Math.max(0, pausedUntil - now));
          await sleep(wait);
          continue;
        }
        bucket.take();
        requests++;
        waiting.shift()!();
      }
    } finally {
      serving = false;
    }
  }

  return {
    acquire() {
      return new Promise<void>((resolve) => {
        waiting.push(resolve);
        if (!serving) void serve();
      });
    },
    sprint(limits) {
      bucket.limit(clock.now(), Math.max(ratePerSec, limits?.ratePerSec ?? ratePerSec), Math.max(burst, limits?.burst ?? burst));
    },
    record(status, retryAfter) {
      const now = clock.now();
      const pausing = status === 429 || (status === 503 && retryAfter !== null);
      if (status === 429) {
        http429++;
        // The server's limit is below the sprint: come down towards the usual rate.
        bucket.limit(now, Math.max(ratePerSec, bucket.rate() / 2), bucket.size());
      }
      if (!pausing) {
        if (status < 500) streak = 0;
        return;
      }
      const told = retryAfterMs(retryAfter, now);
      let pauseMs: number;
      if (told !== null) {
        pauseMs = Math.min(told, maxRetryAfterMs);
      } else {
        // Answers to requests already in flight when the window opened do not lengthen the streak.
        if (now >= pausedUntil) streak++;
        const ceiling = exponentialBackoffMs(Math.max(streak, 1), baseBackoffMs, maxBackoffMs);
        pauseMs = Math.floor(random() * ceiling);
      }
      pausedUntil = Math.max(pausedUntil, now + pauseMs);
    },
    stats() {
      const now = clock.now();
      const wait = waitMs(now);
      return { label, requests, http_429: http429, next_request_at: wait > 0 ? new Date(now + wait).toISOString() : null };
    },
    retryWaitMs: () => retryWaitMs,
  };
}

/** A token bucket: `rate` tokens a second up to `size`; both may change (a sprint). */
function createTokenBucket(initialRate: number, initialSize: number, now: number) {
  let rate = initialRate;
  let size = initialSize;
  let tokens = initialSize;
  let refilledAt = now;

  function refill(at: number): void {
    if (at > refilledAt) {
      tokens = Math.min(size, tokens + ((at - refilledAt) * rate) / 1000);
      refilledAt = at;
    }
  }

  return {
    /** Milliseconds until a token is there. */
    waitMs(at: number): number {
      refill(at);
      return tokens >= 1 ? 0 : Math.ceil(((1 - tokens) * 1000) / rate);
    },
    take(): void {
      tokens -= 1;
    },
    limit(at: number, nextRate: number, nextSize: number): void {
      refill(at);
      rate = nextRate;
      size = nextSize;
      tokens = Math.min(tokens, size);
    },
    rate: () => rate,
    size: () => size,
  };
}

/** A request whose time cap counts from when its budget lets it go, not from when it started waiting. */
interface PacedInit extends RequestInit {
  timeoutMs?: number;
}

/** A fetch that goes through a budget (budgetedFetch): it reads `timeoutMs` once the request may go. */
export type PacedFetch = ((input: string | URL | Request, init?: PacedInit) => Promise<Response>) & { paced: true };

/** A fetch that goes through the budget: every request acquires first and records its response. */
export function budgetedFetch(fetch: typeof globalThis.fetch, budget: RequestBudget): PacedFetch {
  const paced = async (input: string | URL | Request, init?: PacedInit) => {
    await budget.acquire();
    const { timeoutMs, ...rest } = init ?? {};
    const signals = [rest.signal, timeoutMs === undefined ? null : AbortSignal.timeout(timeoutMs)].filter((s): s is AbortSignal => s != null);
    const response = await fetch(input, { ...rest, ...(signals.length && { signal: AbortSignal.any(signals) }) });
    budget.record(response.status, response.headers.get('retry-after'));
    return response;
  };
  return Object.assign(paced, { paced: true as const });
}

/**
 * GET `url` within `timeoutMs` of the moment it goes: after the budget's wait when `fetch` is paced
 * (a Retry-After window spent waiting is not a slow answer), at once otherwise.
 */
export function fetchWithin(fetch: typeof globalThis.fetch | PacedFetch, url: string, timeoutMs: number): Promise<Response> {
  if ('paced' in fetch) return fetch(url, { timeoutMs });
  return fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
}

/** The label a budget may show: scheme, host and port of a URL, never its path, query or credentials. */
export function sourceLabel(url: string): string {
  const parsed = new URL(url);
  return `${parsed.protocol}//${parsed.host}`;
}
