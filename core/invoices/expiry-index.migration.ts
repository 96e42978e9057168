import type { Kysely, Migration } from 'kysely';

/** The expiry sweeper's query (pending invoices by expiry) reads an index instead of every invoice. */
export const invoicesExpiryIndexMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.createIndex('invoices_status_expires').on('invoices').columns(['status', 'expires_at']).execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropIndex('invoices_status_expires').execute();
  },
};
