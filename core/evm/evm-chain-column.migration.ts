import type { Kysely, Migration } from 'kysely';
import { sql } from 'kysely';

/**
 * The watchers' records gain the EVM chain they were read on, so one merchant can be watched on
 * several EVM chains at once; everything stored before was Base's. Transfers keep their key:
 * EIP-155 puts the chain id in every signed transaction, so a transaction hash names one chain.
 * Block range ends are per chain (block numbers repeat across chains), so that table is rebuilt
 * with the chain in its key.
 */
export const evmChainColumnMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable('base_transfers').addColumn('chain', 'text', (c) => c.notNull().defaultTo('base')).execute();
    await db.schema.createIndex('base_transfers_chain_state').on('base_transfers').columns(['merchant_id', 'chain', 'state', 'block_number']).execute();
    await db.schema
      .createTable('base_blocks_by_chain')
      .addColumn('merchant_id', 'text', (c) => c.notNull())
      .addColumn('chain', 'text', (c) => c.notNull())
      .addColumn('block_number', 'bigint', (c) => c.notNull())
      .addColumn('block_hash', 'text', (c) => c.notNull())
      .addColumn('block_time', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('base_blocks_by_chain_pk', ['merchant_id', 'chain', 'block_number'])
      .execute();
    await sql`insert into base_blocks_by_chain (merchant_id, chain, block_number, block_hash, block_time)
      select merchant_id, 'base', block_number, block_hash, block_time from base_blocks`.execute(db);
    await db.schema.dropTable('base_blocks').execute();
    await db.schema.alterTable('base_blocks_by_chain').renameTo('base_blocks').execute();
  },
  async down(db: Kysely<any>) {
    await db.deleteFrom('base_blocks').where('chain', '!=', 'base').execute();
    await db.deleteFrom('base_transfers').where('chain', '!=', 'base').execute();
    await db.schema.dropIndex('base_transfers_chain_state').execute();
    await db.schema.alterTable('base_transfers').dropColumn('chain').execute();
    await db.schema.alterTable('base_blocks').dropColumn('chain').execute();
  },
};
