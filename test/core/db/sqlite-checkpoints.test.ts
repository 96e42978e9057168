import assert from 'node:assert/strict';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import SQLite from 'better-sqlite3';
import { startBackgroundCheckpoints } from '../../../core/db/sqlite-checkpointer.ts';

function walDatabase() {
  const path = join(mkdtempSync(join(tmpdir(), 'checkpoints-')), 'service.db');
  const sqlite = new SQLite(path);
  sqlite.pragma('journal_mode = WAL');
  sqlite.exec('create table rows (id integer primary key, body text)');
  return { path, sqlite };
}

async function until(condition: () => boolean, what: string, timeoutMs = 5_000) {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > timeoutMs) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('SQLite checkpoints off the event loop', () => {
  it('the server connection never checkpoints; the worker copies the log into the database file', async () => {
    const { path, sqlite } = walDatabase();
    const checkpoints = startBackgroundCheckpoints(sqlite, path);
    try {
      assert.equal(sqlite.pragma('wal_autocheckpoint', { simple: true }), 0);
      const insert = sqlite.prepare('insert into rows (body) values (?)');
      // About 8 MB through the log: far past the 1,000 pages (4 MB) at which a commit would checkpoint.
      for (let i = 0; i < 2_000; i++) insert.run('x'.repeat(4_000));
      await until(() => statSync(path).size > 7_000_000, 'the rows to reach the database file');
      assert.equal((sqlite.prepare('select count(*) as n from rows').get() as { n: number }).n, 2_000);
    } finally {
      await checkpoints.stop();
      sqlite.close();
    }
  });

  it('without the worker the same writes stay in the log (so the test above shows the worker did it)', () => {
    const { path, sqlite } = walDatabase();
    sqlite.pragma('wal_autocheckpoint = 0');
    const insert = sqlite.prepare('insert into rows (body) values (?)');
    for (let i = 0; i < 2_000; i++) insert.run('x'.repeat(4_000));
    assert.ok(statSync(path).size < 1_000_000);
    sqlite.close();
  });

  it('a worker that cannot run puts SQLite\'s own checkpointing back', async () => {
    const { sqlite } = walDatabase();
    startBackgroundCheckpoints(sqlite, join(tmpdir(), 'no-such-directory', 'service.db'));
    await until(() => sqlite.pragma('wal_autocheckpoint', { simple: true }) === 1_000, 'wal_autocheckpoint to return to 1000');
    sqlite.close();
  });
});
