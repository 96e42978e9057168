import type { Kysely } from 'kysely';
import type { Clock } from '../clock.ts';
import type { CoreTables } from '../schema.ts';
import type { Logger } from '../log.ts';
import type { ServiceMetrics } from '../metrics.ts';
import { createDeliveryWorker, type DeliveryWorkerOptions } from './delivery-worker.ts';
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

/**
 * Whose events are delivered, and where: one merchant's configured receiver (the listener), or
 * the merchants a scope selects, each to the target looked up before every attempt (Cloud).
 */
export type DeliveryRoute = Pick<DeliveryWorkerOptions, 'scope' | 'url' | 'secret' | 'target'>;

/** The listener's route: its one merchant's events to MERCHANT_WEBHOOK_URL; none without one (events stay queued). */
export function singleMerchantRoute(config: { merchantId: string; webhook: { url: string; secret: string } | null }): DeliveryRoute | null {
  return config.webhook && { scope: { merchantId: config.merchantId }, url: new URL(config.webhook.url), secret: config.webhook.secret };
}

export const DEFAULT_DELIVERY_CONCURRENCY = 16;
export const DEFAULT_POLL_INTERVAL_MS = 250;

/**
 * Starts the delivery worker when there is a route. Without one, events still go into the outbox
 * and stay queued, to be sent once a URL is set.
 */
export function startWebhookDelivery(
  options: { route: DeliveryRoute | null; db: Kysely<CoreTables>; clock: Clock; logger: Logger } & WebhookDeliveryDeps,
): { stop(graceMs?: number): Promise<void>; wake(): void } {
  const { route } = options;
  if (!route) return { stop: async () => {}, wake: () => {} };
  const concurrency = options.concurrency ?? DEFAULT_DELIVERY_CONCURRENCY;
  const sender = options.send ? null : createHttpSender({ maxSockets: concurrency });
  const worker = createDeliveryWorker({
    db: options.db,
    ...route,
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
    wake: () => worker.wake(),
    async stop(graceMs?: number) {
      await worker.stop(graceMs);
      sender?.close();
    },
  };
}
