import type { Kysely, Migration } from 'kysely';

export const oauthStoreMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('oauth_records')
      .addColumn('model', 'text', (c) => c.notNull())
      .addColumn('id_hash', 'text', (c) => c.notNull())
      .addColumn('payload', 'text', (c) => c.notNull())
      .addColumn('grant_id', 'text')
      .addColumn('uid_hash', 'text')
      .addColumn('account_id', 'text')
      .addColumn('client_id', 'text')
      .addColumn('client_name', 'text')
      .addColumn('expires_at', 'bigint')
      .addColumn('consumed_at', 'bigint')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('last_used_at', 'bigint')
      .addPrimaryKeyConstraint('oauth_records_pk', ['model', 'id_hash'])
      .execute();
    await db.schema.createIndex('oauth_records_grant').on('oauth_records').columns(['grant_id']).execute();
    await db.schema.createIndex('oauth_records_uid').on('oauth_records').columns(['uid_hash']).execute();
    await db.schema.createIndex('oauth_records_account').on('oauth_records').columns(['account_id', 'model']).execute();
    await db.schema.createIndex('oauth_records_expiry').on('oauth_records').columns(['expires_at']).execute();
    await db.schema
      .createTable('oauth_secrets')
      .addColumn('name', 'text', (c) => c.primaryKey())
      .addColumn('value', 'text', (c) => c.notNull())
      .execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropTable('oauth_secrets').execute();
    await db.schema.dropTable('oauth_records').execute();
  },
};

/** Grants record the key that approved them (a non-reversible id), so revoking or changing the key ends them. */
export const oauthGrantKeyMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable('oauth_records').addColumn('key_id', 'text').execute();
    await db.schema.createIndex('oauth_records_key').on('oauth_records').columns(['key_id']).execute();
    await db.schema.createIndex('oauth_records_client').on('oauth_records').columns(['client_id', 'model']).execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropIndex('oauth_records_client').execute();
    await db.schema.dropIndex('oauth_records_key').execute();
    await db.schema.alterTable('oauth_records').dropColumn('key_id').execute();
  },
};
