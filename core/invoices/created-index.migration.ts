import type { Kysely, Migration } from 'kysely';

/**
 * The chain watchers' refresh (a chain's invoices created in the last minutes, oldest first) reads
 * an index instead of every invoice of the chain and sorting them: at 200,000 Cloud invoices that
 * was a few hundred milliseconds of CPU on every pass, idle or not.
 */
export const invoicesCreatedIndexMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.createIndex('invoices_chain_created').on('invoices').columns(['chain', 'created_at']).execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropIndex('invoices_chain_created').execute();
  },
};
