import type { Kysely } from 'kysely';
import type { Clock } from '../../core/clock.ts';
import { ServiceError } from '../../core/errors.ts';
import { checkWebhookUrl, type WebhookTargetPolicy } from '../../core/net/webhook-target.ts';
import { listDeliveries, resendDeliveries } from '../../core/webhooks/delivery-store.ts';
import { newWebhookSecret } from '../../core/webhooks/signature.ts';
import type { CloudTables } from '../storage/cloud.tables.ts';
import { findMerchant, saveWebhook, type MerchantRow } from '../merchants/merchant.repository.ts';

export interface WebhookServiceDeps {
  db: Kysely<CloudTables>;
  clock: Clock;
  webhookPolicy: WebhookTargetPolicy;
}

/** Where a merchant's invoice events go, signed with which secret, and how their deliveries went. */
export function createWebhookService(deps: WebhookServiceDeps) {
  const { db, clock } = deps;

  async function set(merchant: MerchantRow, body: unknown) {
    const url = (body as { webhook_url?: unknown } | null)?.webhook_url;
    const target = await checkWebhookUrl(url, deps.webhookPolicy);
    const secret = newWebhookSecret();
    await saveWebhook(db, merchant.merchant_id, target.url.href, secret);
    return { webhook_url: target.url.href, webhook_secret: secret };
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

export type WebhookService = ReturnType<typeof createWebhookService>;
