import type Stripe from 'stripe';
import type { CardProcessor } from './billing.ts';
import type { PaidPlan } from './plans.ts';

export interface StripeCheckoutSettings {
  successUrl: string;
  cancelUrl: string;
  /** Stripe Price ids per plan; a plan without one is billed with inline price_data from the catalogue. */
  priceIds: Partial<Record<PaidPlan, string>>;
}

/**
 * Card plans through Stripe Checkout in subscription mode: the buyer types the card on Stripe's
 * page, so the service never sees card data. Our purchase id travels as `client_reference_id`
 * and in metadata so the webhook can tie Stripe's events back to it.
 */
export function createStripeCardProcessor(stripe: Stripe, settings: StripeCheckoutSettings): CardProcessor {
  return {
    async createCheckout({ subscriptionId, merchantId, plan, amountUsd }) {
      const metadata = { subscription_id: subscriptionId, merchant_id: merchantId, plan };
      const priceId = settings.priceIds[plan];
      const session = await stripe.checkout.sessions.create(
        {
          mode: 'subscription',
          line_items: [
            priceId
              ? { price: priceId, quantity: 1 }
              : {
                  quantity: 1,
                  price_data: {
                    currency: 'usd',
                    // Catalogue prices are whole dollars, so cents are an exact integer.
                    unit_amount: amountUsd * 100,
                    recurring: { interval: 'month' },
                    product_data: { name: `Service Cloud ${plan}` },
                  },
                },
          ],
          success_url: settings.successUrl,
          cancel_url: settings.cancelUrl,
          client_reference_id: subscriptionId,
          metadata,
          subscription_data: { metadata },
        },
        // A retried request (network blip) cannot open a second session for the same purchase.
        { idempotencyKey: subscriptionId },
      );
      if (!session.url) throw new Error(`Stripe returned checkout session ${session.id} without a url`);
      return { url: session.url, checkoutId: session.id };
    },

    /** Stripe's billing portal, as the operator configured it in the Stripe dashboard; it returns the buyer to the dashboard. */
    async openPortal(customerId) {
      const session = await stripe.billingPortal.sessions.create({ customer: customerId, return_url: settings.cancelUrl });
      return { url: session.url };
    },
  };
}
