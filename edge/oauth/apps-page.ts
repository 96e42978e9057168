import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Context } from 'koa';
import type { Clock } from '../../core/clock.ts';
import type { ConnectedApp } from '../../core/oauth/oauth-store.ts';
import { readFormBody } from '../http/form-body.ts';
import { renderAppsPage } from './consent-page.ts';
import { APPS_REVOKE_PATH } from './oauth-paths.ts';
import { sendPage } from './oauth-responses.ts';
import type { ServerParts } from './server-options.ts';

type Notice = { kind: 'ok' | 'error'; text: string };

/** How long a pass of the Connected apps page's forms stays good. */
const APPS_PASS_MS = 10 * 60_000;

/** A pass for the Connected apps page's forms: the account, an expiry, and their HMAC. */
export function appsPasses(csrfKey: string, clock: Clock) {
  const macOf = (payload: string) => createHmac('sha256', csrfKey).update(`apps|${payload}`).digest('base64url');
  return {
    passFor(accountId: string): string {
      const payload = `${accountId}.${clock.now() + APPS_PASS_MS}`;
      return `${Buffer.from(payload).toString('base64url')}.${macOf(payload)}`;
    },
    /** The account a pass was issued to, while it has not expired; null for anything else. */
    accountOfPass(pass: string | undefined): string | null {
      const [encoded, mac] = (pass ?? '').split('.');
      if (!encoded || !mac) return null;
      const payload = Buffer.from(encoded, 'base64url').toString();
      const expected = Buffer.from(macOf(payload));
      const given = Buffer.from(mac);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
      const at = payload.lastIndexOf('.');
      return Number(payload.slice(at + 1)) > clock.now() ? payload.slice(0, at) : null;
    },
  };
}

export type AppsPasses = ReturnType<typeof appsPasses>;

/**
 * The listener's Connected apps page: sign in with the key to list the apps holding a grant, and
 * revoke one (the revoke form carries the pass the sign-in gave).
 */
export async function appsPage(parts: ServerParts, passes: AppsPasses, ctx: Context): Promise<void> {
  const { css, options } = parts;
  const render = (view: { pass?: string; apps?: ConnectedApp[]; notice?: Notice }) =>
    renderAppsPage(css, { keyLabel: options.keyLabel, ...view });
  if (ctx.method === 'GET') return sendPage(ctx, 200, render({}));
  const form = await readFormBody(ctx);
  let accountId: string | null;
  let notice: Notice | undefined;
  if (ctx.path === APPS_REVOKE_PATH) {
    accountId = passes.accountOfPass(form.pass);
    if (!accountId) return sendPage(ctx, 403, render({ notice: { kind: 'error', text: 'This page has expired. Sign in again.' } }));
    const revoked = await options.store.revokeGrant(accountId, form.grant_id ?? '');
    notice = revoked ? { kind: 'ok', text: 'Access revoked: the app can no longer call the MCP endpoint.' } : { kind: 'error', text: 'No such connected app (already revoked?).' };
  } else {
    const signedIn = await signIn(parts, ctx, form.api_key);
    if ('refused' in signedIn) return sendPage(ctx, signedIn.refused.status, render({ notice: { kind: 'error', text: signedIn.refused.text } }));
    accountId = signedIn.accountId;
  }
  sendPage(ctx, 200, render({ pass: passes.passFor(accountId), apps: await options.store.connectedApps(accountId), notice }));
}

/** The account of the key on the sign-in form, under the sign-in throttle, or why the page refuses it. */
async function signIn({ options }: ServerParts, ctx: Context, apiKey: string | undefined): Promise<{ accountId: string } | { refused: { status: number; text: string } }> {
  const throttle = options.limiters.consent;
  const retryAfterS = throttle ? await throttle.attempt(ctx.ip) : 0;
  const accountId = retryAfterS > 0 || !apiKey ? null : ((await options.accountOfKey(apiKey))?.accountId ?? null);
  const waitS = retryAfterS || (accountId && throttle ? await throttle.signedIn(accountId) : 0);
  if (waitS > 0) {
    ctx.set('Retry-After', String(waitS));
    return { refused: { status: 429, text: `Too many sign-in attempts. Try again in ${waitS} seconds.` } };
  }
  if (!accountId) return { refused: { status: 401, text: 'That key is not valid.' } };
  return { accountId };
}
