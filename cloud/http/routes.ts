import type * as z from 'zod';
import type { CloudHealth } from '../../shared/index.ts';
import type { RouteHandlers } from '../../edge/http/route-table.ts';
import type { RateLimitConfig } from '../../edge/settings.ts';
import type { CallLimit } from '../../edge/http/rate-limit.ts';
import { metricsHandler, type MetricsAccess } from '../../edge/http/metrics-endpoint.ts';
import { accountHandlers } from './account-routes.ts';
import { keyedRoute } from './auth.ts';
import { billingHandlers, type StripeWebhook } from './billing-routes.ts';
import { invoiceHandlers } from './invoice-routes.ts';
import { keyHandlers } from './key-routes.ts';
import { mcpRouteHandlers, type McpRouteDeps } from './mcp-routes.ts';
import { invoiceLimit, signupLimit } from './route-limits.ts';
import { webhookHandlers } from './webhook-routes.ts';

export interface CloudRouteDeps extends McpRouteDeps {
  health: () => Promise<z.infer<typeof CloudHealth>>;
  invoiceRateLimit: number | null;
  signupRateLimit: RateLimitConfig;
  /** Stripe's event delivery (raw body + Stripe-Signature); null: card billing off. */
  stripeWebhook: StripeWebhook;
  /** Who may read GET /metrics (METRICS_TOKEN, or callers on this host). */
  metricsAccess: MetricsAccess;
  /** Requests to the public x402 URLs, per client IP, in windows every instance shares. */
  x402Limit: CallLimit;
  /** Requests to the public x402 URLs by the invoice's merchant: its plan's share, the Free plans', everyone's. */
  x402ShareLimit: CallLimit;
}

/** Cloud's `/api/v1` routes by operation id (the documents and the checkout page are added by the app). */
export function cloudHandlers(deps: CloudRouteDeps): RouteHandlers {
  const { cloud } = deps;
  const keyed = keyedRoute(deps.db);
  const invoiceCreates = invoiceLimit(deps);
  return {
    ...accountHandlers(cloud.accounts, keyed, signupLimit(deps)),
    ...keyHandlers(cloud.keys, keyed),
    ...invoiceHandlers({ invoices: cloud.invoices, publicInvoices: cloud.publicInvoices, keyed, invoiceLimit: invoiceCreates, x402: deps.x402, x402Limit: deps.x402Limit, x402ShareLimit: deps.x402ShareLimit, clock: deps.clock, logger: deps.logger }),
    ...webhookHandlers(cloud.webhooks, keyed),
    ...billingHandlers(cloud.billing, keyed, deps.stripeWebhook),
    ...mcpRouteHandlers(deps, invoiceCreates),
    getMetrics: metricsHandler(deps.metrics, deps.metricsAccess),
    cloudHealth: async (ctx) => {
      ctx.set('Cache-Control', 'no-store');
      ctx.body = await deps.health();
    },
  };
}
