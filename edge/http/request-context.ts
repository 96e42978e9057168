import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { Clock } from '../../core/clock.ts';
import type { Logger } from '../../core/log.ts';

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** Gives each request an id (a sane incoming X-Request-Id is kept) and logs one line per request. */
export function requestContext(logger: Logger, clock: Clock): Middleware {
  return async (ctx, next) => {
    const incoming = ctx.get('X-Request-Id');
    const requestId = REQUEST_ID.test(incoming) ? incoming : randomUUID();
    ctx.set('X-Request-Id', requestId);
    const log = logger.child({ request_id: requestId });
    ctx.state.log = log;
    const started = clock.now();
    try {
      await next();
    } finally {
      log.info('request', { method: ctx.method, path: ctx.path, status: ctx.status, ms: clock.now() - started });
    }
  };
}
