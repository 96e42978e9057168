import assert from 'node:assert/strict';
import { test } from 'node:test';
import SQLite from 'better-sqlite3';
import { Kysely } from 'kysely';
import { fairSqliteDialect } from '../../../core/db/fair-sqlite-dialect.ts';

interface Db {
  log: { n: number; source: string };
}

test('the one SQLite connection goes to waiters in arrival order, and a transaction keeps it to itself', async () => {
  const db = new Kysely<Db>({ dialect: fairSqliteDialect(new SQLite(':memory:')) });
  try {
    await db.schema.createTable('log').addColumn('n', 'integer').addColumn('source', 'text').execute();
    let release!: () => void;
    let started!: () => void;
    const holding = new Promise<void>((resolve) => (started = resolve));
    const held = db.transaction().execute(async (trx) => {
      await trx.insertInto('log').values({ n: -1, source: 'transaction' }).execute();
      started();
      await new Promise<void>((resolve) => (release = resolve));
      await trx.insertInto('log').values({ n: -2, source: 'transaction' }).execute();
    });
    await holding;
    const queued = Array.from({ length: 50 }, (_, n) => db.insertInto('log').values({ n, source: 'queued' }).execute());
    release();
    // Arrives after the transaction ends but before the queued queries ran: it must wait its turn.
    const late = held.then(() => db.insertInto('log').values({ n: 50, source: 'late' }).execute());
    await Promise.all([held, ...queued, late]);
    const rows = await db.selectFrom('log').select(['n', 'source']).orderBy(db.dynamic.ref('rowid')).execute();
    assert.deepEqual(
      rows.map((r) => r.n),
      [-1, -2, ...Array.from({ length: 51 }, (_, n) => n)],
    );
  } finally {
    await db.destroy();
  }
});
