import { createHash, timingSafeEqual } from 'node:crypto';
import type { Middleware } from 'koa';
import { ServiceError } from '../../core/errors.ts';

const digest = (text: string) => createHash('sha256').update(text).digest();

/** Whether `given` is the configured key, compared in constant time (both sides hashed first). */
export function keyMatcher(apiKey: string): (given: string | undefined) => boolean {
  const expected = digest(apiKey);
  return (given) => !!given && timingSafeEqual(digest(given), expected);
}

/**
 * Requires `X-Service-Api-Key` to equal the configured key. Both sides are hashed first so the
 * comparison is constant-time whatever the lengths.
 */
export function requireApiKey(apiKey: string | null): Middleware {
  if (apiKey === null) return (_ctx, next) => next();
  const matches = keyMatcher(apiKey);
  return async (ctx, next) => {
    if (!matches(ctx.get('X-Service-Api-Key'))) {
      throw new ServiceError('unauthorized', 'Missing or invalid API key (X-Service-Api-Key).');
    }
    await next();
  };
}
