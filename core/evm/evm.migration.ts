import type { Kysely } from 'kysely';

export async function baseStablecoinsUp(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('invoices').addColumn('token_address', 'text').execute();
  await db.schema.alterTable('invoices').addColumn('nonce', 'integer').execute();
  await db.schema.alterTable('invoices').addColumn('amount_usd', 'text').execute();
  // Fixed-address matching looks an exact amount up; xpub watching looks an address up.
  await db.schema.createIndex('invoices_amount_units').on('invoices').columns(['merchant_id', 'amount_units']).execute();
  await db.schema.createIndex('invoices_receive_address').on('invoices').columns(['merchant_id', 'receive_address']).execute();

  await db.schema
    .createTable('base_nonce_leases')
    .addColumn('merchant_id', 'text', (c) => c.notNull())
    .addColumn('base_units', 'text', (c) => c.notNull())
    .addColumn('nonce', 'integer', (c) => c.notNull())
    .addColumn('invoice_id', 'text', (c) => c.notNull())
    .addColumn('reserved_until', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('base_nonce_leases_pk', ['merchant_id', 'base_units', 'nonce'])
    .execute();

  await db.schema
    .createTable('base_transfers')
    .addColumn('merchant_id', 'text', (c) => c.notNull())
    .addColumn('tx_hash', 'text', (c) => c.notNull())
    .addColumn('log_index', 'integer', (c) => c.notNull())
    .addColumn('block_number', 'bigint', (c) => c.notNull())
    .addColumn('block_hash', 'text', (c) => c.notNull())
    .addColumn('block_time', 'bigint', (c) => c.notNull())
    .addColumn('token_address', 'text', (c) => c.notNull())
    .addColumn('from_address', 'text', (c) => c.notNull())
    .addColumn('to_address', 'text', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('invoice_id', 'text')
    .addColumn('detected_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('base_transfers_pk', ['merchant_id', 'tx_hash', 'log_index'])
    .execute();
  await db.schema.createIndex('base_transfers_state').on('base_transfers').columns(['merchant_id', 'state', 'block_number']).execute();
  await db.schema.createIndex('base_transfers_to').on('base_transfers').columns(['merchant_id', 'to_address']).execute();

  await db.schema
    .createTable('base_blocks')
    .addColumn('merchant_id', 'text', (c) => c.notNull())
    .addColumn('block_number', 'bigint', (c) => c.notNull())
    .addColumn('block_hash', 'text', (c) => c.notNull())
    .addColumn('block_time', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('base_blocks_pk', ['merchant_id', 'block_number'])
    .execute();
}

export async function baseStablecoinsDown(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('base_blocks').execute();
  await db.schema.dropTable('base_transfers').execute();
  await db.schema.dropTable('base_nonce_leases').execute();
  await db.schema.dropIndex('invoices_receive_address').execute();
  await db.schema.dropIndex('invoices_amount_units').execute();
  await db.schema.alterTable('invoices').dropColumn('amount_usd').execute();
  await db.schema.alterTable('invoices').dropColumn('nonce').execute();
  await db.schema.alterTable('invoices').dropColumn('token_address').execute();
}
