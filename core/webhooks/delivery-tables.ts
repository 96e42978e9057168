import type { Generated } from 'kysely';

/**
 * Delivery state kept on each row of the `events` outbox (added by the webhook migration), so an
 * event stored in the invoice's transaction is pending delivery from that moment, with no second
 * insert to forget.
 */
export interface EventDeliveryColumns {
  /** pending (not yet acknowledged, attempts may follow), delivered, failed (gave up). */
  delivery_status: Generated<'pending' | 'delivered' | 'failed'>;
  /** Attempts started so far; the number of the next attempt is this plus one. */
  delivery_attempts: Generated<number>;
  /** Attempts allowed: 10, raised by one for each manual re-send. */
  delivery_max_attempts: Generated<number>;
  /** Epoch ms before which no attempt starts; while an attempt is in flight, when it counts as interrupted. */
  next_attempt_at: Generated<number>;
  last_attempt_at: number | null;
  last_http_status: number | null;
  last_error: string | null;
  delivered_at: number | null;
}

/** One row per attempt that finished or was found interrupted. */
export interface WebhookAttemptsTable {
  event_id: string;
  merchant_id: string;
  attempt: number;
  started_at: number;
  duration_ms: number | null;
  http_status: number | null;
  /** null for a 2xx; otherwise why the attempt failed (status, network error, timeout, interrupted). */
  error: string | null;
  /** The first bytes of the receiver's answer, as text. */
  response_excerpt: string | null;
}

