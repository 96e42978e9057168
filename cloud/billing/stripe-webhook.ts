import type { Kysely } from 'kysely';
import type Stripe from 'stripe';
import type { CloudTables } from '../storage/cloud.tables.ts';
import { ServiceError } from '../../core/errors.ts';
import type { Logger } from '../../core/log.ts';
import { updateMerchantPlan } from './billing.ts';
import { applyCardPeriod, applyPaidPeriod, PAID_PERIOD_MS, switchCardPlan, type PaidPlan } from './plans.ts';
import { planOfStripePrice } from './stripe-price-plan.ts';

/** Stripe events run to tens of KB (expanded line items); the generic 16 KB JSON limit is too small. */
export const STRIPE_WEBHOOK_MAX_BYTES = 512 * 1024;

/** Stripe's default: a signed delivery older than 5 minutes is refused (replay of a captured request). */
const SIGNATURE_TOLERANCE_S = 300;

/** What applying an event needs: the database, the configured Price ids (to read a plan change), and a log. */
export interface StripeEventDeps {
  db: Kysely<CloudTables>;
  priceIds: Partial<Record<PaidPlan, string>>;
  logger: Logger;
}

export interface StripeWebhookDeps extends StripeEventDeps {
  stripe: Stripe;
  webhookSecret: string;
}

export type StripeEventOutcome = 'applied' | 'renewed' | 'payment_failed' | 'updated' | 'ended' | 'stale' | 'ignored' | 'duplicate';

/** Verifies `Stripe-Signature` over the exact raw body (and its age at `now`, epoch ms), then applies the event once. */
export async function receiveStripeWebhook(deps: StripeWebhookDeps, rawBody: string, signature: string, now: number): Promise<StripeEventOutcome> {
  let event: Stripe.Event;
  try {
    // The signature's age is judged against the injected clock, not the process clock.
    event = deps.stripe.webhooks.constructEvent(rawBody, signature, deps.webhookSecret, SIGNATURE_TOLERANCE_S, undefined, now);
  } catch {
    throw new ServiceError('bad_body', 'The Stripe-Signature header does not verify for this body.');
  }
  const outcome = await applyStripeEvent(deps, event, now);
  deps.logger.info('stripe event', { event_id: event.id, type: event.type, outcome });
  return outcome;
}

/**
 * Idempotent per Stripe event id: the id is recorded in the same transaction as the plan change,
 * so a redelivery (Stripe retries until it sees a 2xx) finds it and changes nothing.
 */
export async function applyStripeEvent(deps: StripeEventDeps, event: Stripe.Event, now: number): Promise<StripeEventOutcome> {
  return deps.db.transaction().execute(async (trx) => {
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
      case 'invoice.payment_failed':
        return recordFailedCharge(trx, event.data.object, at);
      case 'customer.subscription.updated':
        return updateCardSubscription({ ...deps, db: trx }, event, at);
      case 'customer.subscription.deleted':
        return (await endCardPlan(trx, event.data.object.id)) ? 'ended' : 'ignored';
      default:
        return 'ignored';
    }
  });
}

const idOf = (ref: string | { id: string } | null | undefined) => (typeof ref === 'string' ? ref : (ref?.id ?? null));

/** The first month: the session our checkout opened is paid; its Stripe subscription is remembered for renewals. */
async function startCardPlan(trx: Kysely<CloudTables>, session: Stripe.Checkout.Session, paidAt: number): Promise<boolean> {
  const purchaseId = session.client_reference_id;
  const stripeSubscription = idOf(session.subscription);
  if (session.mode !== 'subscription' || session.payment_status !== 'paid' || !purchaseId || !stripeSubscription) return false;
  const purchase = await trx
    .updateTable('cloud_subscriptions')
    .set({ status: 'applied', applied_at: paidAt, provider_subscription_id: stripeSubscription, provider_customer_id: idOf(session.customer) })
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
async function renewCardPlan(trx: Kysely<CloudTables>, invoice: Stripe.Invoice, paidAt: number): Promise<boolean> {
  const purchase = await appliedPurchaseOfInvoice(trx, invoice);
  if (!purchase) return false;
  const periodEnds = (invoice.lines?.data ?? []).map((line) => line.period?.end ?? 0).filter((end) => end > 0);
  const paidUntil = periodEnds.length ? Math.max(...periodEnds) * 1000 : paidAt + PAID_PERIOD_MS;
  await updateMerchantPlan(trx, purchase.merchant_id, (current) => applyCardPeriod(current, purchase.plan as PaidPlan, paidUntil, paidAt));
  // A failure reported before this payment is over; one reported after it (a later charge) stays.
  const failedAt = purchase.payment_failed_at === null ? null : Number(purchase.payment_failed_at);
  await trx
    .updateTable('cloud_subscriptions')
    .set({ last_paid_at: Math.max(paidAt, Number(purchase.last_paid_at ?? 0)), payment_failed_at: failedAt !== null && failedAt <= paidAt ? null : failedAt })
    .where('subscription_id', '=', purchase.subscription_id)
    .execute();
  return true;
}

/**
 * A renewal charge was declined. Stripe retries it (smart retries) and finally cancels the
 * subscription or marks it unpaid, as its settings say. The plan is not touched: it keeps running
 * to the end of the period already paid plus the grace, and a successful retry renews it as any
 * payment does. The failure is kept for the dashboard until a later payment.
 */
async function recordFailedCharge(trx: Kysely<CloudTables>, invoice: Stripe.Invoice, failedAt: number): Promise<StripeEventOutcome> {
  const purchase = await appliedPurchaseOfInvoice(trx, invoice);
  if (!purchase) return 'ignored';
  // Stripe does not promise order: a failure delivered after a later payment is already settled.
  if (purchase.last_paid_at !== null && Number(purchase.last_paid_at) > failedAt) return 'stale';
  await trx.updateTable('cloud_subscriptions').set({ payment_failed_at: failedAt }).where('subscription_id', '=', purchase.subscription_id).execute();
  return 'payment_failed';
}

/** The applied card purchase a subscription invoice belongs to. */
async function appliedPurchaseOfInvoice(trx: Kysely<CloudTables>, invoice: Stripe.Invoice) {
  if (!invoice.billing_reason?.startsWith('subscription')) return undefined;
  // Webhook endpoints on API versions before 2025-03-31 put the subscription on the invoice itself.
  const legacy = (invoice as unknown as { subscription?: string | { id: string } | null }).subscription;
  const stripeSubscription = idOf(invoice.parent?.subscription_details?.subscription) ?? idOf(legacy);
  return stripeSubscription ? appliedPurchase(trx, stripeSubscription) : undefined;
}

function appliedPurchase(trx: Kysely<CloudTables>, stripeSubscription: string) {
  return trx
    .selectFrom('cloud_subscriptions')
    .select(['subscription_id', 'merchant_id', 'plan', 'provider_updated_at', 'payment_failed_at', 'last_paid_at'])
    .where('provider_subscription_id', '=', stripeSubscription)
    .where('status', '=', 'applied')
    .executeTakeFirst();
}

const ENDED_STATUSES = new Set(['canceled', 'incomplete_expired']);

/**
 * The subscription changed in Stripe (customer portal, dashboard, or Stripe's own retries): its
 * price (a plan change), a scheduled cancellation, or its status. The event carries the whole
 * subscription, so the newest one wins and an older one delivered late is stale.
 */
async function updateCardSubscription(deps: StripeEventDeps, event: Stripe.CustomerSubscriptionUpdatedEvent, at: number): Promise<StripeEventOutcome> {
  const subscription = event.data.object;
  const purchase = await appliedPurchase(deps.db, subscription.id);
  if (!purchase) return 'ignored';
  if (purchase.provider_updated_at !== null && Number(purchase.provider_updated_at) > at) return 'stale';
  if (ENDED_STATUSES.has(subscription.status)) return (await endCardPlan(deps.db, subscription.id)) ? 'ended' : 'ignored';
  const item = subscription.items?.data?.[0];
  const plan = item ? planOfStripePrice(item.price, deps.priceIds) : null;
  if (!item || !plan) {
    // Ids only: a Price is not a secret, and the operator needs it to set STRIPE_PRICE_*.
    deps.logger.warn('stripe price not mapped to a plan', { event_id: event.id, stripe_subscription: subscription.id, price: item?.price.id ?? null });
    return 'ignored';
  }
  // Webhook endpoints on API versions before 2025-03-31 put the period on the subscription itself.
  const legacyEnd = (subscription as unknown as { current_period_end?: number }).current_period_end;
  const periodEnd = item.current_period_end ?? legacyEnd ?? null;
  const cancelsAt = subscription.cancel_at ? subscription.cancel_at * 1000 : subscription.cancel_at_period_end && periodEnd ? periodEnd * 1000 : null;
  await deps.db
    .updateTable('cloud_subscriptions')
    .set({ plan, provider_status: subscription.status, provider_updated_at: at, cancels_at: cancelsAt, provider_customer_id: idOf(subscription.customer) })
    .where('subscription_id', '=', purchase.subscription_id)
    .execute();
  if (plan !== purchase.plan) await updateMerchantPlan(deps.db, purchase.merchant_id, (current) => switchCardPlan(current, purchase.plan as PaidPlan, plan, at));
  return 'updated';
}

/** Cancelled or unpaid to the end: the card plan stops now and the merchant is back on Free. */
async function endCardPlan(trx: Kysely<CloudTables>, stripeSubscription: string): Promise<boolean> {
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
