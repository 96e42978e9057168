import type { Kysely, Migration } from 'kysely';

/** A merchant's own Lightning wallet connection (a secret, like the webhook secret) and the network its wallet is on. */
export const lightningConnectionMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable('cloud_merchants').addColumn('lightning_nwc_url', 'text').execute();
    await db.schema.alterTable('cloud_merchants').addColumn('lightning_network', 'text').execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.alterTable('cloud_merchants').dropColumn('lightning_network').execute();
    await db.schema.alterTable('cloud_merchants').dropColumn('lightning_nwc_url').execute();
  },
};
