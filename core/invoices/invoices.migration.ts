import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../db/migrate.ts';

/** The first schema: invoices, the address counters and the event outbox. */
export function invoicesAndOutboxMigration(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('invoices')
        .addColumn('invoice_id', 'text', (c) => c.primaryKey())
        .addColumn('merchant_id', 'text', (c) => c.notNull())
        .addColumn('chain', 'text', (c) => c.notNull())
        .addColumn('asset', 'text', (c) => c.notNull())
        .addColumn('network', 'text')
        .addColumn('receive_address', 'text', (c) => c.notNull())
        .addColumn('child_index', 'integer')
        .addColumn('derivation_path', 'text')
        .addColumn('key_id', 'text')
        .addColumn('amount_sats', 'bigint')
        .addColumn('amount_units', 'text')
        .addColumn('memo', 'text')
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('tx_hash', 'text')
        .addColumn('paid_at', 'bigint')
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute();
      // A child index is never handed out twice for the same wallet key.
      await db.schema
        .createIndex('invoices_child_index_unique')
        .on('invoices')
        .columns(['merchant_id', 'chain', 'key_id', 'child_index'])
        .unique()
        .execute();
      await db.schema.createIndex('invoices_merchant_created').on('invoices').columns(['merchant_id', 'created_at']).execute();
      await db.schema.createIndex('invoices_status').on('invoices').columns(['status', 'chain']).execute();

      await db.schema
        .createTable('address_counters')
        .addColumn('merchant_id', 'text', (c) => c.notNull())
        .addColumn('chain', 'text', (c) => c.notNull())
        .addColumn('key_id', 'text', (c) => c.notNull())
        .addColumn('next_index', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('address_counters_pk', ['merchant_id', 'chain', 'key_id'])
        .execute();

      await db.schema
        .createTable('events')
        .addColumn('seq', dialect === 'postgres' ? 'bigserial' : 'integer', (c) =>
          dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement(),
        )
        .addColumn('event_id', 'text', (c) => c.notNull().unique())
        .addColumn('merchant_id', 'text', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('payload', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('events_merchant').on('events').columns(['merchant_id', 'seq']).execute();
    },
    async down(db: Kysely<any>) {
      await db.schema.dropTable('events').execute();
      await db.schema.dropTable('address_counters').execute();
      await db.schema.dropTable('invoices').execute();
    },
  };
}
