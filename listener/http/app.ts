import Koa from 'koa';
import type { HttpBounds } from '../../edge/settings.ts';
import type { CheckoutSource } from '../../edge/checkout/checkout-source.ts';
import { checkoutRoutes } from '../../edge/checkout/routes.ts';
import type { Clock } from '../../core/clock.ts';
import type { Logger } from '../../core/log.ts';
import { errorMiddleware } from '../../edge/http/error-middleware.ts';
import { requestContext } from '../../edge/http/request-context.ts';
import { wellFormedRequest } from '../../edge/http/well-formed.ts';
import { listenerHandlers, type RouteDeps } from './routes.ts';
import { tableRouter } from '../../edge/http/route-table.ts';
import { mcpPreflight } from '../../edge/http/mcp-endpoint.ts';
import { httpMetrics } from '../../edge/http/metrics-endpoint.ts';

export interface HttpAppDeps extends RouteDeps {
  logger: Logger;
  clock: Clock;
  trustProxy: boolean;
  checkout: CheckoutSource;
  /** The checkout streams' caps and lifetime. */
  httpBounds: HttpBounds;
}

export function createHttpApp(deps: HttpAppDeps): Koa {
  const app = new Koa({ proxy: deps.trustProxy, maxIpsCount: 1 });
  app.silent = true;
  const checkout = checkoutRoutes({ source: deps.checkout, chains: deps.chains, logger: deps.logger, watch: (invoiceId, changed) => deps.feed.watch(invoiceId, changed), streams: deps.httpBounds });
  const router = tableRouter('listener', { ...listenerHandlers(deps), getCheckoutView: checkout.view, getCheckoutEvents: checkout.events, getCheckoutPage: checkout.page });
  app.use(requestContext(deps.logger, deps.clock));
  app.use(httpMetrics(deps.metrics));
  app.use(errorMiddleware(deps.logger));
  app.use(wellFormedRequest);
  app.use(router.routes());
  app.use(mcpPreflight('/mcp', deps.mcpAllowedOrigins, deps.isOwnOrigin).routes());
  if (deps.oauth) app.use(deps.oauth.middleware);
  app.use(checkout.assets.routes());
  return app;
}
