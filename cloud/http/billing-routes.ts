import type { RouteHandlers } from '../../edge/http/route-table.ts';
import { ServiceError } from '../../core/errors.ts';
import { readBodyText, readJsonBody } from '../../edge/http/json-body.ts';
import type { BillingService } from '../billing/billing-service.ts';
import { STRIPE_WEBHOOK_MAX_BYTES, type StripeEventOutcome } from '../billing/stripe-webhook.ts';
import type { KeyedRoute } from './auth.ts';

/** Stripe's event delivery (raw body + Stripe-Signature); null: card billing off. */
export type StripeWebhook = ((rawBody: string, signature: string) => Promise<StripeEventOutcome>) | null;

/** The plans, paying for one, and the card processor's events. */
export function billingHandlers(billing: BillingService, keyed: KeyedRoute, stripeWebhook: StripeWebhook): RouteHandlers {
  return {
    cloudPlans: (ctx) => {
      ctx.body = billing.plans();
    },
    cloudBillingCheckout: [
      ...keyed('cloudBillingCheckout'),
      async (ctx) => {
        ctx.body = await billing.checkout(ctx.state.merchant, await readJsonBody(ctx));
      },
    ],
    cloudStripeWebhook: async (ctx) => {
      if (!stripeWebhook) throw new ServiceError('method_unavailable', 'Card payments are not set up on this service.');
      // Verified over the exact bytes Stripe signed, so the body is read raw, never re-serialised.
      const rawBody = await readBodyText(ctx, STRIPE_WEBHOOK_MAX_BYTES);
      ctx.body = { received: true, outcome: await stripeWebhook(rawBody, ctx.get('Stripe-Signature')) };
    },
  };
}
