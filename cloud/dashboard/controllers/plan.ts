import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { planCatalogue } from '../../billing/plans.ts';
import { renderPlan, type Notice } from '../pages.ts';
import { refusalOf, type DashboardDeps, type PageKit } from '../page-kit.ts';

type PlanPageExtra = { notice?: Notice; checkout?: { plan: string; amountUsd: number; url: string }; portalUrl?: string; status?: number };

/** The plan: the current one, paying for another (crypto or card), and the card processor's page. */
export function planPages(router: Router, kit: PageKit, deps: Pick<DashboardDeps, 'cloud'>): void {
  const { accounts, billing } = deps.cloud;
  const planPage = async (ctx: Context, extra: PlanPageExtra = {}) => {
    const merchant = ctx.state.session.merchant;
    const [account, card] = await Promise.all([accounts.me(merchant), billing.cardSubscription(merchant)]);
    const { payment_methods } = billing.plans();
    kit.show(
      ctx,
      renderPlan(kit.frame(ctx, extra.notice), {
        current: account.plan,
        expiresAt: account.plan_expires_at,
        plans: planCatalogue,
        methods: payment_methods,
        checkout: extra.checkout,
        card,
        portalUrl: extra.portalUrl,
      }),
      extra.status,
    );
  };
  /** A plan form answers with the plan page: what the action returned, or its error as a notice. */
  const planAction =
    (act: (ctx: Context) => Promise<PlanPageExtra>): Middleware =>
    async (ctx) => {
      try {
        await planPage(ctx, await act(ctx));
      } catch (error) {
        await planPage(ctx, refusalOf(error));
      }
    };

  router.get('/plan', kit.signedIn, (ctx) => planPage(ctx));
  router.post(
    '/plan',
    kit.signedIn,
    kit.checkedForm,
    planAction(async (ctx) => {
      const started = await billing.checkout(ctx.state.session.merchant, { plan: ctx.state.form.plan, method: ctx.state.form.method });
      return { checkout: { plan: started.plan, amountUsd: started.amount_usd, url: started.checkout_url } };
    }),
  );
  // Answered with a link rather than a redirect: the page's CSP (form-action 'self') would block a form redirected to Stripe.
  router.post(
    '/plan/card',
    kit.signedIn,
    kit.checkedForm,
    planAction(async (ctx) => ({ portalUrl: (await billing.cardPortal(ctx.state.session.merchant)).url })),
  );
}
