import type { Middleware } from 'koa';
import type { Clock } from '../../core/clock.ts';
import type { RateLimitConfig } from '../config.ts';
import { isServiceFailure, ServiceError } from '../../core/errors.ts';

const WINDOW_MS = 60_000;

/**
 * An exact sliding window: the times of the requests let through in the last minute. A request
 * is refused when either its client's or the overall window is full; Retry-After says when the
 * oldest of the full window leaves it.
 */
export class SlidingWindow {
  private readonly hits: number[] = [];
  constructor(readonly limit: number) {}

  /** Milliseconds until a slot frees, or 0 if there is room now. */
  waitMs(now: number): number {
    while (this.hits.length && this.hits[0] <= now - WINDOW_MS) this.hits.shift();
    return this.hits.length < this.limit ? 0 : this.hits[0] + WINDOW_MS - now;
  }

  record(now: number) {
    this.hits.push(now);
  }

  /** Gives back the newest slot taken. */
  release() {
    this.hits.pop();
  }

  get empty() {
    return this.hits.length === 0;
  }
}

export function createRateLimiter(config: RateLimitConfig, clock: Clock) {
  const overall = new SlidingWindow(config.overall);
  const perClient = new Map<string, SlidingWindow>();

  return {
    /** Returns seconds to wait, or 0 when the request may go ahead (and is then counted). */
    take(client: string): number {
      const now = clock.now();
      let window = perClient.get(client);
      if (!window) {
        window = new SlidingWindow(config.perClient);
        perClient.set(client, window);
      }
      const wait = Math.max(window.waitMs(now), overall.waitMs(now));
      if (wait > 0) return Math.max(1, Math.ceil(wait / 1000));
      window.record(now);
      overall.record(now);
      if (perClient.size > 10_000) {
        for (const [key, w] of perClient) if (w.waitMs(now) === 0 && w.empty) perClient.delete(key);
      }
      return 0;
    },

    /** Gives back a slot `take` let through, for a request the service failed (a 5xx). */
    release(client: string) {
      perClient.get(client)?.release();
      overall.release();
    },
  };
}

export function rateLimit(config: RateLimitConfig | null, clock: Clock): Middleware {
  if (config === null) return (_ctx, next) => next();
  const limiter = createRateLimiter(config, clock);
  return async (ctx, next) => {
    const client = ctx.ip;
    const retryAfterS = limiter.take(client);
    if (retryAfterS > 0) {
      throw new ServiceError('rate_limited', `Too many invoice requests; retry in ${retryAfterS} s.`, { retryAfterS });
    }
    try {
      await next();
    } catch (error) {
      if (isServiceFailure(error)) limiter.release(client);
      throw error;
    }
  };
}
