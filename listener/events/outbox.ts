import { randomUUID } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { WebhookEvent } from '../../shared/index.ts';
import type { Tables } from '../db/tables.ts';

export interface NewEvent {
  merchantId: string;
  payload: WebhookEvent;
  createdAt: number;
}

/**
 * Stores an event in the caller's transaction, so the event exists exactly when the change that
 * caused it is committed. The payload is serialised once here: retries send these exact bytes.
 */
export async function enqueueEvent(trx: Transaction<Tables> | Kysely<Tables>, event: NewEvent): Promise<string> {
  const eventId = `evt_${randomUUID().replace(/-/g, '')}`;
  await trx
    .insertInto('events')
    .values({
      event_id: eventId,
      merchant_id: event.merchantId,
      type: event.payload.event,
      payload: JSON.stringify(event.payload),
      created_at: event.createdAt,
    })
    .execute();
  return eventId;
}
