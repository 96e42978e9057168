import { createHash, timingSafeEqual } from 'node:crypto';
import type { Middleware } from 'koa';
import { ServiceError } from '../../core/errors.ts';

const digest = (text: string) => createHash('sha256').update(text).digest();

/**
 * Requires `X-Service-Api-Key` to equal the configured key. Both sides are hashed first so the
 * comparison is constant-time whatever the lengths.
 */
export function requireApiKey(apiKey: string | null): Middleware {
  if (apiKey === null) return (_ctx, next) => next();
  const expected = digest(apiKey);
  return async (ctx, next) => {
    const given = ctx.get('X-Service-Api-Key');
    if (!given || !timingSafeEqual(digest(given), expected)) {
      throw new ServiceError('unauthorized', 'Missing or invalid API key (X-Service-Api-Key).');
    }
    await next();
  };
}
