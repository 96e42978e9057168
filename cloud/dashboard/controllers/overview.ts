import type Router from '@koa/router';
import { renderOverview } from '../pages.ts';
import type { DashboardDeps, PageKit } from '../page-kit.ts';

/** The account at a glance: plan, usage, keys, webhook. */
export function overviewPage(router: Router, kit: PageKit, deps: Pick<DashboardDeps, 'cloud'>): void {
  router.get('/', kit.signedIn, async (ctx) => {
    kit.show(ctx, renderOverview(kit.frame(ctx), await deps.cloud.accounts.me(ctx.state.session.merchant)));
  });
}
