import type { Context } from 'koa';
import type { Configuration, KoaContextWithOIDC } from 'oidc-provider';
import type { Logger } from '../../core/log.ts';
import type { OAuthStore } from '../../core/oauth/oauth-store.ts';
import { renderOAuthErrorPage, type Stylesheet } from './consent-page.ts';
import { guardedFetch, type GuardedFetchPolicy } from './guarded-fetch.ts';
import { oauthBounds } from './oauth-bounds.ts';
import { CONSENT_PREFIX, OAUTH_ROUTES } from './oauth-paths.ts';
import { setOAuthPageHeaders } from './oauth-responses.ts';
import { OAUTH_SCOPES } from './scopes.ts';
import type { OidcErrors, OidcModule, OidcProvider } from './server-options.ts';

/** Access tokens live 15 minutes; the client refreshes (rotating the refresh token) after that. */
export const ACCESS_TOKEN_TTL_S = 15 * 60;
const REFRESH_TOKEN_TTL_S = 30 * 24 * 3600;

export interface ProviderSettings {
  errors: OidcErrors;
  store: OAuthStore;
  /** The only `resource` tokens are issued for: the MCP endpoint. */
  resource: string;
  cimdPolicy: GuardedFetchPolicy;
  cookieKey: string;
  signingKey: Record<string, unknown>;
  css: Stylesheet;
  /** Whether the key that approved this grant still signs in. */
  grantKeyIsLive(grantId: string): Promise<boolean>;
}

/**
 * oidc-provider's configuration: authorization code with PKCE S256, `resource` required and bound
 * into the token audience, dynamic client registration and Client ID Metadata Documents, rotating
 * refresh tokens, revocation; its state in the service's database.
 */
export function providerConfiguration(settings: ProviderSettings): Configuration {
  const { store, css } = settings;
  const bounds = oauthBounds(settings.errors);
  return {
    adapter: (name: string) => store.adapterFor(name) as never,
    clients: [],
    // With a code or refresh token (its grant known), the account is found only while the key that
    // approved the grant still signs in: a revoked or replaced key ends its grants' refreshes.
    findAccount: async (_ctx, accountId, token) => {
      const grantId = (token as { grantId?: string } | undefined)?.grantId;
      if (grantId !== undefined && !(await settings.grantKeyIsLive(grantId))) return undefined;
      return { accountId, claims: () => ({ sub: accountId }) };
    },
    extraParams: bounds.extraParams,
    scopes: [...OAUTH_SCOPES, 'offline_access'],
    responseTypes: ['code'],
    pkce: { required: () => true },
    clientDefaults: { grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' },
    clientAuthMethods: ['none', 'client_secret_basic', 'client_secret_post'],
    cookies: { keys: [settings.cookieKey] },
    jwks: { keys: [settings.signingKey] },
    extraClientMetadata: bounds.extraClientMetadata,
    features: offeredFeatures(settings.errors, settings.resource),
    fetch: guardedFetch(settings.cimdPolicy) as never,
    interactions: { url: (_ctx, interaction) => `${CONSENT_PREFIX}${interaction.uid}` },
    routes: OAUTH_ROUTES as never,
    ttl: { AccessToken: ACCESS_TOKEN_TTL_S, AuthorizationCode: 60, RefreshToken: REFRESH_TOKEN_TTL_S, Grant: REFRESH_TOKEN_TTL_S, Interaction: 600, Session: 3600 },
    rotateRefreshToken: true,
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    expiresWithSession: async () => false,
    renderError: async (ctx, out) => {
      setOAuthPageHeaders(ctx as unknown as Context);
      ctx.body = renderOAuthErrorPage(css, String(out.error), out.error_description as string | undefined);
    },
  };
}

/**
 * Every feature oidc-provider turns on by default that this server does not offer is off:
 * RP-initiated logout (an open redirect through post_logout_redirect_uris), pushed
 * authorization requests (a stored request per call), DPoP (the MCP endpoint checks bearer tokens).
 */
function offeredFeatures(errors: OidcErrors, resource: string): Configuration['features'] {
  return {
    devInteractions: { enabled: false },
    userinfo: { enabled: false },
    rpInitiatedLogout: { enabled: false },
    pushedAuthorizationRequests: { enabled: false },
    dPoP: { enabled: false },
    // No registration access token: the client read/update endpoints (RFC 7592) are not offered.
    registration: { enabled: true, issueRegistrationAccessToken: false },
    revocation: { enabled: true },
    clientIdMetadataDocument: { enabled: true, ack: 'draft-02' } as never,
    resourceIndicators: {
      enabled: true,
      defaultResource: () => {
        throw new errors.InvalidTarget('resource is required: the URL of the MCP endpoint');
      },
      useGrantedResource: () => true,
      getResourceServerInfo: (_ctx, indicator) => {
        if (indicator !== resource) throw new errors.InvalidTarget(`this server issues tokens for ${resource} only`);
        return { scope: OAUTH_SCOPES.join(' '), audience: resource, accessTokenTTL: ACCESS_TOKEN_TTL_S, accessTokenFormat: 'opaque' };
      },
    },
  };
}

/** The provider for one issuer, behind the server's proxy setting, its failures logged. */
export function startProvider(Provider: OidcModule['default'], issuer: string, configuration: Configuration, trustProxy: boolean, log: Logger): OidcProvider {
  const provider = new Provider(issuer, configuration);
  provider.proxy = trustProxy;
  // Its cookies carry `Secure` when the issuer (PUBLIC_URL) is https, as a request over https would
  // give them: behind a proxy that speaks plain http to this server, the browser still sees https.
  if (new URL(issuer).protocol === 'https:') Object.defineProperty(provider.request, 'protocol', { get: () => 'https' });
  provider.on('server_error', (_ctx: KoaContextWithOIDC, error: Error) => log.error('authorization server failed', { error, stack: error.stack }));
  return provider;
}
