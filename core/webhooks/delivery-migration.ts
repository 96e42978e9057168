import type { Kysely, Migration } from 'kysely';
import { WEBHOOK_MAX_ATTEMPTS } from '../../shared/webhooks.ts';

/**
 * Delivery state on the `events` outbox plus one row per attempt. Columns get defaults so an event
 * stored by `enqueueEvent` is pending and due at once without the outbox knowing about delivery.
 */
export const webhookDeliveryMigration: Migration = {
  async up(db: Kysely<any>) {
    const addColumns: [string, 'text' | 'integer' | 'bigint', ((c: any) => any)?][] = [
      ['delivery_status', 'text', (c) => c.notNull().defaultTo('pending')],
      ['delivery_attempts', 'integer', (c) => c.notNull().defaultTo(0)],
      ['delivery_max_attempts', 'integer', (c) => c.notNull().defaultTo(WEBHOOK_MAX_ATTEMPTS)],
      ['next_attempt_at', 'bigint', (c) => c.notNull().defaultTo(0)],
      ['last_attempt_at', 'bigint'],
      ['last_http_status', 'integer'],
      ['last_error', 'text'],
      ['delivered_at', 'bigint'],
    ];
    // One ALTER per column: SQLite adds only one column per statement.
    for (const [name, type, build] of addColumns) {
      await db.schema.alterTable('events').addColumn(name, type, build).execute();
    }
    await db.schema.createIndex('events_delivery_due').on('events').columns(['merchant_id', 'delivery_status', 'next_attempt_at']).execute();

    await db.schema
      .createTable('webhook_attempts')
      .addColumn('event_id', 'text', (c) => c.notNull())
      .addColumn('merchant_id', 'text', (c) => c.notNull())
      .addColumn('attempt', 'integer', (c) => c.notNull())
      .addColumn('started_at', 'bigint', (c) => c.notNull())
      .addColumn('duration_ms', 'integer')
      .addColumn('http_status', 'integer')
      .addColumn('error', 'text')
      .addColumn('response_excerpt', 'text')
      .addPrimaryKeyConstraint('webhook_attempts_pk', ['event_id', 'attempt'])
      .execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropTable('webhook_attempts').execute();
    await db.schema.dropIndex('events_delivery_due').execute();
    for (const name of ['delivered_at', 'last_error', 'last_http_status', 'last_attempt_at', 'next_attempt_at', 'delivery_max_attempts', 'delivery_attempts', 'delivery_status']) {
      await db.schema.alterTable('events').dropColumn(name).execute();
    }
  },
};
