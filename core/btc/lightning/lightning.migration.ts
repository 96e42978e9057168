import type { Kysely, Migration } from 'kysely';

/** Lightning on Bitcoin invoices: the BOLT11 and its payment hash on the invoice, the proven settlements, the pinned wallet nodes. */
export const btcLightningMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable('invoices').addColumn('lightning_invoice', 'text').execute();
    await db.schema.alterTable('invoices').addColumn('payment_hash', 'text').execute();
    await db.schema.alterTable('invoices').addColumn('payment_method', 'text').execute();
    await db.schema.createIndex('invoices_payment_hash').on('invoices').columns(['merchant_id', 'payment_hash']).execute();
    await db.schema
      .createTable('ln_settlements')
      .addColumn('merchant_id', 'text', (c) => c.notNull())
      .addColumn('payment_hash', 'text', (c) => c.notNull())
      .addColumn('invoice_id', 'text', (c) => c.notNull())
      .addColumn('preimage', 'text', (c) => c.notNull())
      .addColumn('amount_msat', 'text', (c) => c.notNull())
      .addColumn('settled_at', 'bigint')
      .addColumn('recorded_at', 'bigint', (c) => c.notNull())
      .addColumn('outcome', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('ln_settlements_pk', ['merchant_id', 'payment_hash'])
      .execute();
    await db.schema
      .createTable('ln_wallet_nodes')
      .addColumn('wallet_pubkey', 'text', (c) => c.primaryKey())
      .addColumn('node_pubkey', 'text', (c) => c.notNull())
      .addColumn('pinned_at', 'bigint', (c) => c.notNull())
      .execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropTable('ln_wallet_nodes').execute();
    await db.schema.dropTable('ln_settlements').execute();
    await db.schema.dropIndex('invoices_payment_hash').execute();
    for (const column of ['payment_method', 'payment_hash', 'lightning_invoice']) await db.schema.alterTable('invoices').dropColumn(column).execute();
  },
};
