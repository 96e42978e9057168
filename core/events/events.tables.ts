import type { Generated } from 'kysely';

/** Transactional outbox: written in the same transaction as the change that causes the event. */
export interface EventsTable {
  event_id: string;
  merchant_id: string;
  type: string;
  /** The exact JSON body that is signed and sent; never re-serialised. */
  payload: string;
  created_at: number;
  seq: Generated<number>;
}
