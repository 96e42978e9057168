import type { Kysely, Migration } from 'kysely';

/**
 * Existing derived invoices' addresses claimed (each already unique). An edition that stores fixed
 * addresses claims them in a migration after this one (Cloud: 0011_cloud_fixed_address_claims).
 */
export const evmAddressClaimsMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('base_address_claims')
      .addColumn('address', 'text', (c) => c.primaryKey())
      .addColumn('kind', 'text', (c) => c.notNull())
      .execute();
    await db
      .insertInto('base_address_claims')
      .columns(['address', 'kind'])
      .expression((eb) =>
        eb.selectFrom('invoices').select(['receive_address', eb.val('derived').as('kind')]).where('chain', '=', 'base').where('child_index', 'is not', null).distinct(),
      )
      .onConflict((oc) => oc.column('address').doNothing())
      .execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropTable('base_address_claims').execute();
  },
};
