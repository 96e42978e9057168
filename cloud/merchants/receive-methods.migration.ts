import type { Kysely, Migration } from 'kysely';

/** Accounts say how they receive per chain (cloud/receive-methods.ts); existing ones keep their older columns, read as before. */
export const receiveMethodsMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable('cloud_merchants').addColumn('receive_methods', 'text').execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.alterTable('cloud_merchants').dropColumn('receive_methods').execute();
  },
};
