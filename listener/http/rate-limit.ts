import type { Middleware } from 'koa';
import type { Clock } from '../../core/clock.ts';
import type { RateLimitConfig } from '../config.ts';
import { isServiceFailure, ServiceError } from '../../core/errors.ts';
import { createRateLimiter, memoryWindows, type RateLimiter } from './sliding-window.ts';

/**
 * Refuses a request with `rate_limited` (and Retry-After) while `limiter` says its key must wait;
 * `what` names the requests in the message. A request the service failed (5xx) gives its slot back;
 * refusals (4xx) count, as the spec's window counts requests.
 */
export function limitRequests(limiter: RateLimiter, keyOf: (ctx: Parameters<Middleware>[0]) => string, what: string): Middleware {
  return async (ctx, next) => {
    const client = keyOf(ctx);
    const retryAfterS = await limiter.take(client);
    if (retryAfterS > 0) throw new ServiceError('rate_limited', `Too many ${what}; retry in ${retryAfterS} s.`, { retryAfterS });
    try {
      await next();
    } catch (error) {
      // A store that failed the request (a database) may fail this too: the slot then stays taken.
      if (isServiceFailure(error)) await limiter.release(client).catch(() => undefined);
      throw error;
    }
  };
}

/** The listener's invoice requests, per client IP and overall, counted in this process. */
export function rateLimit(config: RateLimitConfig | null, clock: Clock): Middleware {
  if (config === null) return (_ctx, next) => next();
  const limiter = createRateLimiter({ store: memoryWindows(), clock, name: 'invoice', config });
  return limitRequests(limiter, (ctx) => ctx.ip, 'invoice requests');
}
