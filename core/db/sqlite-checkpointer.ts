import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type SQLite from 'better-sqlite3';
import type { Logger } from '../log.ts';

const CHECKPOINT_EVERY_MS = 1_000;
/** SQLite's own default, put back if the background checkpoints stop. */
const AUTOCHECKPOINT_PAGES = 1_000;

/**
 * SQLite copies the write-ahead log into the database file (a checkpoint, with an fsync) inside
 * whichever commit crosses 1,000 pages. With better-sqlite3 that commit runs on the event loop, so
 * every few thousand invoices one request waited 100 ms or more for the disk and all the others
 * waited behind it. Here the server's connection never checkpoints; a worker thread with its own
 * connection runs a PASSIVE checkpoint every second, which never blocks readers or writers. If the
 * worker fails, the connection checkpoints by itself again, so the log cannot grow without bound.
 */
export function startBackgroundCheckpoints(sqlite: SQLite.Database, path: string, logger?: Logger): { stop(): Promise<void> } {
  sqlite.pragma('wal_autocheckpoint = 0');
  const worker = new Worker(CHECKPOINT_WORKER, {
    eval: true,
    workerData: { driver: createRequire(import.meta.url).resolve('better-sqlite3'), path, everyMs: CHECKPOINT_EVERY_MS },
  });
  worker.unref();
  let stopping = false;
  const fallBack = (reason: string) => {
    if (stopping) return;
    logger?.warn('background SQLite checkpoints stopped; checkpointing on commit again', { reason });
    if (sqlite.open) sqlite.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
  };
  worker.on('error', (error) => fallBack(String(error)));
  worker.on('exit', (code) => fallBack(`exit ${code}`));
  return {
    async stop() {
      stopping = true;
      await worker.terminate();
    },
  };
}

const CHECKPOINT_WORKER = `
const { workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path);
db.pragma('busy_timeout = 5000');
setInterval(() => db.pragma('wal_checkpoint(PASSIVE)'), workerData.everyMs);
`;
