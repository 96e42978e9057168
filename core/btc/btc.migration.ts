import type { Kysely, Migration } from 'kysely';

/** Bitcoin payments seen on watched addresses, and the processed blocks a reorg is found against. */
export const btcWatchingMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('btc_payments')
      .addColumn('merchant_id', 'text', (c) => c.notNull())
      .addColumn('invoice_id', 'text', (c) => c.notNull())
      .addColumn('txid', 'text', (c) => c.notNull())
      .addColumn('vout', 'integer', (c) => c.notNull())
      .addColumn('value_sats', 'bigint', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('block_height', 'integer')
      .addColumn('block_hash', 'text')
      .addColumn('first_seen_at', 'bigint', (c) => c.notNull())
      .addColumn('reported', 'integer', (c) => c.notNull().defaultTo(0))
      .addPrimaryKeyConstraint('btc_payments_pk', ['merchant_id', 'txid', 'vout'])
      .execute();
    await db.schema.createIndex('btc_payments_invoice').on('btc_payments').columns(['merchant_id', 'invoice_id']).execute();
    await db.schema.createIndex('btc_payments_unreported').on('btc_payments').columns(['merchant_id', 'reported']).execute();
    await db.schema
      .createTable('btc_blocks')
      .addColumn('merchant_id', 'text', (c) => c.notNull())
      .addColumn('height', 'integer', (c) => c.notNull())
      .addColumn('hash', 'text', (c) => c.notNull())
      .addColumn('processed_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('btc_blocks_pk', ['merchant_id', 'height'])
      .execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropTable('btc_blocks').execute();
    await db.schema.dropTable('btc_payments').execute();
  },
};
