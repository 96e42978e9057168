import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../db/migrate.ts';

/** The verified Bitcoin header chain, 80 bytes a block, so a restart does not download it again. */
export function btcHeadersMigration(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('btc_headers')
        .addColumn('network', 'text', (c) => c.notNull())
        .addColumn('height', 'integer', (c) => c.notNull())
        .addColumn('header', dialect === 'postgres' ? 'bytea' : 'blob', (c) => c.notNull())
        .addPrimaryKeyConstraint('btc_headers_pk', ['network', 'height'])
        .execute();
    },
    async down(db: Kysely<any>) {
      await db.schema.dropTable('btc_headers').execute();
    },
  };
}
