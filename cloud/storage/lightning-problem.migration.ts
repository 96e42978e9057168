import type { Kysely, Migration } from 'kysely';

/** Why the service last failed to use a merchant's Lightning connection, and since when: Cloud's per-merchant stand-in for the listener's /health. */
export const lightningProblemMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable('cloud_merchants').addColumn('lightning_problem', 'text').execute();
    await db.schema.alterTable('cloud_merchants').addColumn('lightning_problem_since', 'bigint').execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.alterTable('cloud_merchants').dropColumn('lightning_problem_since').execute();
    await db.schema.alterTable('cloud_merchants').dropColumn('lightning_problem').execute();
  },
};
