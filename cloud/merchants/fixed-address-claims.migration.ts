import type { Kysely, Migration } from 'kysely';

/**
 * Merchants' registered fixed Base addresses claimed as fixed, where no derived invoice holds them
 * (core 0011 claimed those first). A fixed address that already is a derived invoice's stays
 * registered, but its fixed-address invoices are refused from now on. Databases from before the
 * editions were split did this inside 0011: claims already there are left as they are.
 */
export const fixedAddressClaimsMigration: Migration = {
  async up(db: Kysely<any>) {
    await db
      .insertInto('base_address_claims')
      .columns(['address', 'kind'])
      .expression((eb) =>
        eb.selectFrom('cloud_merchants').select(['base_address', eb.val('fixed').as('kind')]).where('base_address', 'is not', null).where('base_xpub', 'is', null).distinct(),
      )
      .onConflict((oc) => oc.column('address').doNothing())
      .execute();
  },
};
