import type { Kysely } from 'kysely';
import type Stripe from 'stripe';
import type { Tables } from '../db/tables.ts';
import { ServiceError } from '../errors.ts';
import type { Logger } from '../log.ts';
import { updateMerchantPlan } from './billing.ts';
import { applyCardPeriod, applyPaidPeriod, PAID_PERIOD_MS, type PaidPlan } from './plans.ts';

/** Stripe events run to tens of KB (expanded line items); the generic 16 KB JSON limit is too small. */
export const STRIPE_WEBHOOK_MAX_BYTES = 512 * 1024;

/** Stripe's default: a signed delivery older than 5 minutes is refused (replay of a captured request). */
const SIGNATURE_TOLERANCE_S = 300;

export interface StripeWebhookDeps {
  db: Kysely<Tables>;
  stripe: Stripe;
  webhookSecret: string;
  logger: Logger;
}

export type StripeEventOutcome = 'applied' | 'renewed' | 'ended' | 'ignored' | 'duplicate';

/** Verifies `Stripe-Signature` over the exact raw body (and its age at `now`, epoch ms), then applies the event once. */
export async function receiveStripeWebhook(deps: StripeWebhookDeps, rawBody: string, signature: string, now: number): Promise<StripeEventOutcome> {
  let event: Stripe.Event;
  try {
    // The signature's age is judged against the injected clock, not the process clock.
    event = deps.stripe.webhooks.constructEvent(rawBody, signature, deps.webhookSecret, SIGNATURE_TOLERANCE_S, undefined, now);
  } catch {
    throw new ServiceError('bad_body', 'The Stripe-Signature header does not verify for this body.');
  }
  const outcome = await applyStripeEvent(deps.db, event, now);
  deps.logger.info('stripe event', { event_id: event.id, type: event.type, outcome });
  return outcome;
}

/**
 * Idempotent per Stripe event id: the id is recorded in the same transaction as the plan change,
 * so a redelivery (Stripe retries until it sees a 2xx) finds it and changes nothing.
 */
export async function applyStripeEvent(db: Kysely<Tables>, event: Stripe.Event, now: number): Promise<StripeEventOutcome> {
  return db.transaction().execute(async (trx) => {
    const fresh = await trx
      .insertInto('cloud_stripe_events')
      .values({ event_id: event.id, type: event.type, received_at: now })
      .onConflict((oc) => oc.column('event_id').doNothing())
      .returning('event_id')
      .executeTakeFirst();
    if (!fresh) return 'duplicate';
    const at = event.created * 1000;
    switch (event.type) {
      case 'checkout.session.completed':
        return (await startCardPlan(trx, event.data.object, at)) ? 'applied' : 'ignored';
      case 'invoice.paid':
        return (await renewCardPlan(trx, event.data.object, at)) ? 'renewed' : 'ignored';
      case 'customer.subscription.deleted':
        return (await endCardPlan(trx, event.data.object.id)) ? 'ended' : 'ignored';
      default:
        return 'ignored';
    }
  });
}

const idOf = (ref: string | { id: string } | null | undefined) => (typeof ref === 'string' ? ref : (ref?.id ?? null));

/** The first month: the session our checkout opened is paid; its Stripe subscription is remembered for renewals. */
async function startCardPlan(trx: Kysely<Tables>, session: Stripe.Checkout.Session, paidAt: number): Promise<boolean> {
  const purchaseId = session.client_reference_id;
  const stripeSubscription = idOf(session.subscription);
  if (session.mode !== 'subscription' || session.payment_status !== 'paid' || !purchaseId || !stripeSubscription) return false;
  const purchase = await trx
    .updateTable('cloud_subscriptions')
    .set({ status: 'applied', applied_at: paidAt, provider_subscription_id: stripeSubscription })
    .where('subscription_id', '=', purchaseId)
    .where('method', '=', 'card')
    .where('status', '=', 'pending')
    .returning(['merchant_id', 'plan'])
    .executeTakeFirst();
  if (!purchase) return false;
  // The session does not carry the billed period: a month from payment, as for crypto; the
  // subscription's first invoice.paid (which may come before or after) brings the exact end.
  const plan = purchase.plan as PaidPlan;
  await updateMerchantPlan(trx, purchase.merchant_id, (current) => applyCardPeriod(current, plan, applyPaidPeriod(current, plan, paidAt).expiresAt!, paidAt));
  return true;
}

/**
 * Stripe charges the card every month and reports it as `invoice.paid`; the plan then runs to
 * the end of the billed period (plus grace). Setting an end rather than adding a month means the
 * first invoice, which checkout.session.completed already counted, adds nothing.
 */
async function renewCardPlan(trx: Kysely<Tables>, invoice: Stripe.Invoice, paidAt: number): Promise<boolean> {
  if (!invoice.billing_reason?.startsWith('subscription')) return false;
  // Webhook endpoints on API versions before 2025-03-31 put the subscription on the invoice itself.
  const legacy = (invoice as unknown as { subscription?: string | { id: string } | null }).subscription;
  const stripeSubscription = idOf(invoice.parent?.subscription_details?.subscription) ?? idOf(legacy);
  if (!stripeSubscription) return false;
  const purchase = await trx
    .selectFrom('cloud_subscriptions')
    .select(['merchant_id', 'plan'])
    .where('provider_subscription_id', '=', stripeSubscription)
    .where('status', '=', 'applied')
    .executeTakeFirst();
  if (!purchase) return false;
  const periodEnds = (invoice.lines?.data ?? []).map((line) => line.period?.end ?? 0).filter((end) => end > 0);
  const paidUntil = periodEnds.length ? Math.max(...periodEnds) * 1000 : paidAt + PAID_PERIOD_MS;
  await updateMerchantPlan(trx, purchase.merchant_id, (current) => applyCardPeriod(current, purchase.plan as PaidPlan, paidUntil, paidAt));
  return true;
}

/** Cancelled or unpaid to the end: the card plan stops now and the merchant is back on Free. */
async function endCardPlan(trx: Kysely<Tables>, stripeSubscription: string): Promise<boolean> {
  const purchase = await trx
    .updateTable('cloud_subscriptions')
    .set({ status: 'ended' })
    .where('provider_subscription_id', '=', stripeSubscription)
    .where('status', '=', 'applied')
    .returning(['merchant_id', 'plan'])
    .executeTakeFirst();
  if (!purchase) return false;
  // Only the plan this subscription paid for; a different plan bought since (e.g. with crypto) stays.
  await trx
    .updateTable('cloud_merchants')
    .set({ plan: 'free', plan_expires_at: null })
    .where('merchant_id', '=', purchase.merchant_id)
    .where('plan', '=', purchase.plan)
    .execute();
  return true;
}
