import type Router from '@koa/router';
import type { Context } from 'koa';
import { renderConnectedApps, type Notice } from '../pages.ts';
import type { DashboardDeps, PageKit } from '../page-kit.ts';

/** The apps signed in over OAuth to the account's MCP endpoint; any can be cut off. */
export function connectedAppPages(router: Router, kit: PageKit, deps: Pick<DashboardDeps, 'oauthStore'>): void {
  const appsPage = async (ctx: Context, notice?: Notice, status = 200) => {
    kit.show(ctx, renderConnectedApps(kit.frame(ctx, notice), await deps.oauthStore.connectedApps(ctx.state.session.merchant.merchant_id)), status);
  };
  router.get('/apps', kit.signedIn, (ctx) => appsPage(ctx));
  router.post('/apps/revoke', kit.signedIn, kit.checkedForm, async (ctx) => {
    const revoked = await deps.oauthStore.revokeGrant(ctx.state.session.merchant.merchant_id, ctx.state.form.grant_id ?? '');
    if (!revoked) return appsPage(ctx, { kind: 'error', text: 'No such connected app (already revoked?).' }, 404);
    await appsPage(ctx, { kind: 'ok', text: 'Access revoked: the app can no longer call the MCP endpoint, and its refresh token no longer works.' });
  });
}
