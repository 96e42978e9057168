import type { Kysely, Migration } from 'kysely';

/**
 * Invoices record how their confirmation was verified (see the `verification` field). Invoices
 * confirmed before keep null: how they were verified was not recorded.
 */
export const invoiceVerificationMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable('invoices').addColumn('verification', 'text').execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.alterTable('invoices').dropColumn('verification').execute();
  },
};
