import type { Kysely } from 'kysely';
import type { Clock } from '../../core/clock.ts';
import type { CloudTables } from '../storage/cloud.tables.ts';
import type { MerchantRow } from '../merchants/merchant.repository.ts';
import { openCardPortal, paymentMethods, startCheckout, type BillingDeps } from './billing.ts';
import { findCardSubscription } from './card-subscription.ts';
import { planCatalogue } from './plans.ts';

export interface BillingServiceDeps {
  db: Kysely<CloudTables>;
  clock: Clock;
  billing: Omit<BillingDeps, 'db'>;
}

/** The plans on offer, and a merchant paying for one (crypto invoice or card subscription). */
export function createBillingService(deps: BillingServiceDeps) {
  const { db, clock } = deps;
  return {
    plans() {
      return { plans: [...planCatalogue], payment_methods: paymentMethods(deps.billing), transaction_fee: 0 };
    },

    checkout: (merchant: MerchantRow, body: unknown) => startCheckout({ db, ...deps.billing }, merchant.merchant_id, body, clock.now()),

    /** The running card subscription, and whether the processor offers a page to manage it. */
    async cardSubscription(merchant: MerchantRow) {
      const subscription = await findCardSubscription(db, merchant.merchant_id);
      return subscription && { ...subscription, manageable: Boolean(deps.billing.card?.openPortal && subscription.customerId) };
    },

    cardPortal: (merchant: MerchantRow) => openCardPortal({ db, ...deps.billing }, merchant.merchant_id),
  };
}

export type BillingService = ReturnType<typeof createBillingService>;
