import type { Middleware } from 'koa';
import type { Clock } from '../../core/clock.ts';
import type { RateLimitConfig } from '../settings.ts';
import { isServiceFailure, ServiceError } from '../../core/errors.ts';
import { createRateLimiter, memoryWindows, type RateLimiter } from './sliding-window.ts';

/** Runs one call of `client` inside a rate limit (an HTTP request, or an MCP tool call doing the same work). */
export type CallLimit = <T>(client: string, run: () => Promise<T>) => Promise<T>;

/**
 * Refuses a call with `rate_limited` (and its Retry-After) while `limiter` says its client must
 * wait; `what` names the calls in the message. A call the service failed (5xx) gives its slot back;
 * refusals (4xx) count, as the spec's window counts requests. No limiter: no limit.
 */
export function callLimit(limiter: RateLimiter | null, what: string): CallLimit {
  if (limiter === null) return (_client, run) => run();
  return async (client, run) => {
    const retryAfterS = await limiter.take(client);
    if (retryAfterS > 0) throw new ServiceError('rate_limited', `Too many ${what}; retry in ${retryAfterS} s.`, { retryAfterS });
    try {
      return await run();
    } catch (error) {
      // A store that failed the request (a database) may fail this too: the slot then stays taken.
      if (isServiceFailure(error)) await limiter.release(client).catch(() => undefined);
      throw error;
    }
  };
}

/** The limit as middleware, keyed by what `keyOf` picks from the request (client IP, API key hash). */
export function limitRequests(limit: CallLimit, keyOf: (ctx: Parameters<Middleware>[0]) => string): Middleware {
  return (ctx, next) => limit(keyOf(ctx), next);
}

/** The listener's invoice creations, per client IP and overall, counted in this process. */
export function invoiceLimit(config: RateLimitConfig | null, clock: Clock): CallLimit {
  return callLimit(config && createRateLimiter({ store: memoryWindows(), clock, name: 'invoice', config }), 'invoice requests');
}
