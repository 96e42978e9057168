import type { Kysely } from 'kysely';
import type { Clock } from '../clock.ts';
import type { CoreTables } from '../schema.ts';
import type { Logger } from '../log.ts';
import type { ServiceMetrics } from '../metrics.ts';
import { createDeliveryWorker } from './delivery-worker.ts';
import { createHttpSender, type WebhookSender } from './http-sender.ts';
import { realTimers, type Timers } from './timers.ts';

/** Overrides for tests and benchmarks. */
export interface WebhookDeliveryDeps {
  timers?: Timers;
  send?: WebhookSender;
  concurrency?: number;
  pollIntervalMs?: number;
  metrics?: ServiceMetrics;
}

/** The one merchant whose events are delivered, and its receiver (none: events stay queued). */
export interface SingleMerchantDelivery {
  merchantId: string;
  webhook: { url: string; secret: string } | null;
}

export const DEFAULT_DELIVERY_CONCURRENCY = 16;
export const DEFAULT_POLL_INTERVAL_MS = 250;

/**
 * Starts the delivery worker when a webhook URL is configured. Without one, events still go into
 * the outbox and stay queued, to be sent once a URL is set.
 */
export function startWebhookDelivery(
  options: { config: SingleMerchantDelivery; db: Kysely<CoreTables>; clock: Clock; logger: Logger } & WebhookDeliveryDeps,
): { stop(graceMs?: number): Promise<void> } {
  const { config } = options;
  if (!config.webhook) return { stop: async () => {} };
  const concurrency = options.concurrency ?? DEFAULT_DELIVERY_CONCURRENCY;
  const sender = options.send ? null : createHttpSender({ maxSockets: concurrency });
  const worker = createDeliveryWorker({
    db: options.db,
    scope: { merchantId: config.merchantId },
    url: new URL(config.webhook.url),
    secret: config.webhook.secret,
    clock: options.clock,
    timers: options.timers ?? realTimers,
    send: options.send ?? sender!,
    logger: options.logger.child({ component: 'webhooks' }),
    concurrency,
    pollIntervalMs: options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS,
    metrics: options.metrics,
  });
  worker.start();
  return {
    async stop(graceMs?: number) {
      await worker.stop(graceMs);
      sender?.close();
    },
  };
}
