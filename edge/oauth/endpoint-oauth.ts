import type { Context, Middleware } from 'koa';
import { ServiceError } from '../../core/errors.ts';
import type { Kysely } from 'kysely';
import type { Clock } from '../../core/clock.ts';
import type { Logger } from '../../core/log.ts';
import { signInThrottle, type MakeLimiter } from '../http/sign-in-throttle.ts';
import type { RateLimitConfig } from '../settings.ts';
import { createOAuthStore } from '../../core/oauth/oauth-store.ts';
import type { OAuthTables } from '../../core/oauth/oauth.tables.ts';
import { createAuthorizationServer } from './authorization-server.ts';
import type { GuardedFetchPolicy } from './guarded-fetch.ts';
import { isAuthorizationServerPath } from './oauth-paths.ts';
import { metadataHandler, resourceUrls, usageTouch, type OAuthResource } from './protected-resource.ts';
import type { KeyAccount, OAuthLimiters } from './server-options.ts';

const WELL_KNOWN = '/.well-known/oauth-protected-resource';
const SWEEP_EVERY_MS = 10 * 60_000;

export interface EndpointOAuthOptions {
  /** The MCP endpoint's path (`/mcp`, `/api/v1/mcp`). */
  mcpPath: string;
  /** The public base URL; null while OAuth is off (no PUBLIC_URL and not on loopback, or nothing to sign in with). */
  baseUrl(): string | null;
  db: Kysely<OAuthTables>;
  clock: Clock;
  logger: Logger;
  trustProxy: boolean;
  accountOfKey(key: string): Promise<KeyAccount | null>;
  keyIsLive(keyId: string): Promise<boolean>;
  keyLabel: string;
  /** Serve the Connected apps page at /oauth/apps (the listener's; Cloud's is on its dashboard). */
  appsPage: boolean;
  cimdPolicy: GuardedFetchPolicy;
  limiters: OAuthLimiters;
}

/**
 * OAuth for one edition's MCP endpoint: the authorization server (made on first use, once the
 * public URL is known), the protected resource metadata, and the expired-row sweep.
 */
export function endpointOAuth(options: EndpointOAuthOptions) {
  const store = createOAuthStore(options.db, options.clock);
  let ready: Promise<OAuthResource> | null = null;
  const log = options.logger.child({ component: 'oauth' });
  const sweeper = setInterval(() => void store.sweep().catch((error) => log.warn('OAuth sweep failed', { error })), SWEEP_EVERY_MS);
  sweeper.unref();

  async function oauth(): Promise<OAuthResource | null> {
    const base = options.baseUrl();
    if (!base) return null;
    ready ??= createAuthorizationServer({ ...options, issuer: base, resource: resourceUrls(base, options.mcpPath).resource, store, logger: options.logger }).then(
      (server) => ({ ...resourceUrls(base, options.mcpPath), server }),
    );
    try {
      return await ready;
    } catch (error) {
      ready = null;
      throw error;
    }
  }

  const metadata = metadataHandler(oauth);
  const middleware: Middleware = async (ctx: Context, next) => {
    if ((ctx.path === WELL_KNOWN || ctx.path === `${WELL_KNOWN}${options.mcpPath}`) && ctx.method === 'GET') return metadata(ctx, next);
    if (!isAuthorizationServerPath(ctx.path)) return next();
    const found = await oauth();
    if (!found) return next();
    return found.server.middleware(ctx, next);
  };

  return {
    oauth,
    middleware,
    store,
    touched: usageTouch((grantId) => store.touchGrant(grantId), () => options.clock.now()),
    close() {
      clearInterval(sweeper);
    },
  };
}

export type EndpointOAuth = ReturnType<typeof endpointOAuth>;

/**
 * Requests per client address and overall, per minute, of the endpoints that store something:
 * a client registration (kept a day unless approved), an authorization request (an interaction,
 * kept ten minutes). Their overall windows never refuse an address's first request of the minute,
 * so many addresses cannot lock everyone out. Token requests store only what a live grant allows
 * (a failed one stores nothing) and come from agent platforms refreshing for many users at once:
 * a wider window per address and no overall one, which would let a few addresses stop every refresh.
 */
export const OAUTH_RATE_LIMITS = {
  registration: { perClient: 20, overall: 1_000 },
  authorization: { perClient: 60, overall: 3_000 },
  token: { perClient: 600, overall: Number.MAX_SAFE_INTEGER },
} as const satisfies Record<string, RateLimitConfig>;

/** The throttles of an edition's authorization server; `consent` is its sign-in limit (null: off). */
export function oauthLimiters(make: MakeLimiter, consent: RateLimitConfig | null): OAuthLimiters {
  return {
    consent: consent && signInThrottle(make, 'oauth-consent', consent),
    registration: make('oauth-register', OAUTH_RATE_LIMITS.registration, true),
    authorization: make('oauth-authorize', OAUTH_RATE_LIMITS.authorization, true),
    token: make('oauth-token', OAUTH_RATE_LIMITS.token, false),
  };
}

const OAUTH_OPERATIONS = ['oauthProtectedResource', 'oauthAuthorizationServer', 'oauthAuthorize', 'oauthToken', 'oauthRegister', 'oauthRevoke'];

/** The route table's OAuth operations of an edition (its path-suffixed metadata under `metadataId`); 404 while OAuth is off. */
export function oauthRouteHandlers(oauth: EndpointOAuth | null, metadataId: string): Record<string, Middleware> {
  const handler: Middleware = async (ctx, next) => {
    if (!oauth) throw new ServiceError('not_found', 'OAuth is not offered by this server (it has no SERVICE_API_KEY to sign in with).');
    await oauth.middleware(ctx, async () => {
      throw new ServiceError('not_found', 'OAuth is not offered by this server (set PUBLIC_URL when it is not on loopback).');
    });
    void next;
  };
  return Object.fromEntries([...OAUTH_OPERATIONS, metadataId].map((id) => [id, handler]));
}
