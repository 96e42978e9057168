import type { Kysely } from 'kysely';
import type { CloudTables } from '../storage/cloud.tables.ts';

/** What the dashboard shows of a merchant's running card subscription (not part of GET /me, whose fields the spec fixes). */
export interface CardSubscription {
  plan: string;
  /** Stripe's status as last reported (`past_due` while it retries a declined card); null before any update. */
  providerStatus: string | null;
  /** A declined charge not followed by a paid invoice (epoch ms). */
  paymentFailedAt: number | null;
  /** A scheduled cancellation (epoch ms). */
  cancelsAt: number | null;
  /** The processor's customer, whose portal manages the card; null when the processor did not report one. */
  customerId: string | null;
}

const ms = (value: number | null) => (value === null ? null : Number(value));

/** The merchant's latest card purchase that Stripe has not ended, if any. */
export async function findCardSubscription(db: Kysely<CloudTables>, merchantId: string): Promise<CardSubscription | null> {
  const row = await db
    .selectFrom('cloud_subscriptions')
    .select(['plan', 'provider_status', 'payment_failed_at', 'cancels_at', 'provider_customer_id'])
    .where('merchant_id', '=', merchantId)
    .where('method', '=', 'card')
    .where('status', '=', 'applied')
    .orderBy('applied_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (!row) return null;
  return {
    plan: row.plan,
    providerStatus: row.provider_status,
    paymentFailedAt: ms(row.payment_failed_at),
    cancelsAt: ms(row.cancels_at),
    customerId: row.provider_customer_id,
  };
}
