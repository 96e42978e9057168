import { sql, type Kysely, type Migration } from 'kysely';

/**
 * Stored invoices and counters whose key id changes: an edition that stores merchants' keys
 * (Cloud) names them; the listener stores none.
 */
export type KeyIdRenames = (db: Kysely<any>) => Promise<{ merchant_id: string; chain: string; from: string; to: string }[]>;

export const noKeyIdRenames: KeyIdRenames = async () => [];

/**
 * One address, one invoice, across every merchant (docs/security.md, "Invariants").
 *
 * - Stored merchants' Base xpub invoices (Cloud's, see KeyIdRenames) move from the id of the key's
 *   text to the id of the key itself (public key + chain code); Bitcoin key ids already were. The
 *   listener's own MERCHANT_BASE_XPUB is not stored, so its invoices move at start (adoptKeyIdentity).
 * - Counters become one per key instead of one per merchant and key: keys that turn out identical
 *   continue from the highest index any of them reached (or any invoice holds).
 * - Addresses already handed out to more than one invoice stay with their invoices: either may have
 *   been paid in good faith, and both payments went to the same wallet. The later ones get
 *   `address_duplicate_of` = the earliest invoice with that address, and are left out of the new
 *   unique index, which every invoice created from now on is in.
 */
export function keyIdentityMigration(keyIdRenames: KeyIdRenames): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema.alterTable('invoices').addColumn('address_duplicate_of', 'text').execute();
      await db.schema.dropIndex('invoices_child_index_unique').execute();

      for (const { merchant_id, chain, from, to } of await keyIdRenames(db)) {
        const legacy = { merchant_id, chain, key_id: from };
        await db.updateTable('invoices').set({ key_id: to }).where((eb) => eb.and(legacy)).execute();
        await db.updateTable('address_counters').set({ key_id: to }).where((eb) => eb.and(legacy)).execute();
      }

      const counters = await db
        .selectFrom('address_counters')
        .select(['chain', 'key_id', (eb) => eb.fn.max('next_index').as('next_index')])
        .groupBy(['chain', 'key_id'])
        .execute();
      const used = await db
        .selectFrom('invoices')
        .select(['chain', 'key_id', (eb) => eb.fn.max('child_index').as('highest')])
        .where('child_index', 'is not', null)
        .where('key_id', 'is not', null)
        .groupBy(['chain', 'key_id'])
        .execute();
      const next = new Map<string, { chain: string; key_id: string; next_index: number }>();
      const raise = (chain: string, keyId: string, nextIndex: number) => {
        const id = `${chain}\n${keyId}`;
        const entry = next.get(id);
        if (!entry || entry.next_index < nextIndex) next.set(id, { chain, key_id: keyId, next_index: nextIndex });
      };
      for (const row of counters) raise(row.chain, row.key_id, Number(row.next_index));
      for (const row of used) raise(row.chain, row.key_id, Number(row.highest) + 1);

      await db.schema.dropTable('address_counters').execute();
      await db.schema
        .createTable('address_counters')
        .addColumn('chain', 'text', (c) => c.notNull())
        .addColumn('key_id', 'text', (c) => c.notNull())
        .addColumn('next_index', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('address_counters_key_pk', ['chain', 'key_id'])
        .execute();
      for (const row of next.values()) await db.insertInto('address_counters').values(row).execute();

      // A plain index for the one pass that finds the twins, dropped after it.
      await db.schema.createIndex('invoices_address_twins').on('invoices').columns(['receive_address']).execute();
      await sql`
        update invoices set address_duplicate_of = (
          select twin.invoice_id from invoices twin
          where twin.receive_address = invoices.receive_address and twin.chain = invoices.chain and twin.network = invoices.network
            and twin.child_index is not null
          order by twin.created_at, twin.invoice_id limit 1)
        where child_index is not null and exists (
          select 1 from invoices twin
          where twin.receive_address = invoices.receive_address and twin.chain = invoices.chain and twin.network = invoices.network
            and twin.child_index is not null
            and (twin.created_at < invoices.created_at or (twin.created_at = invoices.created_at and twin.invoice_id < invoices.invoice_id)))
      `.execute(db);
      await db.schema.dropIndex('invoices_address_twins').execute();

      await db.schema
        .createIndex('invoices_address_unique')
        .on('invoices')
        .columns(['chain', 'network', 'receive_address'])
        .unique()
        .where(sql.ref('child_index'), 'is not', null)
        .where(sql.ref('address_duplicate_of'), 'is', null)
        .execute();
      // The gap report: the merchants holding a key, and each one's highest index of it.
      await db.schema.createIndex('invoices_key_holder').on('invoices').columns(['chain', 'key_id', 'merchant_id', 'child_index']).execute();
    },

    /** Back to one counter per merchant and key, each continuing after the highest index it holds. */
    async down(db: Kysely<any>) {
      await db.schema.dropIndex('invoices_key_holder').execute();
      await db.schema.dropIndex('invoices_address_unique').execute();
      await db.schema.dropTable('address_counters').execute();
      await db.schema
        .createTable('address_counters')
        .addColumn('merchant_id', 'text', (c) => c.notNull())
        .addColumn('chain', 'text', (c) => c.notNull())
        .addColumn('key_id', 'text', (c) => c.notNull())
        .addColumn('next_index', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('address_counters_pk', ['merchant_id', 'chain', 'key_id'])
        .execute();
      await sql`
        insert into address_counters (merchant_id, chain, key_id, next_index)
        select merchant_id, chain, key_id, max(child_index) + 1 from invoices
        where child_index is not null and key_id is not null group by merchant_id, chain, key_id
      `.execute(db);
      await db.schema
        .createIndex('invoices_child_index_unique')
        .on('invoices')
        .columns(['merchant_id', 'chain', 'key_id', 'child_index'])
        .unique()
        .execute();
      await db.schema.alterTable('invoices').dropColumn('address_duplicate_of').execute();
    },
  };
}
