import type { Kysely, Migration } from 'kysely';

/**
 * The invoice lists' status filter, for a merchant with many invoices, read newest first: a page of
 * `confirmed` among 100,000 `expired` would otherwise walk them all.
 */
export const invoiceListIndexesMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.createIndex('invoices_merchant_status_created').on('invoices').columns(['merchant_id', 'status', 'created_at']).execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropIndex('invoices_merchant_status_created').execute();
  },
};
