import type { Context } from 'koa';
import { renderOAuthErrorPage } from './consent-page.ts';
import { OAUTH_ROUTES } from './oauth-paths.ts';
import { sendOAuthJson, sendPage } from './oauth-responses.ts';
import type { ServerParts } from './server-options.ts';

/**
 * Registrations, authorization and token requests per client IP: past a limit, 429 with
 * Retry-After, in the OAuth error format (JSON for the back-channel endpoints, the error page in
 * the browser), before anything is stored. True when the request was refused.
 */
export async function throttled({ options, css, log }: Pick<ServerParts, 'options' | 'css' | 'log'>, ctx: Context): Promise<boolean> {
  const { limiters } = options;
  const endpoint =
    ctx.method === 'POST' && ctx.path === OAUTH_ROUTES.registration
      ? { limiter: limiters.registration, what: 'client registrations' }
      : ctx.method === 'POST' && ctx.path === OAUTH_ROUTES.token
        ? { limiter: limiters.token, what: 'token requests' }
        : ctx.path === OAUTH_ROUTES.authorization
          ? { limiter: limiters.authorization, what: 'authorization requests' }
          : null;
  const retryAfterS = endpoint?.limiter ? await endpoint.limiter.take(ctx.ip) : 0;
  if (retryAfterS <= 0) return false;
  log.warn('OAuth request throttled', { path: ctx.path, ip: ctx.ip, retry_after_s: retryAfterS });
  ctx.set('Retry-After', String(retryAfterS));
  const description = `Too many ${endpoint!.what} from this address; retry in ${retryAfterS} seconds.`;
  if (ctx.path === OAUTH_ROUTES.authorization) sendPage(ctx, 429, renderOAuthErrorPage(css, 'temporarily_unavailable', description));
  else sendOAuthJson(ctx, 429, 'too_many_requests', description);
  return true;
}
