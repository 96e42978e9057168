import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Context } from 'koa';
import { readFormBody } from '../http/form-body.ts';
import { redirectTarget, renderConsent, renderOAuthErrorPage, type RedirectTarget } from './consent-page.ts';
import { MAX_CLIENT_NAME } from './oauth-bounds.ts';
import { CONSENT_PREFIX } from './oauth-paths.ts';
import { sendPage } from './oauth-responses.ts';
import { OAUTH_SCOPES } from './scopes.ts';
import type { Interaction, KeyAccount, OidcProvider, ServerParts } from './server-options.ts';

type InteractionResult = Parameters<OidcProvider['interactionFinished']>[2];
type ConsentParams = { client_id: string; redirect_uri: string; scope?: string; resource?: string | string[] };

/**
 * The consent page of an authorization request (GET shows it, POST decides it): the merchant
 * signs in with an API key and approves, and the grant is recorded with the key that approved it.
 */
export async function consent(parts: ServerParts, ctx: Context, uid: string): Promise<void> {
  const details = await interactionOf(parts, ctx, uid);
  if (!details) return;
  await withDefaultScope(details);
  if (ctx.method === 'GET') return sendPage(ctx, 200, await consentView(parts, details));
  const form = await readFormBody(ctx);
  if (!sameCsrf(parts.csrfKey, form.csrf, uid)) return sendPage(ctx, 403, renderOAuthErrorPage(parts.css, 'invalid_request', 'This form was not sent from the consent page. Start again from the app.'));
  if (form.decision !== 'approve') return finish(parts, ctx, { error: 'access_denied', error_description: 'The merchant denied the request.' });

  const params = details.params as ConsentParams;
  const requested = (params.scope ?? '').split(' ').filter(Boolean);
  const refusal = refusalOf(params, requested, parts.options.resource);
  if (refusal) return finish(parts, ctx, refusal);
  const signedIn = await signIn(parts, ctx, details, form.api_key);
  if (signedIn) await approve(parts, ctx, { clientId: params.client_id, requested, signedIn });
}

const csrfFor = (csrfKey: string, uid: string) => createHmac('sha256', csrfKey).update(uid).digest('base64url');

function sameCsrf(csrfKey: string, given: string | undefined, uid: string): boolean {
  const expected = Buffer.from(csrfFor(csrfKey, uid));
  const actual = Buffer.from(given ?? '');
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** The interaction this browser is in (its cookie), or an error page when there is none. */
async function interactionOf({ provider, errors, css }: ServerParts, ctx: Context, uid: string): Promise<Interaction | null> {
  try {
    const details = await provider.interactionDetails(ctx.req, ctx.res);
    if (details.uid === uid) return details;
  } catch (error) {
    if (!(error instanceof errors.SessionNotFound)) throw error;
  }
  sendPage(ctx, 400, renderOAuthErrorPage(css, 'invalid_request', 'This authorization request has expired or was opened in another browser. Start again from the app.'));
  return null;
}

/**
 * A request that names no scope of ours asks for all of them: RFC 6749 (3.3) has the server use a
 * predefined default or refuse, and the MCP authorization specification lets a client leave scope
 * out. Written into the interaction's stored parameters, so the consent page shows them and
 * oidc-provider, which keeps only the granted scopes that were requested, issues them.
 */
async function withDefaultScope(details: Interaction): Promise<void> {
  const params = details.params as { scope?: string };
  const requested = (params.scope ?? '').split(' ').filter(Boolean);
  if (requested.some((s) => s !== 'offline_access')) return;
  params.scope = [...OAUTH_SCOPES, ...requested].join(' ');
  await details.persist();
}

async function consentView({ provider, css, csrfKey, options }: ServerParts, details: Interaction, error?: string): Promise<string> {
  const params = details.params as ConsentParams;
  const client = await provider.Client.find(params.client_id);
  const redirect = redirectTarget(params.redirect_uri);
  return renderConsent({
    css,
    action: `${CONSENT_PREFIX}${details.uid}`,
    csrf: csrfFor(csrfKey, details.uid),
    clientName: client?.clientName ?? params.client_id,
    nameVouchedBy: client?.clientName ? metadataDocumentHost(params.client_id, redirect) : null,
    clientId: params.client_id,
    redirect,
    scopes: (params.scope ?? '').split(' ').filter((s) => s && s !== 'offline_access'),
    keyLabel: options.keyLabel,
    error,
  });
}

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

/** Why an approved request cannot be granted as asked (a scope this server does not know, another resource); null: it can. */
function refusalOf(params: ConsentParams, requested: string[], resource: string): InteractionResult | null {
  const unknown = requested.filter((s) => s !== 'offline_access' && !(OAUTH_SCOPES as readonly string[]).includes(s));
  if (unknown.length) return { error: 'invalid_scope', error_description: `unknown scope: ${unknown.join(' ')}` };
  if (params.resource !== resource) return { error: 'invalid_target', error_description: `resource must be ${resource}` };
  return null;
}

/** The account of the key on the form, under the sign-in throttle; null once the page saying why not is sent. */
async function signIn(parts: ServerParts, ctx: Context, details: Interaction, apiKey: string | undefined): Promise<KeyAccount | null> {
  const { options, log } = parts;
  const throttle = options.limiters.consent;
  const retryAfterS = throttle ? await throttle.attempt(ctx.ip) : 0;
  if (retryAfterS > 0) {
    log.warn('OAuth consent sign-in throttled', { ip: ctx.ip, retry_after_s: retryAfterS });
    ctx.set('Retry-After', String(retryAfterS));
    sendPage(ctx, 429, await consentView(parts, details, `Too many sign-in attempts from your network. Try again in ${retryAfterS} seconds.`));
    return null;
  }
  const signedIn = apiKey ? await options.accountOfKey(apiKey) : null;
  if (!signedIn) {
    sendPage(ctx, 401, await consentView(parts, details, 'That API key is not valid or has been revoked.'));
    return null;
  }
  const accountWaitS = throttle ? await throttle.signedIn(signedIn.accountId) : 0;
  if (accountWaitS > 0) {
    log.warn('OAuth consent sign-ins of one account throttled', { account_id: signedIn.accountId, retry_after_s: accountWaitS });
    ctx.set('Retry-After', String(accountWaitS));
    sendPage(ctx, 429, await consentView(parts, details, `Too many sign-ins to this account. Try again in ${accountWaitS} seconds.`));
    return null;
  }
  return signedIn;
}

/** Records the grant (with the key that approved it) and sends the browser back to the client with its code. */
async function approve(parts: ServerParts, ctx: Context, request: { clientId: string; requested: string[]; signedIn: KeyAccount }): Promise<void> {
  const { provider, options, log } = parts;
  const { clientId, requested } = request;
  const { accountId, keyId } = request.signedIn;
  const granted = requested.filter((s) => s !== 'offline_access');
  const grant = new provider.Grant({ accountId, clientId });
  // Granted for the endpoint (the token's audience) and as the server's own scopes it lists.
  grant.addResourceScope(options.resource, granted.join(' '));
  grant.addOIDCScope([...granted, ...requested.filter((s) => s === 'offline_access')]);
  const grantId = await grant.save();
  const client = await provider.Client.find(clientId);
  await options.store.noteGrant(grantId, { keyId, clientName: client?.clientName?.slice(0, MAX_CLIENT_NAME) ?? null });
  log.info('OAuth grant approved', { client_id: clientId, account_id: accountId });
  await finish(parts, ctx, { login: { accountId }, consent: { grantId } });
}

/** Ends the interaction: oidc-provider answers with the redirect back to the client itself. */
async function finish({ provider }: ServerParts, ctx: Context, result: InteractionResult): Promise<void> {
  ctx.respond = false;
  await provider.interactionFinished(ctx.req, ctx.res, result, { mergeWithLastSubmission: false });
}
