import { randomUUID } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { WebhookEventContent } from '../../shared/index.ts';
import type { CoreTables } from '../schema.ts';

/** Five parameters per row: far below any driver's limit on bound parameters. */
const EVENTS_PER_STATEMENT = 500;

export interface NewEvent {
  merchantId: string;
  payload: WebhookEventContent;
  createdAt: number;
  /** An id derived from what the event is about, for an event that must exist once: a second one with it is not stored. Default: a fresh random id. */
  eventId?: string;
}

/**
 * Stores an event in the caller's transaction, so the event exists exactly when the change that
 * caused it is committed. The payload is serialised once here, with its id inside (signed with the
 * body, so a receiver never has to trust an unsigned header for it): retries send these exact bytes.
 */
export async function enqueueEvent(trx: Transaction<CoreTables> | Kysely<CoreTables>, event: NewEvent): Promise<string> {
  const [eventId] = await enqueueEvents(trx, [event]);
  return eventId;
}

/** Several events in one statement per few hundred, in the given order (their `seq` follows it); an event whose id is stored already is left out. */
export async function enqueueEvents(trx: Transaction<CoreTables> | Kysely<CoreTables>, events: NewEvent[]): Promise<string[]> {
  const rows = events.map(({ merchantId, payload, createdAt, eventId = `evt_${randomUUID().replace(/-/g, '')}` }) => {
    const { event, ...fields } = payload;
    return {
      event_id: eventId,
      merchant_id: merchantId,
      type: event,
      payload: JSON.stringify({ event, event_id: eventId, ...fields }),
      created_at: createdAt,
    };
  });
  for (let i = 0; i < rows.length; i += EVENTS_PER_STATEMENT) {
    await trx
      .insertInto('events')
      .values(rows.slice(i, i + EVENTS_PER_STATEMENT))
      .onConflict((conflict) => conflict.column('event_id').doNothing())
      .execute();
  }
  return rows.map((row) => row.event_id);
}
