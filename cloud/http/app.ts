import Koa from 'koa';
import type { HttpBounds, RateLimitConfig } from '../../edge/settings.ts';
import { errorMiddleware } from '../../edge/http/error-middleware.ts';
import { requestContext } from '../../edge/http/request-context.ts';
import { wellFormedRequest } from '../../edge/http/well-formed.ts';
import { documentHandlers } from '../../edge/http/serve.ts';
import { tableRouter } from '../../edge/http/route-table.ts';
import { checkoutRoutes } from '../../edge/checkout/routes.ts';
import { mcpPreflight } from '../../edge/http/mcp-endpoint.ts';
import { httpMetrics } from '../../edge/http/metrics-endpoint.ts';
import { cloudHandlers, type CloudRouteDeps } from './routes.ts';
import { checkoutPreflight } from './invoice-routes.ts';
import { signupLimit } from './route-limits.ts';
import { dashboardRoutes } from '../dashboard/routes.ts';
import { createSessionStore } from '../dashboard/session-store.ts';
import { createSharedRateLimiter } from './shared-rate-limiter.ts';
import { signInThrottle as signInThrottleOf } from '../../edge/http/sign-in-throttle.ts';
import { invoiceTenant, shareBounds } from '../billing/plan-shares.ts';

export function createCloudHttpApp(
  deps: CloudRouteDeps & { trustProxy: boolean; signInRateLimit: RateLimitConfig | null; /** Dashboard cookies' `Secure` (secureCookies). */ secureCookies: boolean; /** The checkout streams' caps and lifetime. */ httpBounds: HttpBounds },
): Koa {
  const app = new Koa({ proxy: deps.trustProxy, maxIpsCount: 1 });
  app.silent = true;
  // The hosted page behind `checkout_url`: the listener's page over Cloud's public view.
  const checkoutSource = { view: (invoiceId: string) => deps.cloud.publicInvoices.checkoutView(invoiceId) };
  // A checkout stream is public; it counts within the share of the invoice's merchant.
  const checkoutShares = {
    bounds: shareBounds(deps.fairShares, deps.httpBounds.streamsTotal),
    tenantOf: (invoiceId: string) => invoiceTenant(deps.db, deps.fairShares.checkoutStreams, invoiceId, deps.clock.now()),
  };
  const checkout = checkoutRoutes({
    source: checkoutSource,
    chains: deps.chains,
    logger: deps.logger,
    viewPrefix: '/api/v1/checkout',
    watch: (invoiceId, changed) => deps.feed.watch(invoiceId, changed),
    streams: deps.httpBounds,
    shares: checkoutShares,
  });
  const documents = documentHandlers(deps.documents);
  const router = tableRouter('cloud', { ...cloudHandlers(deps), cloudOpenApi: documents.openapi, cloudLlmsTxt: documents.llms, cloudCheckoutEvents: checkout.events, getCheckoutPage: checkout.page });
  app.use(requestContext(deps.logger, deps.clock));
  app.use(httpMetrics(deps.metrics));
  app.use(errorMiddleware(deps.logger));
  app.use(wellFormedRequest);
  app.use(router.routes());
  app.use(checkoutPreflight().routes());
  app.use(mcpPreflight('/api/v1/mcp', deps.mcpAllowedOrigins, deps.isOwnOrigin).routes());
  app.use(deps.oauth.middleware);
  app.use(checkout.assets.routes());
  const signInThrottle = deps.signInRateLimit && signInThrottleOf((name, config, spareNewClients) => createSharedRateLimiter({ db: deps.db, clock: deps.clock, name, config, spareNewClients }), 'dashboard-signin', deps.signInRateLimit);
  app.use(
    dashboardRoutes({
      cloud: deps.cloud,
      sessions: createSessionStore(deps.db),
      signInThrottle,
      signupLimit: signupLimit(deps),
      clock: deps.clock,
      logger: deps.logger,
      oauthStore: deps.oauth.store,
      secureCookies: deps.secureCookies,
    }).routes(),
  );
  return app;
}
