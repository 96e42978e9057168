import type { Middleware } from 'koa';
import { errorCatalogue, errorDetail, type ErrorCode, type ErrorEnvelope } from '../../shared/index.ts';
import { asServiceError } from '../../core/errors.ts';
import type { Logger } from '../../core/log.ts';

export function renderError(ctx: { status: number; body: unknown; set(name: string, value: string): void }, code: ErrorCode, message: string) {
  ctx.status = errorCatalogue[code].status;
  const body: ErrorEnvelope = { error: errorDetail(code, message) };
  ctx.body = body;
}

/**
 * Renders every failure as the contract's error envelope. Unexpected errors are logged with their
 * details and answered with a generic code, the one the route noted (see tableRouter): no stack
 * trace ever reaches a client.
 */
export function errorMiddleware(logger: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) renderError(ctx, 'not_found', 'No such route.');
    } catch (thrown) {
      const log = (ctx.state.log as Logger | undefined) ?? logger;
      const known = asServiceError(thrown);
      if (known) {
        renderError(ctx, known.code, known.message);
        if (known.extra.retryAfterS !== undefined) ctx.set('Retry-After', String(known.extra.retryAfterS));
        if (known.extra.challenge) ctx.set('WWW-Authenticate', known.extra.challenge);
        if (known.extra.details) Object.assign((ctx.body as ErrorEnvelope).error, known.extra.details);
        if (known !== thrown) log.warn('request failed: the database cannot be used', { error: thrown });
        return;
      }
      log.error('unhandled request error', { error: thrown, stack: (thrown as Error)?.stack });
      renderError(ctx, (ctx.state.failureCode as ErrorCode | undefined) ?? 'internal_error', 'Internal error.');
    }
  };
}
