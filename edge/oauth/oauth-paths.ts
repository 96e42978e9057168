/** Where oidc-provider mounts the endpoints this server offers. */
export const OAUTH_ROUTES = {
  authorization: '/oauth/authorize',
  token: '/oauth/token',
  registration: '/oauth/register',
  revocation: '/oauth/revoke',
  jwks: '/oauth/jwks',
} as const;

const OAUTH_PREFIX = '/oauth/';
export const METADATA_PATHS = new Set(['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']);

/** Whether the authorization server answers this path (its endpoints, its metadata, the consent page). */
export const isAuthorizationServerPath = (path: string) => path.startsWith(OAUTH_PREFIX) || METADATA_PATHS.has(path);
/**
 * The only oidc-provider endpoints dispatched to it (with the metadata and the resume after the
 * consent page): any other route it mounts (the client read of RFC 7592, or whatever a default
 * turns on) is not reached.
 */
export const OFFERED_ENDPOINTS = new Set<string>(Object.values(OAUTH_ROUTES));
export const RESUME_PREFIX = `${OAUTH_ROUTES.authorization}/`;
export const ASSET_PREFIX = '/oauth/assets/';
export const CONSENT_PREFIX = '/oauth/consent/';
export const APPS_PATH = '/oauth/apps';
export const APPS_REVOKE_PATH = '/oauth/apps/revoke';
