import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type * as z from 'zod';
import type { BillingCheckoutResponse } from '../../shared/index.ts';
import type { CloudTables } from '../storage/cloud.tables.ts';
import { ServiceError } from '../../core/errors.ts';
import type { Logger } from '../../core/log.ts';
import { findCardSubscription } from './card-subscription.ts';
import { applyPaidPeriod, paidPlan, planOf, type PaidPlan, type PlanName, type PlanState } from './plans.ts';

/** A card processor's hosted checkout (e.g. Stripe Checkout); the service never sees card data. */
export interface CardProcessor {
  /** `checkoutId`: the processor's id for the page (e.g. a Stripe Checkout Session id), kept with the purchase. */
  createCheckout(request: { subscriptionId: string; merchantId: string; plan: PaidPlan; amountUsd: number }): Promise<{ url: string; checkoutId?: string }>;
  /** A page of the processor's where the customer updates the card, changes plan or cancels (Stripe's billing portal). */
  openPortal?(customerId: string): Promise<{ url: string }>;
}

/** Creates the operator-owned Base invoice that pays a plan; returns its id and hosted page. */
export type CreateBillingInvoice = (amountUsd: number) => Promise<{ invoiceId: string; checkoutUrl: string }>;

export interface BillingDeps {
  db: Kysely<CloudTables>;
  logger: Logger;
  /** null: crypto billing is not set up (no operator merchant or no hosted checkout). */
  cryptoInvoice: CreateBillingInvoice | null;
  card: CardProcessor | null;
}

export function paymentMethods(deps: Pick<BillingDeps, 'cryptoInvoice' | 'card'>): ('crypto' | 'card')[] {
  return [...(deps.cryptoInvoice ? (['crypto'] as const) : []), ...(deps.card ? (['card'] as const) : [])];
}

export async function startCheckout(deps: BillingDeps, merchantId: string, body: unknown, now: number): Promise<z.infer<typeof BillingCheckoutResponse>> {
  const fields = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const plan = paidPlan(fields.plan);
  const method = fields.method ?? 'crypto';
  if (method !== 'crypto' && method !== 'card') throw new ServiceError('unknown_plan', 'method must be "crypto" or "card".');
  const amountUsd = planOf(plan).price_usd_per_month;
  const subscriptionId = `sub_${randomBytes(12).toString('base64url')}`;
  let invoiceId: string | null = null;
  let checkoutId: string | null = null;
  let checkoutUrl: string;
  if (method === 'crypto') {
    if (!deps.cryptoInvoice) throw new ServiceError('method_unavailable', 'Crypto billing is not set up on this service.');
    ({ invoiceId, checkoutUrl } = await deps.cryptoInvoice(amountUsd));
  } else {
    if (!deps.card) throw new ServiceError('method_unavailable', 'Card payments are not available on this service; pay with crypto.');
    try {
      const page = await deps.card.createCheckout({ subscriptionId, merchantId, plan, amountUsd });
      checkoutUrl = page.url;
      checkoutId = page.checkoutId ?? null;
    } catch (error) {
      deps.logger.warn('card processor failed', { error: String(error), subscription_id: subscriptionId });
      throw new ServiceError('card_provider_error', 'The card processor did not answer; retry later or pay with crypto.');
    }
  }
  await deps.db
    .insertInto('cloud_subscriptions')
    .values({ subscription_id: subscriptionId, merchant_id: merchantId, plan, method, amount_usd: amountUsd, invoice_id: invoiceId, provider_checkout_id: checkoutId, status: 'pending', created_at: now, applied_at: null })
    .execute();
  return { subscription_id: subscriptionId, method, plan, amount_usd: amountUsd, ...(invoiceId ? { invoice_id: invoiceId } : {}), checkout_url: checkoutUrl };
}

/** The processor's own page for the merchant's running card subscription (update the card, change plan, cancel). */
export async function openCardPortal(deps: BillingDeps, merchantId: string): Promise<{ url: string }> {
  const subscription = await findCardSubscription(deps.db, merchantId);
  if (!deps.card?.openPortal || !subscription?.customerId) throw new ServiceError('method_unavailable', 'There is no card subscription to manage on this account.');
  try {
    return await deps.card.openPortal(subscription.customerId);
  } catch (error) {
    deps.logger.warn('card processor portal failed', { error: String(error), merchant_id: merchantId });
    throw new ServiceError('card_provider_error', 'The card processor did not answer; retry later.');
  }
}

/**
 * Applies plan purchases whose operator invoice has confirmed: each exactly once (the guarded
 * status update), in the same transaction as the plan change, on whichever instance gets there.
 */
export async function applyConfirmedPurchases(db: Kysely<CloudTables>, billingMerchantId: string, now: number): Promise<number> {
  const due = await db
    .selectFrom('cloud_subscriptions')
    .innerJoin('invoices', 'invoices.invoice_id', 'cloud_subscriptions.invoice_id')
    .select(['cloud_subscriptions.subscription_id', 'cloud_subscriptions.merchant_id', 'cloud_subscriptions.plan', 'invoices.paid_at'])
    .where('cloud_subscriptions.status', '=', 'pending')
    .where('invoices.merchant_id', '=', billingMerchantId)
    .where('invoices.status', '=', 'confirmed')
    .execute();
  let applied = 0;
  for (const purchase of due) {
    await db.transaction().execute(async (trx) => {
      const won = await trx
        .updateTable('cloud_subscriptions')
        .set({ status: 'applied', applied_at: now })
        .where('subscription_id', '=', purchase.subscription_id)
        .where('status', '=', 'pending')
        .returning('subscription_id')
        .executeTakeFirst();
      if (!won) return;
      await updateMerchantPlan(trx, purchase.merchant_id, (current) => applyPaidPeriod(current, purchase.plan as PaidPlan, Number(purchase.paid_at ?? now)));
      applied++;
    });
  }
  return applied;
}

/** Sets the merchant's plan to `next(current)`; call inside the transaction that records the payment. */
export async function updateMerchantPlan(trx: Kysely<CloudTables>, merchantId: string, next: (current: PlanState) => PlanState): Promise<void> {
  const merchant = await trx.selectFrom('cloud_merchants').select(['plan', 'plan_expires_at']).where('merchant_id', '=', merchantId).executeTakeFirstOrThrow();
  const plan = next({ plan: merchant.plan as PlanName, expiresAt: merchant.plan_expires_at === null ? null : Number(merchant.plan_expires_at) });
  await trx.updateTable('cloud_merchants').set({ plan: plan.plan, plan_expires_at: plan.expiresAt }).where('merchant_id', '=', merchantId).execute();
}
