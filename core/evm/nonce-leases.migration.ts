import type { Kysely, Migration } from 'kysely';

/**
 * Fixed-address amount reservations keyed by receive address instead of merchant (docs/security.md,
 * "Invariants"): two merchants who registered the same address could each hold the same exact
 * amount, and one transfer then matched both invoices. Existing leases take their invoice's
 * address; where two merchants held one amount at one address, the longer reservation stays.
 */
export const nonceLeasesByAddressMigration: Migration = {
  async up(db: Kysely<any>) {
    const leases = await leasesOwnedBy(db, 'invoices.receive_address as address');
    const kept = new Map<string, (typeof leases)[number]>();
    for (const lease of leases) {
      const id = `${lease.address}\n${lease.base_units}\n${lease.nonce}`;
      const other = kept.get(id);
      if (!other || Number(other.reserved_until) < Number(lease.reserved_until)) kept.set(id, lease);
    }
    await db.schema.dropTable('base_nonce_leases').execute();
    await createLeases(db, 'address');
    for (const lease of kept.values()) await db.insertInto('base_nonce_leases').values(lease).execute();
  },

  /** Back to per-merchant leases, each taking its invoice's merchant. */
  async down(db: Kysely<any>) {
    const leases = await leasesOwnedBy(db, 'invoices.merchant_id');
    await db.schema.dropTable('base_nonce_leases').execute();
    await createLeases(db, 'merchant_id');
    for (const lease of leases) await db.insertInto('base_nonce_leases').values(lease).execute();
  },
};

/** The current leases, each with the column of its invoice that will own it. */
function leasesOwnedBy(db: Kysely<any>, owner: 'invoices.receive_address as address' | 'invoices.merchant_id') {
  return db
    .selectFrom('base_nonce_leases')
    .innerJoin('invoices', 'invoices.invoice_id', 'base_nonce_leases.invoice_id')
    .select([owner, 'base_nonce_leases.base_units', 'base_nonce_leases.nonce', 'base_nonce_leases.invoice_id', 'base_nonce_leases.reserved_until'])
    .execute();
}

async function createLeases(db: Kysely<any>, owner: 'address' | 'merchant_id') {
  await db.schema
    .createTable('base_nonce_leases')
    .addColumn(owner, 'text', (c) => c.notNull())
    .addColumn('base_units', 'text', (c) => c.notNull())
    .addColumn('nonce', 'integer', (c) => c.notNull())
    .addColumn('invoice_id', 'text', (c) => c.notNull())
    .addColumn('reserved_until', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint(`base_nonce_leases_${owner}_pk`, [owner, 'base_units', 'nonce'])
    .execute();
}
