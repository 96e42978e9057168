import type { RouteHandlers } from '../../edge/http/route-table.ts';
import { readJsonBody } from '../../edge/http/json-body.ts';
import type { WebhookService } from '../invoices/webhook-service.ts';
import type { KeyedRoute } from './auth.ts';

/** The merchant's webhook URL, saved with a new signing secret. */
export function webhookHandlers(webhooks: WebhookService, keyed: KeyedRoute): RouteHandlers {
  return {
    cloudSetWebhook: [
      ...keyed('cloudSetWebhook'),
      async (ctx) => {
        ctx.body = await webhooks.set(ctx.state.merchant, await readJsonBody(ctx));
      },
    ],
  };
}
