import { createHmac, generateKeyPairSync, timingSafeEqual } from 'node:crypto';
import type { Context, Middleware } from 'koa';
import type { Configuration, KoaContextWithOIDC } from 'oidc-provider';
import type { Logger } from '../../core/log.ts';
import type { OAuthStore } from '../../core/oauth/oauth-store.ts';
import { serveHashedAsset, setHtmlPageHeaders } from '../checkout/routes.ts';
import { loadDashboardStylesheet } from '../http/dashboard-style.ts';
import { readFormBody } from '../http/form-body.ts';
import type { SignInThrottle } from '../http/sign-in-throttle.ts';
import type { RateLimiter } from '../http/sliding-window.ts';
import { redirectTarget, renderAppsPage, renderConsent, renderOAuthErrorPage, type RedirectTarget, type Stylesheet } from './consent-page.ts';
import { guardedFetch, type GuardedFetchPolicy } from './guarded-fetch.ts';
import { MAX_CLIENT_NAME, oauthBounds } from './oauth-bounds.ts';
import { OAUTH_SCOPES } from './scopes.ts';

/** Access tokens live 15 minutes; the client refreshes (rotating the refresh token) after that. */
export const ACCESS_TOKEN_TTL_S = 15 * 60;
const REFRESH_TOKEN_TTL_S = 30 * 24 * 3600;
/** The account an API key signs in as, and the key's non-reversible id (which its grants record). */
export interface KeyAccount {
  accountId: string;
  keyId: string;
}

export interface AuthorizationServerOptions {
  /** The public base URL (PUBLIC_URL, or the loopback URL served): the issuer. */
  issuer: string;
  /** The canonical URL of the MCP endpoint: the only `resource` tokens are issued for. */
  resource: string;
  store: OAuthStore;
  /** The account an API key signs in as (Cloud: its merchant; listener: `listener`) and the key's id, or null. */
  accountOfKey(key: string): Promise<KeyAccount | null>;
  /** Whether the key with this id still signs in (not revoked, not replaced): a grant lives only as long as its key. */
  keyIsLive(keyId: string): Promise<boolean>;
  /** What the consent page's key field asks for. */
  keyLabel: string;
  /** Client ID Metadata Documents are fetched under this guard (the webhook URL guard). */
  cimdPolicy: GuardedFetchPolicy;
  /** Consent sign-ins, client registrations, authorization and token requests per client IP; null: not throttled. */
  limiters: OAuthLimiters;
  /** Serve a Connected apps page at /oauth/apps (the listener; Cloud has its dashboard's). */
  appsPage: boolean;
  trustProxy: boolean;
  logger: Logger;
}

/** The throttles of the authorization server's endpoints, each per client address (null: not throttled). */
export interface OAuthLimiters {
  /** Sign-ins on the consent and Connected apps pages. */
  consent: SignInThrottle | null;
  registration: RateLimiter | null;
  authorization: RateLimiter | null;
  token: RateLimiter | null;
}

const OAUTH_PREFIX = '/oauth/';
const METADATA_PATHS = new Set(['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']);

/** Whether the authorization server answers this path (its endpoints, its metadata, the consent page). */
export const isAuthorizationServerPath = (path: string) => path.startsWith(OAUTH_PREFIX) || METADATA_PATHS.has(path);
/**
 * The only oidc-provider endpoints dispatched to it (with the metadata and the resume after the
 * consent page): any other route it mounts (the client read of RFC 7592, or whatever a default
 * turns on) is not reached.
 */
const OFFERED_ENDPOINTS = new Set(['/oauth/authorize', '/oauth/token', '/oauth/register', '/oauth/revoke', '/oauth/jwks']);
const RESUME_PREFIX = '/oauth/authorize/';
const ASSET_PREFIX = '/oauth/assets/';
const CONSENT_PREFIX = '/oauth/consent/';
// No form-action: browsers apply it to the redirect after the consent form, and clients come back on
// their own schemes (https, loopback http, cursor://, vscode://). The form carries its CSRF token.
const PAGE_CSP = ["default-src 'none'", "style-src 'self'", "base-uri 'none'", "frame-ancestors 'none'"].join('; ');

const oauthJson = (ctx: Context, status: number, error: string, description: string) => {
  ctx.status = status;
  ctx.set('Cache-Control', 'no-store');
  ctx.body = { error, error_description: description };
};

/**
 * The host that vouches for a client's name: a Client ID Metadata Document (its client_id an https
 * URL) whose host is the host the code is sent back to. Otherwise (a registered client, or a
 * document on another host) the name is only the client's own claim.
 */
function metadataDocumentHost(clientId: string, redirect: RedirectTarget): string | null {
  if (!clientId.startsWith('https://') || redirect.kind !== 'web') return null;
  const documentHost = new URL(clientId).host;
  return new URL(redirect.origin).host === documentHost ? documentHost : null;
}

/**
 * The OAuth 2.1 authorization server of one edition, on oidc-provider: authorization code with
 * PKCE S256, `resource` required and bound into the token audience, dynamic client registration
 * and Client ID Metadata Documents, rotating refresh tokens, revocation; its state in the
 * service's database. `middleware` serves its endpoints, its metadata and the consent page.
 */
export async function createAuthorizationServer(options: AuthorizationServerOptions) {
  // Loaded on first use: a listener without OAuth never loads it (nor prints its runtime notice).
  const { default: Provider, errors } = await import('oidc-provider');
  const { store, logger, resource } = options;

  const bounds = oauthBounds(errors);
  const cookieKey = await store.sharedSecret('cookie-key');
  const signingKey = JSON.parse(
    await store.sharedSecret('signing-key', () =>
      JSON.stringify({ ...generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' }), kid: 'k1', use: 'sig', alg: 'RS256' }),
    ),
  );
  const csrfKey = await store.sharedSecret('csrf-key');
  const asset = loadDashboardStylesheet();
  const css: Stylesheet = { url: `${ASSET_PREFIX}${asset.name}`, integrity: asset.integrity };
  const log = logger.child({ component: 'oauth' });
  /** Whether the key that approved this grant still signs in (a grant recorded before keys were noted has none: it ends). */
  const grantKeyIsLive = async (grantId: string) => {
    const keyId = await store.keyOfGrant(grantId);
    return keyId !== null && (await options.keyIsLive(keyId));
  };

  const configuration: Configuration = {
    adapter: (name: string) => store.adapterFor(name) as never,
    clients: [],
    // With a code or refresh token (its grant known), the account is found only while the key that
    // approved the grant still signs in: a revoked or replaced key ends its grants' refreshes.
    findAccount: async (_ctx, accountId, token) => {
      const grantId = (token as { grantId?: string } | undefined)?.grantId;
      if (grantId !== undefined && !(await grantKeyIsLive(grantId))) return undefined;
      return { accountId, claims: () => ({ sub: accountId }) };
    },
    extraParams: bounds.extraParams,
    scopes: [...OAUTH_SCOPES, 'offline_access'],
    responseTypes: ['code'],
    pkce: { required: () => true },
    clientDefaults: { grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' },
    clientAuthMethods: ['none', 'client_secret_basic', 'client_secret_post'],
    cookies: { keys: [cookieKey] },
    jwks: { keys: [signingKey] },
    extraClientMetadata: bounds.extraClientMetadata,
    // Every feature oidc-provider turns on by default that this server does not offer is off:
    // RP-initiated logout (an open redirect through post_logout_redirect_uris), pushed
    // authorization requests (a stored request per call), DPoP (the MCP endpoint checks bearer tokens).
    features: {
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
    },
    fetch: guardedFetch(options.cimdPolicy) as never,
    interactions: { url: (_ctx, interaction) => `${CONSENT_PREFIX}${interaction.uid}` },
    routes: {
      authorization: '/oauth/authorize',
      token: '/oauth/token',
      registration: '/oauth/register',
      revocation: '/oauth/revoke',
      jwks: '/oauth/jwks',
    } as never,
    ttl: { AccessToken: ACCESS_TOKEN_TTL_S, AuthorizationCode: 60, RefreshToken: REFRESH_TOKEN_TTL_S, Grant: REFRESH_TOKEN_TTL_S, Interaction: 600, Session: 3600 },
    rotateRefreshToken: true,
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    expiresWithSession: async () => false,
    renderError: async (ctx, out) => {
      setHtmlPageHeaders(ctx as unknown as Context, PAGE_CSP, 'no-referrer');
      ctx.body = renderOAuthErrorPage(css, String(out.error), out.error_description as string | undefined);
    },
  };
  const provider = new Provider(options.issuer, configuration);
  provider.proxy = options.trustProxy;
  // Its cookies carry `Secure` when the issuer (PUBLIC_URL) is https, as a request over https would
  // give them: behind a proxy that speaks plain http to this server, the browser still sees https.
  if (new URL(options.issuer).protocol === 'https:') Object.defineProperty(provider.request, 'protocol', { get: () => 'https' });
  provider.on('server_error', (_ctx: KoaContextWithOIDC, error: Error) => log.error('authorization server failed', { error, stack: error.stack }));
  const dispatch = provider.callback();

  const csrfFor = (uid: string) => createHmac('sha256', csrfKey).update(uid).digest('base64url');
  const sameCsrf = (given: string | undefined, uid: string) => {
    const expected = Buffer.from(csrfFor(uid));
    const actual = Buffer.from(given ?? '');
    return actual.length === expected.length && timingSafeEqual(actual, expected);
  };

  const page = (ctx: Context, status: number, html: string) => {
    setHtmlPageHeaders(ctx, PAGE_CSP, 'no-referrer');
    ctx.status = status;
    ctx.body = html;
  };

  /** The interaction this browser is in (its cookie), or an error page when there is none. */
  async function interactionOf(ctx: Context, uid: string) {
    try {
      const details = await provider.interactionDetails(ctx.req, ctx.res);
      if (details.uid === uid) return details;
    } catch (error) {
      if (!(error instanceof errors.SessionNotFound)) throw error;
    }
    page(ctx, 400, renderOAuthErrorPage(css, 'invalid_request', 'This authorization request has expired or was opened in another browser. Start again from the app.'));
    return null;
  }

  async function consentView(ctx: Context, details: Awaited<ReturnType<typeof provider.interactionDetails>>, error?: string) {
    const params = details.params as { client_id: string; redirect_uri: string; scope?: string };
    const client = await provider.Client.find(params.client_id);
    const redirect = redirectTarget(params.redirect_uri);
    return renderConsent({
      css,
      action: `${CONSENT_PREFIX}${details.uid}`,
      csrf: csrfFor(details.uid),
      clientName: client?.clientName ?? params.client_id,
      nameVouchedBy: client?.clientName ? metadataDocumentHost(params.client_id, redirect) : null,
      clientId: params.client_id,
      redirect,
      scopes: (params.scope ?? '').split(' ').filter((s) => s && s !== 'offline_access'),
      keyLabel: options.keyLabel,
      error,
    });
  }

  /** Ends the interaction: oidc-provider answers with the redirect back to the client itself. */
  async function finish(ctx: Context, result: Parameters<typeof provider.interactionFinished>[2]) {
    ctx.respond = false;
    await provider.interactionFinished(ctx.req, ctx.res, result, { mergeWithLastSubmission: false });
  }

  /**
   * A request that names no scope of ours asks for all of them: RFC 6749 (3.3) has the server use a
   * predefined default or refuse, and the MCP authorization specification lets a client leave scope
   * out. Written into the interaction's stored parameters, so the consent page shows them and
   * oidc-provider, which keeps only the granted scopes that were requested, issues them.
   */
  async function withDefaultScope(details: Awaited<ReturnType<typeof provider.interactionDetails>>) {
    const params = details.params as { scope?: string };
    const requested = (params.scope ?? '').split(' ').filter(Boolean);
    if (requested.some((s) => s !== 'offline_access')) return;
    params.scope = [...OAUTH_SCOPES, ...requested].join(' ');
    await details.persist();
  }

  async function consent(ctx: Context, uid: string): Promise<void> {
    const details = await interactionOf(ctx, uid);
    if (!details) return;
    await withDefaultScope(details);
    if (ctx.method === 'GET') return page(ctx, 200, await consentView(ctx, details));
    const form = await readFormBody(ctx);
    if (!sameCsrf(form.csrf, uid)) return page(ctx, 403, renderOAuthErrorPage(css, 'invalid_request', 'This form was not sent from the consent page. Start again from the app.'));
    if (form.decision !== 'approve') return finish(ctx, { error: 'access_denied', error_description: 'The merchant denied the request.' });

    const params = details.params as { client_id: string; scope?: string; resource?: string | string[] };
    const requested = (params.scope ?? '').split(' ').filter(Boolean);
    const unknown = requested.filter((s) => s !== 'offline_access' && !(OAUTH_SCOPES as readonly string[]).includes(s));
    if (unknown.length) return finish(ctx, { error: 'invalid_scope', error_description: `unknown scope: ${unknown.join(' ')}` });
    if (params.resource !== resource) return finish(ctx, { error: 'invalid_target', error_description: `resource must be ${resource}` });

    const retryAfterS = options.limiters.consent ? await options.limiters.consent.attempt(ctx.ip) : 0;
    if (retryAfterS > 0) {
      log.warn('OAuth consent sign-in throttled', { ip: ctx.ip, retry_after_s: retryAfterS });
      ctx.set('Retry-After', String(retryAfterS));
      return page(ctx, 429, await consentView(ctx, details, `Too many sign-in attempts from your network. Try again in ${retryAfterS} seconds.`));
    }
    const signedIn = form.api_key ? await options.accountOfKey(form.api_key) : null;
    if (!signedIn) return page(ctx, 401, await consentView(ctx, details, 'That API key is not valid or has been revoked.'));
    const { accountId, keyId } = signedIn;
    const accountWaitS = options.limiters.consent ? await options.limiters.consent.signedIn(accountId) : 0;
    if (accountWaitS > 0) {
      log.warn('OAuth consent sign-ins of one account throttled', { account_id: accountId, retry_after_s: accountWaitS });
      ctx.set('Retry-After', String(accountWaitS));
      return page(ctx, 429, await consentView(ctx, details, `Too many sign-ins to this account. Try again in ${accountWaitS} seconds.`));
    }

    const granted = requested.filter((s) => s !== 'offline_access');
    const grant = new provider.Grant({ accountId, clientId: params.client_id });
    // Granted for the endpoint (the token's audience) and as the server's own scopes it lists.
    grant.addResourceScope(resource, granted.join(' '));
    grant.addOIDCScope([...granted, ...requested.filter((s) => s === 'offline_access')]);
    const grantId = await grant.save();
    const client = await provider.Client.find(params.client_id);
    await store.noteGrant(grantId, { keyId, clientName: client?.clientName?.slice(0, MAX_CLIENT_NAME) ?? null });
    log.info('OAuth grant approved', { client_id: params.client_id, account_id: accountId });
    await finish(ctx, { login: { accountId }, consent: { grantId } });
  }

  /** A pass for the Connected apps page's forms: the account, an expiry, and their HMAC. */
  const APPS_PASS_MS = 10 * 60_000;
  const passFor = (accountId: string) => {
    const payload = `${accountId}.${Date.now() + APPS_PASS_MS}`;
    return `${Buffer.from(payload).toString('base64url')}.${createHmac('sha256', csrfKey).update(`apps|${payload}`).digest('base64url')}`;
  };
  const accountOfPass = (pass: string | undefined): string | null => {
    const [encoded, mac] = (pass ?? '').split('.');
    if (!encoded || !mac) return null;
    const payload = Buffer.from(encoded, 'base64url').toString();
    const expected = Buffer.from(createHmac('sha256', csrfKey).update(`apps|${payload}`).digest('base64url'));
    const given = Buffer.from(mac);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    const at = payload.lastIndexOf('.');
    return Number(payload.slice(at + 1)) > Date.now() ? payload.slice(0, at) : null;
  };

  async function appsPage(ctx: Context): Promise<void> {
    if (ctx.method === 'GET') return page(ctx, 200, renderAppsPage(css, { keyLabel: options.keyLabel }));
    const form = await readFormBody(ctx);
    let accountId: string | null;
    let notice: { kind: 'ok' | 'error'; text: string } | undefined;
    if (ctx.path === '/oauth/apps/revoke') {
      accountId = accountOfPass(form.pass);
      if (!accountId) return page(ctx, 403, renderAppsPage(css, { keyLabel: options.keyLabel, notice: { kind: 'error', text: 'This page has expired. Sign in again.' } }));
      const revoked = await store.revokeGrant(accountId, form.grant_id ?? '');
      notice = revoked ? { kind: 'ok', text: 'Access revoked: the app can no longer call the MCP endpoint.' } : { kind: 'error', text: 'No such connected app (already revoked?).' };
    } else {
      const throttle = options.limiters.consent;
      const retryAfterS = throttle ? await throttle.attempt(ctx.ip) : 0;
      accountId = retryAfterS > 0 || !form.api_key ? null : ((await options.accountOfKey(form.api_key))?.accountId ?? null);
      const waitS = retryAfterS || (accountId && throttle ? await throttle.signedIn(accountId) : 0);
      if (waitS > 0) {
        ctx.set('Retry-After', String(waitS));
        return page(ctx, 429, renderAppsPage(css, { keyLabel: options.keyLabel, notice: { kind: 'error', text: `Too many sign-in attempts. Try again in ${waitS} seconds.` } }));
      }
      if (!accountId) return page(ctx, 401, renderAppsPage(css, { keyLabel: options.keyLabel, notice: { kind: 'error', text: 'That key is not valid.' } }));
    }
    page(ctx, 200, renderAppsPage(css, { keyLabel: options.keyLabel, pass: passFor(accountId), apps: await store.connectedApps(accountId), notice }));
  }

  /**
   * Registrations, authorization and token requests per client IP: past a limit, 429 with
   * Retry-After, in the OAuth error format (JSON for the back-channel endpoints, the error page in
   * the browser), before anything is stored.
   */
  async function throttled(ctx: Context): Promise<boolean> {
    const endpoint =
      ctx.method === 'POST' && ctx.path === '/oauth/register'
        ? { limiter: options.limiters.registration, what: 'client registrations' }
        : ctx.method === 'POST' && ctx.path === '/oauth/token'
          ? { limiter: options.limiters.token, what: 'token requests' }
          : ctx.path === '/oauth/authorize'
            ? { limiter: options.limiters.authorization, what: 'authorization requests' }
            : null;
    const retryAfterS = endpoint?.limiter ? await endpoint.limiter.take(ctx.ip) : 0;
    if (retryAfterS <= 0) return false;
    log.warn('OAuth request throttled', { path: ctx.path, ip: ctx.ip, retry_after_s: retryAfterS });
    ctx.set('Retry-After', String(retryAfterS));
    const description = `Too many ${endpoint!.what} from this address; retry in ${retryAfterS} seconds.`;
    if (ctx.path === '/oauth/authorize') page(ctx, 429, renderOAuthErrorPage(css, 'temporarily_unavailable', description));
    else oauthJson(ctx, 429, 'too_many_requests', description);
    return true;
  }

  const middleware: Middleware = async (ctx, next) => {
    const path = ctx.path;
    if (path.startsWith(ASSET_PREFIX)) {
      if (ctx.method === 'GET' && path === css.url) return serveHashedAsset(ctx, asset);
      return next();
    }
    if (path.startsWith(CONSENT_PREFIX) && (ctx.method === 'GET' || ctx.method === 'POST')) return consent(ctx, path.slice(CONSENT_PREFIX.length));
    if (options.appsPage && ((path === '/oauth/apps' && (ctx.method === 'GET' || ctx.method === 'POST')) || (path === '/oauth/apps/revoke' && ctx.method === 'POST'))) return appsPage(ctx);
    const metadata = METADATA_PATHS.has(path);
    if (!metadata && !OFFERED_ENDPOINTS.has(path) && !path.startsWith(RESUME_PREFIX)) return next();
    if (await throttled(ctx)) return;
    // RFC 8414's address and OpenID's name the same document.
    if (metadata) ctx.req.url = '/.well-known/openid-configuration';
    ctx.respond = false;
    await dispatch(ctx.req, ctx.res);
  };

  return {
    issuer: options.issuer,
    middleware,
    /** An access token for this server's resource: who it stands for and its scopes; null when it is not one. */
    async verifyAccessToken(token: string): Promise<{ accountId: string; clientId: string; grantId: string; scopes: Set<string> } | null> {
      if (token.length > 512) return null;
      const found = await provider.AccessToken.find(token);
      if (!found || !found.accountId || !found.grantId) return null;
      const audience = (found as unknown as { aud?: string | string[] }).aud;
      if (audience !== resource && !(Array.isArray(audience) && audience.includes(resource))) return null;
      if (!(await grantKeyIsLive(found.grantId))) return null;
      return { accountId: found.accountId, clientId: found.clientId!, grantId: found.grantId, scopes: new Set((found.scope ?? '').split(' ').filter(Boolean)) };
    },
  };
}

export type AuthorizationServer = Awaited<ReturnType<typeof createAuthorizationServer>>;
