import { defaultChains } from '../../../core/chains/default-chains.ts';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { createDatabaseHealth, isDatabaseOutage } from '../../../core/db/availability.ts';
import { observedDialect } from '../../../core/db/observed-dialect.ts';
import { DatabaseUnreachable, waitForDatabase } from '../../../core/db/wait-for-database.ts';
import { openCoreDatabase } from '../../../core/schema.ts';
import { tempSqliteUrl } from '../../helpers/listener.ts';
import { releasedPort } from '../../helpers/ports.ts';

describe('telling a database outage from other failures', () => {
  it('a refused PostgreSQL connection is an outage and opens the database problem; the same refusal from fetch is not', async () => {
    const port = await releasedPort();
    const health = createDatabaseHealth('postgres');
    const db = new Kysely<unknown>({ dialect: observedDialect(new PostgresDialect({ pool: new pg.Pool({ connectionString: `postgres://postgres@127.0.0.1:${port}/x` }) }), health) });
    try {
      const refused = await sql`select 1`.execute(db).then(() => null, (error: unknown) => error);
      assert.ok(refused, 'the query failed');
      assert.equal(isDatabaseOutage(refused), true);
      assert.equal(health.problem()?.component, 'database');
      assert.match(health.problem()!.reason, /ECONNREFUSED/);
    } finally {
      await db.destroy();
    }
    const fetchRefused = await fetch(`http://127.0.0.1:${port}/`).then(() => null, (error: unknown) => error);
    assert.equal((fetchRefused as { cause?: { code?: string } }).cause?.code, 'ECONNREFUSED');
    assert.equal(isDatabaseOutage(fetchRefused), false, 'not from the database: stays a 500, never database_unavailable');
  });

  it('SQLite full: an outage; reads do not end the problem, a write does', async () => {
    const database = await openCoreDatabase(tempSqliteUrl(), defaultChains);
    try {
      const { db } = database;
      const { rows } = await sql<{ page_count: number }>`pragma page_count`.execute(db);
      await sql.raw(`pragma max_page_count = ${rows[0].page_count}`).execute(db);
      let full: unknown = null;
      for (let i = 0; i < 500 && !full; i++) {
        await sql`insert into events (event_id, merchant_id, type, payload, created_at) values (${`e${i}`}, 'm', 't', ${'x'.repeat(2000)}, 0)`.execute(db).catch((error: unknown) => (full = error));
      }
      assert.equal((full as { code?: string }).code, 'SQLITE_FULL');
      assert.equal(isDatabaseOutage(full), true);
      await sql`select 1`.execute(db);
      assert.match(database.problem()?.reason ?? '', /SQLITE_FULL/, 'a read does not end it');
      await sql.raw('pragma max_page_count = 1073741823').execute(db);
      await sql`insert into events (event_id, merchant_id, type, payload, created_at) values ('after', 'm', 't', '{}', 0)`.execute(db);
      assert.equal(database.problem(), null, 'a write that succeeds ends it');
    } finally {
      await database.close();
    }
  });
});

describe('waiting for the database at start', () => {
  const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

  it('retries every few seconds while it cannot be reached, then gives up naming DATABASE_WAIT_S', async () => {
    let now = 0;
    const sleeps: number[] = [];
    let attempts = 0;
    const error = await waitForDatabase(
      async () => {
        attempts++;
        throw refused;
      },
      { waitS: 10, now: () => now, sleep: async (ms) => void (sleeps.push(ms), (now += ms)) },
    ).then(() => null, (e: unknown) => e);
    assert.ok(error instanceof DatabaseUnreachable);
    assert.match(error.message, /could not be reached for 10 s \(connect ECONNREFUSED 127\.0\.0\.1:5432\)\..*DATABASE_WAIT_S/);
    assert.deepEqual(sleeps, [3_000, 3_000, 3_000, 1_000]);
    assert.equal(attempts, 5);
  });

  it('succeeds once the database answers; any other failure ends the wait at once', async () => {
    let now = 0;
    let attempts = 0;
    await waitForDatabase(
      async () => {
        if (++attempts < 3) throw refused;
      },
      { waitS: 60, now: () => now, sleep: async (ms) => void (now += ms) },
    );
    assert.equal(attempts, 3);
    const bug = new Error('relation "x" does not exist');
    await assert.rejects(waitForDatabase(async () => Promise.reject(bug), { waitS: 60, now: () => now, sleep: async () => {} }), (e) => e === bug);
  });
});
