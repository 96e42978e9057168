import type Router from '@koa/router';
import type { Context } from 'koa';
import { keyAccessOf, KEY_LABEL_MAX, parseKeyLabel } from '../../keys/api-keys.ts';
import { renderKeys, renderRevokeKey, type IssuedKey, type Notice } from '../pages.ts';
import { SESSION_COOKIE, type DashboardDeps, type PageKit } from '../page-kit.ts';

const keyNotFound = (prefix: string): Notice => ({ kind: 'error', text: `There is no active key ${prefix}… on this account.` });
const lastKey = (prefix: string): Notice => ({
  kind: 'error',
  text: `${prefix}… is your only active key, so it cannot be revoked: you would be locked out. Issue a new key first, then revoke this one.`,
});

/** The account's API keys: a new one (shown once), and revoking one (never the last). */
export function keyPages(router: Router, kit: PageKit, deps: Pick<DashboardDeps, 'cloud'>): void {
  const { accounts, keys } = deps.cloud;
  const keysPage = async (ctx: Context, extra: { notice?: Notice; issued?: IssuedKey; status?: number } = {}) => {
    const { api_keys } = await accounts.me(ctx.state.session.merchant);
    kit.show(ctx, renderKeys(kit.frame(ctx, extra.notice), api_keys, extra.issued), extra.status);
  };

  router.get('/keys', kit.signedIn, (ctx) => keysPage(ctx));
  /** The new key is in this response only: a reload of /keys shows its prefix, never the key. */
  router.post('/keys', kit.signedIn, kit.checkedForm, async (ctx) => {
    const label = parseKeyLabel(ctx.state.form.label);
    if (label === null) {
      return keysPage(ctx, { notice: { kind: 'error', text: `A key label is 1-${KEY_LABEL_MAX} characters, without control characters. No key was issued.` }, status: 400 });
    }
    const access = keyAccessOf(ctx.state.form.access);
    if (access === undefined) {
      return keysPage(ctx, { notice: { kind: 'error', text: 'Choose one of the access levels offered. No key was issued.' }, status: 400 });
    }
    await keysPage(ctx, { issued: await keys.issue(ctx.state.session.merchant, label, access && access.join(' ')) });
  });

  router.get('/keys/revoke', kit.signedIn, async (ctx) => {
    const prefix = typeof ctx.query.prefix === 'string' ? ctx.query.prefix : '';
    const active = (await accounts.me(ctx.state.session.merchant)).api_keys.filter((k) => !k.revoked);
    const key = active.find((k) => k.prefix === prefix);
    if (!key) return keysPage(ctx, { notice: keyNotFound(prefix), status: 404 });
    if (active.length === 1) return keysPage(ctx, { notice: lastKey(prefix), status: 409 });
    kit.show(ctx, renderRevokeKey(kit.frame(ctx), key));
  });

  router.post('/keys/revoke', kit.signedIn, kit.checkedForm, async (ctx) => {
    const prefix = ctx.state.form.prefix ?? '';
    const outcome = await keys.revoke(ctx.state.session.merchant, prefix);
    if (outcome === 'not_found') return keysPage(ctx, { notice: keyNotFound(prefix), status: 404 });
    if (outcome === 'last_key') return keysPage(ctx, { notice: lastKey(prefix), status: 409 });
    if (!(await kit.currentSession(ctx))) {
      // This session was opened with the revoked key and ended with it.
      kit.setCookie(ctx, SESSION_COOKIE, '', 0);
      return kit.message(ctx, 200, 'Signed out', `Key ${prefix}… is revoked. You signed in with it, so this session has ended: sign in with another active key.`);
    }
    await keysPage(ctx, {
      notice: { kind: 'ok', text: `Key ${prefix}… is revoked: requests with it now get 401 unauthorized, and dashboard sessions signed in with it have ended.` },
    });
  });
}
