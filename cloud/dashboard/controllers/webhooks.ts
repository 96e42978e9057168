import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { renderWebhooks, type Notice } from '../pages.ts';
import { refusalOf, type DashboardDeps, type PageKit } from '../page-kit.ts';

/** The webhook URL and its signing secret, and the latest deliveries (one can be sent again). */
export function webhookPages(router: Router, kit: PageKit, deps: Pick<DashboardDeps, 'cloud'>): void {
  const { accounts, webhooks } = deps.cloud;
  const webhooksPage = async (ctx: Context, extra: { notice?: Notice; newSecret?: string; status?: number } = {}) => {
    const merchant = ctx.state.session.merchant;
    const [account, deliveries] = await Promise.all([accounts.me(merchant), webhooks.recentDeliveries(merchant)]);
    kit.show(ctx, renderWebhooks(kit.frame(ctx, extra.notice), { webhookUrl: account.webhook_url, deliveries, newSecret: extra.newSecret }), extra.status);
  };

  /** Saving and rotating answer with the page itself: the new secret is in that one response only. */
  const withNewSecret =
    (change: (ctx: Context) => Promise<{ webhook_secret: string }>): Middleware =>
    async (ctx) => {
      try {
        const saved = await change(ctx);
        await webhooksPage(ctx, { newSecret: saved.webhook_secret });
      } catch (error) {
        await webhooksPage(ctx, refusalOf(error));
      }
    };

  router.get('/webhooks', kit.signedIn, (ctx) => webhooksPage(ctx));
  router.post('/webhooks', kit.signedIn, kit.checkedForm, withNewSecret((ctx) => webhooks.set(ctx.state.session.merchant, { webhook_url: ctx.state.form.webhook_url })));
  router.post('/webhooks/rotate', kit.signedIn, kit.checkedForm, withNewSecret((ctx) => webhooks.rotateSecret(ctx.state.session.merchant)));
  router.post('/webhooks/resend', kit.signedIn, kit.checkedForm, async (ctx) => {
    const eventId = String(ctx.state.form.event_id ?? '');
    const queued = await webhooks.resend(ctx.state.session.merchant, eventId);
    await webhooksPage(ctx, {
      notice: queued ? { kind: 'ok', text: `Event ${eventId} is queued for one more attempt.` } : { kind: 'error', text: `Event ${eventId} cannot be re-sent now (unknown, or still queued).` },
      status: queued ? 200 : 409,
    });
  });
}
