import { defaultChains } from '../../../core/chains/default-chains.ts';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { startListener, type RunningListener } from '../../../listener/app.ts';
import { loadConfig } from '../../../listener/config.ts';
import { assertAnswersBounded, recordingLogger, startTraffic, type TimedAnswer } from '../../helpers/database-faults.ts';
import { BIP84_ZPUB, NO_CHAIN_ESPLORA_URL, tempSqliteUrl } from '../../helpers/listener.ts';
import { waitForWatcher } from '../../helpers/wait-for-watcher.ts';

/** The listener on a SQLite file, in the test process (an unhandled error would end the run). */
async function sqliteListener(url: string) {
  const log = recordingLogger();
  const listener = await startListener(
    loadConfig({ PORT: '0', DATABASE_URL: url, MERCHANT_BTC_XPUB: BIP84_ZPUB, BTC_ESPLORA_URL: NO_CHAIN_ESPLORA_URL, SERVICE_RATE_LIMIT: 'off' }, defaultChains),
    { logger: log.logger },
  );
  const create = (signal?: AbortSignal) =>
    fetch(`${listener.url}/invoice`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"amount_sats":1000}', signal });
  const health = async () => (await fetch(`${listener.url}/health`)).json();
  const databaseProblem = (h: { problems: Array<{ component: string; reason: string }> }) => h.problems.find((p) => p.component === 'database');
  return { listener, log, create, health, databaseProblem };
}

async function assertStored(listener: RunningListener, answers: TimedAnswer[]) {
  const acknowledged = answers.filter((a) => a.status === 201).map((a) => (a.body as { invoice_id: string }).invoice_id);
  assert.ok(acknowledged.length > 0);
  const stored = await listener.database.db.selectFrom('invoices').select('invoice_id').where('invoice_id', 'in', acknowledged).execute();
  assert.equal(stored.length, acknowledged.length, 'every acknowledged invoice is stored');
}

describe('listener on SQLite: a full database and a locked file', () => {
  it('full (SQLITE_FULL): stays up, answers database_unavailable, /health says so, recovers when there is room, keeps every acknowledged invoice', async () => {
    const { listener, log, create, health, databaseProblem } = await sqliteListener(tempSqliteUrl());
    const traffic = startTraffic('listener', create, 20);
    try {
      const watcher = () => ({ answers: traffic.answers.slice(-3), log: log.tail(10) });
      await waitForWatcher('invoices being created', async () => traffic.acknowledged().length, (n) => n >= 3, { watcher });
      // The listener's own connection may not grow the file any more: the next pages it needs fail with SQLITE_FULL.
      const { rows } = await sql<{ page_count: number }>`pragma page_count`.execute(listener.database.db);
      await sql.raw(`pragma max_page_count = ${rows[0].page_count}`).execute(listener.database.db);
      await waitForWatcher('creates refused for want of room', async () => traffic.answers.filter((a) => a.status === 503).length, (n) => n >= 3, { watcher });
      const full = await health();
      assert.equal(full.ok, false);
      assert.match(databaseProblem(full)!.reason, /SQLITE_FULL|full/i);
      const refused = traffic.answers.find((a) => a.status === 503)!;
      assert.equal((refused.body as { error: { code: string } }).error.code, 'database_unavailable');

      await sql.raw('pragma max_page_count = 1073741823').execute(listener.database.db);
      const roomAt = Date.now();
      await waitForWatcher('creates succeed again', async () => traffic.answers.some((a) => a.startedAt >= roomAt && a.status === 201), Boolean, { watcher });
      const healthy = await waitForWatcher('/health ok again', health, (h) => h.ok === true, { watcher });
      assert.deepEqual(healthy.problems, []);
      await traffic.stop();
      assertAnswersBounded(traffic.answers);
      await assertStored(listener, traffic.answers);
    } finally {
      await traffic.stop();
      await listener.stop();
    }
  });

  it('locked by another process (SQLITE_BUSY): answers database_unavailable within the busy timeout, /health says so, recovers when the lock goes', async () => {
    const url = tempSqliteUrl();
    const { listener, log, create, health, databaseProblem } = await sqliteListener(url);
    const other = new SQLite(url.slice('sqlite:'.length));
    const traffic = startTraffic('listener', create, 100);
    try {
      const watcher = () => ({ answers: traffic.answers.slice(-3), log: log.tail(10) });
      await waitForWatcher('invoices being created', async () => traffic.acknowledged().length, (n) => n >= 2, { watcher });
      other.exec('begin exclusive');
      await waitForWatcher('creates refused while the file is locked', async () => traffic.answers.filter((a) => a.status === 503).length, (n) => n >= 1, { watcher });
      const locked = await health();
      assert.equal(locked.ok, false);
      assert.match(databaseProblem(locked)!.reason, /SQLITE_BUSY|locked/i);

      other.exec('rollback');
      const freeAt = Date.now();
      await waitForWatcher('creates succeed again', async () => traffic.answers.some((a) => a.startedAt >= freeAt && a.status === 201), Boolean, { watcher });
      await waitForWatcher('/health ok again', health, (h) => h.ok === true, { watcher });
      await traffic.stop();
      assertAnswersBounded(traffic.answers);
      await assertStored(listener, traffic.answers);
    } finally {
      await traffic.stop();
      if (other.inTransaction) other.exec('rollback');
      other.close();
      await listener.stop();
    }
  });
});
