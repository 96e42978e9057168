import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { testDatabases } from '../../helpers/databases.ts';

const postgres = testDatabases.find((d) => d.name === 'postgres')!;

test('two schemas of one Postgres database migrate side by side (each gets its own migration tables)', { skip: postgres.skip }, async () => {
  const first = await postgres.create();
  const second = await postgres.create();
  const a = await first.open();
  try {
    // With the first schema's kysely_migration tables in place, the second must still create its own.
    const b = await second.open();
    try {
      await b.db.selectFrom('invoices').select('invoice_id').execute();
      const own = await sql<{ name: string }>`select name from kysely_migration`.execute(b.db);
      assert.ok(own.rows.length > 0);
    } finally {
      await b.close();
    }
  } finally {
    await a.close();
    await first.drop();
    await second.drop();
  }
});
