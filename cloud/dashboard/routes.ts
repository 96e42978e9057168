import Router from '@koa/router';
import { serveHashedAsset } from '../../edge/checkout/routes.ts';
import { connectedAppPages } from './controllers/apps.ts';
import { invoicePages } from './controllers/invoices.ts';
import { keyPages } from './controllers/keys.ts';
import { overviewPage } from './controllers/overview.ts';
import { planPages } from './controllers/plan.ts';
import { signInPages } from './controllers/sign-in.ts';
import { signUpPages } from './controllers/sign-up.ts';
import { webhookPages } from './controllers/webhooks.ts';
import { lightningPages } from './controllers/lightning.ts';
import { createPageKit, type DashboardDeps } from './page-kit.ts';

/** The merchant dashboard under `/dashboard`, signed in with an API key, over the Cloud service functions. */
export function dashboardRoutes(deps: DashboardDeps): Router {
  const kit = createPageKit(deps);
  const router = new Router({ prefix: '/dashboard' });
  router.use(kit.htmlErrors);
  router.get('/assets/:file', (ctx) => {
    const asset = kit.assets.find((candidate) => candidate.name === ctx.params.file);
    if (asset) serveHashedAsset(ctx, asset);
  });
  for (const pages of [signInPages, signUpPages, overviewPage, invoicePages, webhookPages, lightningPages, keyPages, connectedAppPages, planPages]) pages(router, kit, deps);
  router.get('/{*rest}', (ctx) => kit.message(ctx, 404, 'Page not found', 'There is no dashboard page at this address.'));
  return router;
}
