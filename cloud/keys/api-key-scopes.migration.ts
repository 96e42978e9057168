import type { Kysely, Migration } from 'kysely';

/** API keys gain scopes: null (every existing key) is full access. */
export const apiKeyScopesMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable('cloud_api_keys').addColumn('scopes', 'text').execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.alterTable('cloud_api_keys').dropColumn('scopes').execute();
  },
};
