import type { Context, Middleware } from 'koa';
import { ServiceError } from '../../core/errors.ts';
import type { AuthorizationServer } from './authorization-server.ts';
import { OAUTH_SCOPES, type Principal } from './scopes.ts';

/** An MCP endpoint's OAuth side: its canonical URL, where its metadata is, and who issues its tokens. */
export interface OAuthResource {
  resource: string;
  metadataUrl: string;
  server: AuthorizationServer;
}

const WELL_KNOWN = '/.well-known/oauth-protected-resource';

/** The endpoint's canonical URL and metadata address under a public base URL. */
export function resourceUrls(base: string, mcpPath: string): { resource: string; metadataUrl: string } {
  return { resource: `${base}${mcpPath}`, metadataUrl: `${base}${WELL_KNOWN}${mcpPath}` };
}

/** RFC 9728 protected resource metadata of the endpoint. */
export function protectedResourceMetadata(oauth: OAuthResource) {
  return {
    resource: oauth.resource,
    authorization_servers: [oauth.server.issuer],
    scopes_supported: [...OAUTH_SCOPES],
    bearer_methods_supported: ['header'],
    resource_name: 'Service payment invoices (MCP)',
  };
}

const quoted = (value: string) => `"${value.replace(/["\\]/g, '\\$&')}"`;

/** The `WWW-Authenticate` challenge of the endpoint, with an error when a token was sent. */
export function bearerChallenge(oauth: OAuthResource, fields: { error?: string; scope?: string; description?: string } = {}): string {
  const parts = [
    fields.error && `error=${quoted(fields.error)}`,
    fields.description && `error_description=${quoted(fields.description)}`,
    `resource_metadata=${quoted(oauth.metadataUrl)}`,
    `scope=${quoted(fields.scope ?? OAUTH_SCOPES.join(' '))}`,
  ].filter(Boolean);
  return `Bearer ${parts.join(', ')}`;
}

export interface CredentialOptions {
  /** What an API key stands for; null for a wrong key. A listener without a key takes anything. */
  principalOfKey(ctx: Context, key: string | undefined): Promise<Principal | null>;
  /** The endpoint's OAuth side; null when OAuth is off (no public URL, or no key to sign in with). */
  oauth(ctx: Context): Promise<OAuthResource | null>;
  /** Makes the token's account the request's (Cloud: loads the merchant); false when it no longer exists. */
  adopt?(ctx: Context, principal: Principal): Promise<boolean>;
  /** Called at most once a minute per grant whose token was used. */
  touched?(grantId: string): void;
}

/**
 * The MCP endpoint's credential check: `X-Service-Api-Key`, or `Authorization: Bearer` holding
 * an API key or an OAuth access token issued for this endpoint. A valid key never meets an OAuth
 * challenge; a missing credential gets one (RFC 9728), a bad token `invalid_token`.
 * Puts the caller on `ctx.state.principal`.
 */
export function requireMcpCredentials(options: CredentialOptions): Middleware {
  return async (ctx, next) => {
    const headerKey = ctx.get('X-Service-Api-Key') || undefined;
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(ctx.get('Authorization'))?.[1];
    let principal = await options.principalOfKey(ctx, headerKey ?? bearer);
    if (!principal && !headerKey) {
      const oauth = await options.oauth(ctx);
      if (oauth && !bearer) {
        throw new ServiceError('unauthorized', 'Authorization required: an OAuth access token (see WWW-Authenticate) or an API key.', { challenge: bearerChallenge(oauth) });
      }
      if (oauth && bearer) {
        const token = await oauth.server.verifyAccessToken(bearer);
        principal = token && { accountId: token.accountId, scopes: token.scopes, via: 'oauth', grantId: token.grantId };
        if (!principal || (options.adopt && !(await options.adopt(ctx, principal)))) {
          throw new ServiceError('unauthorized', 'The access token or API key is invalid, expired or revoked, or was issued for another server.', {
            challenge: bearerChallenge(oauth, { error: 'invalid_token', description: 'The access token is invalid or expired' }),
          });
        }
        options.touched?.(token!.grantId);
      }
    }
    if (!principal) throw new ServiceError('unauthorized', 'Missing or invalid API key (X-Service-Api-Key).');
    ctx.state.principal = principal;
    await next();
  };
}

/** Refuses a call the principal's scopes do not cover: 403 naming the scope (OAuth: as a step-up challenge). */
export async function refuseMissingScope(ctx: Context, scope: string, oauth: OAuthResource | null): Promise<never> {
  const principal = ctx.state.principal as Principal;
  throw new ServiceError('insufficient_scope', `This ${principal.via === 'oauth' ? 'access token' : 'API key'} lacks the scope ${scope}.`, {
    ...(principal.via === 'oauth' && oauth && { challenge: bearerChallenge(oauth, { error: 'insufficient_scope', scope }) }),
  });
}

/** Serves the metadata at the well-known address and its path-suffixed form; 404 while OAuth is off. */
export function metadataHandler(oauth: (ctx: Context) => Promise<OAuthResource | null>): Middleware {
  return async (ctx) => {
    const found = await oauth(ctx);
    if (!found) throw new ServiceError('not_found', 'OAuth is not offered by this server (no SERVICE_API_KEY, or no PUBLIC_URL off loopback).');
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.set('Access-Control-Allow-Origin', '*');
    ctx.body = protectedResourceMetadata(found);
  };
}

/** Counts each grant's use at most once a minute (the Connected apps page's "last used"). */
export function usageTouch(touch: (grantId: string) => Promise<void>, now: () => number): (grantId: string) => void {
  const last = new Map<string, number>();
  return (grantId) => {
    const at = now();
    if ((last.get(grantId) ?? 0) > at - 60_000) return;
    last.set(grantId, at);
    if (last.size > 10_000) last.clear();
    void touch(grantId).catch(() => undefined);
  };
}
