import Stripe from 'stripe';
import { postJson } from './listener.ts';

export const SECRET_KEY = 'sk_test_51PzTestKey0000000000000000000000';
export const WEBHOOK_SECRET = 'whsec_test0000000000000000000000000000';
export const stripeEnv = {
  STRIPE_SECRET_KEY: SECRET_KEY,
  STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
  STRIPE_SUCCESS_URL: 'https://service.example.com/dashboard?paid={CHECKOUT_SESSION_ID}',
  STRIPE_CANCEL_URL: 'https://service.example.com/dashboard',
};

const seconds = (ms: number) => Math.floor(ms / 1000);

/** A Stripe event envelope as Stripe sends it, around `object`; `createdMs` is its `created`. */
export function stripeEvent(id: string, type: string, createdMs: number, object: Record<string, unknown>) {
  return JSON.stringify({ id, object: 'event', api_version: '2026-10-28.endive', created: seconds(createdMs), type, livemode: false, pending_webhooks: 1, request: { id: null, idempotency_key: null }, data: { object } });
}

/** Posts a Stripe event signed by the SDK's test helper at `at` (epoch ms), or with the given header. */
export async function deliver(baseUrl: string, payload: string, options: { at?: number; secret?: string; signature?: string } = {}) {
  const timestamp = seconds(options.at ?? Date.now());
  const signature = options.signature ?? Stripe.webhooks.generateTestHeaderString({ payload, secret: options.secret ?? WEBHOOK_SECRET, timestamp });
  return postJson(`${baseUrl}/api/v1/billing/stripe-webhook`, payload, { 'Stripe-Signature': signature });
}

/** A subscription invoice event (`invoice.paid`, `invoice.payment_failed`) billing one period. */
export function invoiceEvent(
  id: string,
  type: 'invoice.paid' | 'invoice.payment_failed',
  at: number,
  invoice: { subscription: string; billingReason: string; periodStart: number; periodEnd: number; amountCents: number },
) {
  const failed = type === 'invoice.payment_failed';
  return stripeEvent(id, type, at, {
    id: `in_${id}`,
    object: 'invoice',
    status: failed ? 'open' : 'paid',
    billing_reason: invoice.billingReason,
    amount_due: invoice.amountCents,
    amount_paid: failed ? 0 : invoice.amountCents,
    attempt_count: 1,
    next_payment_attempt: failed ? seconds(at + 3 * 24 * 3600_000) : null,
    currency: 'usd',
    parent: { type: 'subscription_details', quote_details: null, subscription_details: { subscription: invoice.subscription, metadata: {} } },
    status_transitions: { paid_at: failed ? null : seconds(at) },
    lines: {
      object: 'list',
      has_more: false,
      data: [{ id: `il_${id}`, object: 'line_item', amount: invoice.amountCents, period: { start: seconds(invoice.periodStart), end: seconds(invoice.periodEnd) } }],
    },
  });
}

export interface SubscriptionState {
  subscription: string;
  customer: string;
  status: string;
  price: { id: string; unitAmountCents: number; currency?: string; interval?: string };
  periodStart: number;
  periodEnd: number;
  cancelAtPeriodEnd?: boolean;
  cancelAt?: number | null;
}

/** `customer.subscription.updated` carrying the whole subscription, shaped as Stripe's API 2025-03-31+ (period on the item). */
export function subscriptionUpdatedEvent(id: string, at: number, state: SubscriptionState, previous: Record<string, unknown> = {}) {
  const payload = JSON.parse(
    stripeEvent(id, 'customer.subscription.updated', at, {
      id: state.subscription,
      object: 'subscription',
      customer: state.customer,
      status: state.status,
      cancel_at_period_end: state.cancelAtPeriodEnd ?? false,
      cancel_at: state.cancelAt === undefined || state.cancelAt === null ? (state.cancelAtPeriodEnd ? seconds(state.periodEnd) : null) : seconds(state.cancelAt),
      currency: 'usd',
      metadata: {},
      items: {
        object: 'list',
        has_more: false,
        data: [
          {
            id: `si_${state.subscription}`,
            object: 'subscription_item',
            quantity: 1,
            current_period_start: seconds(state.periodStart),
            current_period_end: seconds(state.periodEnd),
            price: {
              id: state.price.id,
              object: 'price',
              active: true,
              currency: state.price.currency ?? 'usd',
              unit_amount: state.price.unitAmountCents,
              type: 'recurring',
              recurring: { interval: state.price.interval ?? 'month', interval_count: 1, usage_type: 'licensed' },
              product: 'prod_TestProduct',
              nickname: null,
              lookup_key: null,
              metadata: {},
            },
          },
        ],
      },
    }),
  );
  payload.data.previous_attributes = previous;
  return JSON.stringify(payload);
}
