import type { Kysely } from 'kysely';
import type { OptInWebhookEvent } from '../../shared/index.ts';
import type { EventSubscriptions } from '../../core/events/lifecycle-events.ts';
import type { CloudTables } from '../storage/cloud.tables.ts';
import { ServiceError } from '../../core/errors.ts';
import type { ClaimScope } from '../../core/webhooks/delivery-store.ts';
import type { DeliveryTarget } from '../../core/webhooks/delivery-worker.ts';
import { findMerchant } from '../merchants/merchant.repository.ts';
import { checkWebhookUrl, pinnedLookup, type WebhookTargetPolicy } from '../../core/net/webhook-target.ts';

/** Cloud delivers the events of every merchant that has saved a webhook URL. */
export const cloudClaimScope: ClaimScope = {
  merchantsSelectedBy: (db: Kysely<CloudTables>) => db.selectFrom('cloud_merchants').select('merchant_id').where('webhook_url', 'is not', null),
};

/**
 * Each Cloud delivery goes to the merchant's saved URL, signed with its current secret. The URL is
 * checked again (resolved, every address public) right before the attempt and the connection is
 * pinned to the checked address; a URL that no longer passes fails the attempt, which is retried
 * on the normal schedule.
 */
export function cloudDeliveryTarget(db: Kysely<CloudTables>, policy: WebhookTargetPolicy): (merchantId: string) => Promise<DeliveryTarget> {
  return async (merchantId) => {
    const merchant = await findMerchant(db, merchantId);
    if (!merchant?.webhook_url || !merchant.webhook_secret) return { error: 'no webhook URL saved' };
    try {
      const target = await checkWebhookUrl(merchant.webhook_url, policy);
      return { url: target.url, secret: merchant.webhook_secret, lookup: pinnedLookup(target.address) };
    } catch (error) {
      if (error instanceof ServiceError) return { error: `refused before sending: ${error.message}` };
      throw error;
    }
  };
}

/** The opt-in events a merchant row subscribes to (stored space-separated; null: none). */
export const webhookEventsOf = (row: { webhook_events: string | null }): OptInWebhookEvent[] =>
  row.webhook_events ? (row.webhook_events.split(' ') as OptInWebhookEvent[]) : [];

/** Merchants per query: far below any driver's limit on bound parameters, however many one expiry sweep touches. */
const MERCHANTS_PER_QUERY = 500;

/** Each merchant's saved opt-in events, read in the transaction that changes the status. */
export const cloudEventSubscriptions: EventSubscriptions = async (trx, merchantIds) => {
  const subscribed = new Map<string, Set<OptInWebhookEvent>>();
  for (let i = 0; i < merchantIds.length; i += MERCHANTS_PER_QUERY) {
    const rows = await (trx as unknown as Kysely<CloudTables>)
      .selectFrom('cloud_merchants')
      .select(['merchant_id', 'webhook_events'])
      .where('merchant_id', 'in', merchantIds.slice(i, i + MERCHANTS_PER_QUERY))
      .where('webhook_events', 'is not', null)
      .execute();
    for (const row of rows) subscribed.set(row.merchant_id, new Set(webhookEventsOf(row)));
  }
  return subscribed;
};
