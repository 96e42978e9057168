import type { KoaContextWithOIDC } from 'oidc-provider';
import type { OidcErrors } from './server-options.ts';

/*
 * What oidc-provider may store for a client or an authorization request, bounded through its own
 * settings (extraClientMetadata, extraParams): every refusal is its OAuth error, before anything
 * is stored.
 */

/** A registered client may list this many redirect URIs and a name this long, no more. */
export const MAX_REDIRECT_URIS = 10;
export const MAX_CLIENT_NAME = 200;
/** Every other string a client registers (a URI, a contact) and every authorization parameter (`state` too): at most this many characters. */
export const MAX_STORED_STRING = 1_000;
/** A client's whole metadata, as stored: at most this many characters of JSON. */
export const MAX_CLIENT_METADATA = 8_000;
/** An authorization request's parameters together: at most this many characters. */
export const MAX_AUTHORIZATION_PARAMETERS = 4_000;
/** A list in a client's metadata (contacts, grant types): at most this many entries. */
const MAX_LIST = 10;

/**
 * Registration fields of features this server does not offer (logout, request objects, pushed
 * requests, key-based client authentication, pairwise subjects, sender-constrained tokens):
 * a registration carrying one is refused with invalid_client_metadata rather than stored.
 */
const UNUSED_CLIENT_METADATA: readonly string[] = [
  'post_logout_redirect_uris',
  'frontchannel_logout_uri',
  'frontchannel_logout_session_required',
  'backchannel_logout_uri',
  'backchannel_logout_session_required',
  'request_uris',
  'request_object_signing_alg',
  'require_signed_request_object',
  'require_pushed_authorization_requests',
  'jwks',
  'jwks_uri',
  'sector_identifier_uri',
  'initiate_login_uri',
  'token_endpoint_auth_signing_alg',
  'userinfo_signed_response_alg',
  'id_token_encrypted_response_alg',
  'id_token_encrypted_response_enc',
  'userinfo_encrypted_response_alg',
  'userinfo_encrypted_response_enc',
  'authorization_signed_response_alg',
  'dpop_bound_access_tokens',
  'tls_client_certificate_bound_access_tokens',
  'software_statement',
];

/** The authorization request's parameters oidc-provider keeps in its interaction, each checked for length. */
const AUTHORIZATION_PARAMETERS = [
  'acr_values', 'claims_locales', 'client_id', 'code_challenge', 'code_challenge_method', 'display', 'id_token_hint', 'login_hint', 'max_age',
  'nonce', 'prompt', 'redirect_uri', 'registration', 'request', 'request_uri', 'resource', 'response_mode', 'response_type', 'scope', 'state', 'ui_locales',
];

/** oidc-provider's `extraClientMetadata` and `extraParams` settings that enforce the bounds (`errors`: its error classes, loaded with it). */
export function oauthBounds(errors: OidcErrors) {
  /**
   * Each client's metadata (DCR and CIMD alike): at most MAX_REDIRECT_URIS redirect URIs, a short
   * name, every other string and list bounded, the whole bounded; fields of features this server
   * does not offer are refused at registration (and dropped from a metadata document).
   */
  const validateClientMetadata = (ctx: KoaContextWithOIDC | undefined, key: string, value: unknown, metadata: Record<string, unknown>): void => {
    if (UNUSED_CLIENT_METADATA.includes(key)) {
      // An empty list or `false` asks for nothing: dropped, as is any such field of a metadata document.
      const asksForSomething = !(value === undefined || value === null || value === false || value === '' || (Array.isArray(value) && value.length === 0));
      if (asksForSomething && ctx?.oidc?.route === 'registration') throw new errors.InvalidClientMetadata(`${key} is not supported by this server`);
      delete metadata[key];
      return;
    }
    if (key === 'redirect_uris' && Array.isArray(value)) {
      if (value.length > MAX_REDIRECT_URIS) throw new errors.InvalidRedirectUri(`at most ${MAX_REDIRECT_URIS} redirect_uris`);
      if (value.some((uri) => typeof uri === 'string' && uri.length > MAX_STORED_STRING)) throw new errors.InvalidRedirectUri(`each redirect_uri must be at most ${MAX_STORED_STRING} characters`);
      return;
    }
    if (key !== 'client_name') return;
    if (typeof value === 'string' && [...value].length > MAX_CLIENT_NAME) throw new errors.InvalidClientMetadata(`client_name must be at most ${MAX_CLIENT_NAME} characters`);
    // The last property checked: the rest of the metadata and its whole size, once.
    for (const [field, given] of Object.entries(metadata)) {
      const list = Array.isArray(given) ? given : [given];
      if (Array.isArray(given) && field !== 'redirect_uris' && given.length > MAX_LIST) throw new errors.InvalidClientMetadata(`${field} must have at most ${MAX_LIST} entries`);
      if (list.some((item) => typeof item === 'string' && item.length > MAX_STORED_STRING)) throw new errors.InvalidClientMetadata(`${field} must be at most ${MAX_STORED_STRING} characters`);
    }
    if (JSON.stringify(metadata).length > MAX_CLIENT_METADATA) throw new errors.InvalidClientMetadata(`the client metadata must be at most ${MAX_CLIENT_METADATA} characters of JSON`);
  };

  const lengthOf = (value: unknown) => (Array.isArray(value) ? value : [value]).reduce((sum: number, one) => sum + (typeof one === 'string' ? one.length : 0), 0);
  /**
   * An authorization parameter (`state`, `login_hint`, …) longer than MAX_STORED_STRING, or a
   * request whose parameters together pass MAX_AUTHORIZATION_PARAMETERS (checked once, with the
   * last parameter: oidc-provider calls every validator in order, the parameter present or not),
   * is refused before anything is stored.
   */
  const boundedParameter = (name: string) => (ctx: KoaContextWithOIDC, value: unknown) => {
    const values = Array.isArray(value) ? value : [value];
    if (values.some((one) => typeof one === 'string' && one.length > MAX_STORED_STRING)) throw new errors.InvalidRequest(`${name} must be at most ${MAX_STORED_STRING} characters`);
    if (name === AUTHORIZATION_PARAMETERS.at(-1) && Object.values(ctx.oidc.params ?? {}).reduce((sum: number, one) => sum + lengthOf(one), 0) > MAX_AUTHORIZATION_PARAMETERS) {
      throw new errors.InvalidRequest(`the authorization request's parameters must be at most ${MAX_AUTHORIZATION_PARAMETERS} characters in all`);
    }
  };

  return {
    // client_name last: its check also bounds the metadata as a whole.
    extraClientMetadata: { properties: [...UNUSED_CLIENT_METADATA, 'redirect_uris', 'client_name'], validator: validateClientMetadata as never },
    extraParams: Object.fromEntries(AUTHORIZATION_PARAMETERS.map((name) => [name, boundedParameter(name)])),
  };
}
