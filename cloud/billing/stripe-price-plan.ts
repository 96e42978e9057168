import type Stripe from 'stripe';
import { planCatalogue, type PaidPlan } from './plans.ts';

/**
 * Which of our plans a Stripe Price bills, or null when it is none of ours.
 *
 * A configured Price id (STRIPE_PRICE_STARTER / STRIPE_PRICE_PRO) names its plan. For a plan without
 * one, the card processor bills inline `price_data`, and Stripe makes a fresh Price of it whose id,
 * nickname and metadata we never chose (the product name is not in the event either); such a Price
 * is known by the exact terms the processor set: USD, every one month, the catalogue amount in cents.
 * A plan with a configured id is only ever billed by that id, so any other Price is not ours.
 */
export function planOfStripePrice(price: Pick<Stripe.Price, 'id' | 'currency' | 'unit_amount' | 'recurring'>, priceIds: Partial<Record<PaidPlan, string>>): PaidPlan | null {
  for (const [plan, id] of Object.entries(priceIds) as [PaidPlan, string | undefined][]) if (id && id === price.id) return plan;
  const monthly = price.recurring?.interval === 'month' && (price.recurring.interval_count ?? 1) === 1;
  if (!monthly || price.currency !== 'usd' || price.unit_amount === null) return null;
  const match = planCatalogue.find((plan) => plan.plan !== 'free' && !priceIds[plan.plan] && plan.price_usd_per_month * 100 === price.unit_amount);
  return (match?.plan as PaidPlan | undefined) ?? null;
}
