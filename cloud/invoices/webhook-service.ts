import type { Kysely } from 'kysely';
import type { Clock } from '../../core/clock.ts';
import { ServiceError } from '../../core/errors.ts';
import { checkWebhookUrl, type WebhookTargetPolicy } from '../../core/net/webhook-target.ts';
import { listDeliveries, resendDeliveries } from '../../core/webhooks/delivery-store.ts';
import { newWebhookSecret } from '../../core/webhooks/signature.ts';
import type { CloudTables } from '../storage/cloud.tables.ts';
import { findMerchant, saveWebhook, type MerchantRow } from '../merchants/merchant.repository.ts';
import { optInWebhookEvents, type OptInWebhookEvent } from '../../shared/index.ts';
import { optInEventsFrom } from '../../core/events/lifecycle-events.ts';
import { webhookEventsOf } from './webhook-delivery.ts';

export interface WebhookServiceDeps {
  db: Kysely<CloudTables>;
  clock: Clock;
  webhookPolicy: WebhookTargetPolicy;
}

/** Where a merchant's invoice events go, signed with which secret, and how their deliveries went. */
export function createWebhookService(deps: WebhookServiceDeps) {
  const { db, clock } = deps;

  async function set(merchant: MerchantRow, body: unknown) {
    const { webhook_url: url, webhook_events: names } = (body ?? {}) as { webhook_url?: unknown; webhook_events?: unknown };
    const events = names === undefined ? undefined : optInEventsOf(names);
    const target = await checkWebhookUrl(url, deps.webhookPolicy);
    const secret = newWebhookSecret();
    await saveWebhook(db, merchant.merchant_id, target.url.href, secret, events);
    return { webhook_url: target.url.href, webhook_secret: secret, webhook_events: events ?? webhookEventsOf(merchant) };
  }

  return {
    set,

    /** A new signing secret for the saved URL (the URL is checked again); the old secret stops at once. */
    async rotateSecret(merchant: MerchantRow) {
      const fresh = await findMerchant(db, merchant.merchant_id);
      if (!fresh?.webhook_url) throw new ServiceError('invalid_webhook_url', 'Save a webhook URL first.');
      return set(fresh, { webhook_url: fresh.webhook_url });
    },

    /** The latest webhook deliveries of the merchant, newest first. */
    recentDeliveries: (merchant: MerchantRow, limit = 20) => listDeliveries(db, merchant.merchant_id, ['pending', 'delivered', 'failed'], { newest: limit }),

    /** One more attempt of a delivered or failed event, now; false when there is no such event to re-send. */
    async resend(merchant: MerchantRow, eventId: string) {
      return (await resendDeliveries(db, merchant.merchant_id, { eventId }, clock.now())).length === 1;
    },
  };
}

/** `webhook_events` as sent: a list of opt-in event names, or 400 `unknown_webhook_event` before anything is saved. */
function optInEventsOf(names: unknown): OptInWebhookEvent[] {
  const list = Array.isArray(names) && names.length <= optInWebhookEvents.length * 4 && names.every((name) => typeof name === 'string') ? (names as string[]) : null;
  const checked = list && optInEventsFrom(list);
  if (!checked || checked.unknown.length) {
    const named = checked ? `: ${checked.unknown.slice(0, 3).map((name) => JSON.stringify(name.slice(0, 60))).join(', ')} is not one` : '';
    throw new ServiceError('unknown_webhook_event', `webhook_events must list opt-in events (${optInWebhookEvents.join(', ')})${named}.`);
  }
  return checked.events;
}

export type WebhookService = ReturnType<typeof createWebhookService>;
