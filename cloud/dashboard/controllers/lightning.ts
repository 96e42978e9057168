import type Router from '@koa/router';
import type { Context } from 'koa';
import { renderLightning, type Notice } from '../pages.ts';
import { refusalOf, type DashboardDeps, type PageKit } from '../page-kit.ts';

/** The merchant's own Lightning wallet: connect one (checked receive-only), or disconnect it. */
export function lightningPages(router: Router, kit: PageKit, deps: Pick<DashboardDeps, 'cloud'>): void {
  const { accounts } = deps.cloud;
  const lightningPage = async (ctx: Context, extra: { notice?: Notice; status?: number } = {}) => {
    const account = await accounts.me(ctx.state.session.merchant);
    kit.show(ctx, renderLightning(kit.frame(ctx, extra.notice), { lightning: account.lightning ?? null }), extra.status);
  };
  const change = (nwcUrl: (ctx: Context) => string | null, done: string) => async (ctx: Context) => {
    try {
      await accounts.setLightning(ctx.state.session.merchant, { nwc_url: nwcUrl(ctx) });
      await lightningPage(ctx, { notice: { kind: 'ok', text: done } });
    } catch (error) {
      await lightningPage(ctx, refusalOf(error));
    }
  };

  router.get('/lightning', kit.signedIn, (ctx) => lightningPage(ctx));
  router.post('/lightning', kit.signedIn, kit.checkedForm, change((ctx) => String(ctx.state.form.nwc_url ?? ''), 'Wallet connected: new Bitcoin invoices carry a Lightning invoice.'));
  router.post('/lightning/remove', kit.signedIn, kit.checkedForm, change(() => null, 'Wallet disconnected: Bitcoin invoices are paid on-chain only.'));
}
