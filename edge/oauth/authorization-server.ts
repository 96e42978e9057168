import { generateKeyPairSync } from 'node:crypto';
import type { Middleware } from 'koa';
import type { OAuthStore } from '../../core/oauth/oauth-store.ts';
import { serveHashedAsset } from '../checkout/routes.ts';
import { loadDashboardStylesheet } from '../http/dashboard-style.ts';
import { appsPage, appsPasses } from './apps-page.ts';
import type { Stylesheet } from './consent-page.ts';
import { consent } from './consent-flow.ts';
import { throttled } from './endpoint-throttle.ts';
import { APPS_PATH, APPS_REVOKE_PATH, ASSET_PREFIX, CONSENT_PREFIX, METADATA_PATHS, OFFERED_ENDPOINTS, RESUME_PREFIX } from './oauth-paths.ts';
import { providerConfiguration, startProvider } from './provider-configuration.ts';
import type { AuthorizationServerOptions, OidcProvider, ServerParts } from './server-options.ts';

/**
 * The OAuth 2.1 authorization server of one edition, on oidc-provider (configured in
 * provider-configuration.ts); its state in the service's database. `middleware` serves its
 * endpoints, its metadata, the consent page and (on the listener) the Connected apps page.
 */
export async function createAuthorizationServer(options: AuthorizationServerOptions) {
  // Loaded on first use: a listener without OAuth never loads it (nor prints its runtime notice).
  const { default: Provider, errors } = await import('oidc-provider');
  const { store, resource } = options;
  const secrets = await serverSecrets(store);
  const asset = loadDashboardStylesheet();
  const css: Stylesheet = { url: `${ASSET_PREFIX}${asset.name}`, integrity: asset.integrity };
  const log = options.logger.child({ component: 'oauth' });
  /** Whether the key that approved this grant still signs in (a grant recorded before keys were noted has none: it ends). */
  const grantKeyIsLive = async (grantId: string) => {
    const keyId = await store.keyOfGrant(grantId);
    return keyId !== null && (await options.keyIsLive(keyId));
  };

  const configuration = providerConfiguration({ errors, store, resource, cimdPolicy: options.cimdPolicy, css, grantKeyIsLive, ...secrets });
  const provider = startProvider(Provider, options.issuer, configuration, options.trustProxy, log);
  const dispatch = provider.callback();
  const parts: ServerParts = { provider, errors, options, csrfKey: secrets.csrfKey, css, log };
  const passes = appsPasses(secrets.csrfKey, options.clock);

  const middleware: Middleware = async (ctx, next) => {
    const path = ctx.path;
    if (path.startsWith(ASSET_PREFIX)) {
      if (ctx.method === 'GET' && path === css.url) return serveHashedAsset(ctx, asset);
      return next();
    }
    if (path.startsWith(CONSENT_PREFIX) && (ctx.method === 'GET' || ctx.method === 'POST')) return consent(parts, ctx, path.slice(CONSENT_PREFIX.length));
    if (options.appsPage && ((path === APPS_PATH && (ctx.method === 'GET' || ctx.method === 'POST')) || (path === APPS_REVOKE_PATH && ctx.method === 'POST'))) return appsPage(parts, passes, ctx);
    const metadata = METADATA_PATHS.has(path);
    if (!metadata && !OFFERED_ENDPOINTS.has(path) && !path.startsWith(RESUME_PREFIX)) return next();
    if (await throttled(parts, ctx)) return;
    // RFC 8414's address and OpenID's name the same document.
    if (metadata) ctx.req.url = '/.well-known/openid-configuration';
    ctx.respond = false;
    await dispatch(ctx.req, ctx.res);
  };

  return {
    issuer: options.issuer,
    middleware,
    /** An access token for this server's resource: who it stands for and its scopes; null when it is not one. */
    verifyAccessToken: (token: string) => verifyAccessToken(provider, resource, grantKeyIsLive, token),
  };
}

export type AuthorizationServer = Awaited<ReturnType<typeof createAuthorizationServer>>;

/** The secrets every instance on the database shares: the cookie key, the token signing key (made once) and the forms' CSRF key. */
async function serverSecrets(store: OAuthStore) {
  const cookieKey = await store.sharedSecret('cookie-key');
  const signingKey = JSON.parse(
    await store.sharedSecret('signing-key', () =>
      JSON.stringify({ ...generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' }), kid: 'k1', use: 'sig', alg: 'RS256' }),
    ),
  ) as Record<string, unknown>;
  const csrfKey = await store.sharedSecret('csrf-key');
  return { cookieKey, signingKey, csrfKey };
}

async function verifyAccessToken(
  provider: OidcProvider,
  resource: string,
  grantKeyIsLive: (grantId: string) => Promise<boolean>,
  token: string,
): Promise<{ accountId: string; clientId: string; grantId: string; scopes: Set<string> } | null> {
  if (token.length > 512) return null;
  const found = await provider.AccessToken.find(token);
  if (!found || !found.accountId || !found.grantId) return null;
  const audience = (found as unknown as { aud?: string | string[] }).aud;
  if (audience !== resource && !(Array.isArray(audience) && audience.includes(resource))) return null;
  if (!(await grantKeyIsLive(found.grantId))) return null;
  return { accountId: found.accountId, clientId: found.clientId!, grantId: found.grantId, scopes: new Set((found.scope ?? '').split(' ').filter(Boolean)) };
}
