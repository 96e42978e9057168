/**
 * Preloaded into each test file's process by `npm test`: a file whose tests have all finished but
 * that something it started still holds (a server, a pool, a child process) is ended ten seconds
 * later, naming what held it, so one stuck file cannot hold the whole run. Node's own
 * `--test-force-exit` ends the file at once and can drop results it had not yet written to the
 * runner (nodejs/node#64833): on Node 22 whole suites of a file vanished from the report, green.
 * A file that ends by itself is not delayed: the timer does not keep it alive.
 *
 * Plain JavaScript: worker threads inherit the preloads, and a compiled worker runs without tsx.
 */
import { after } from 'node:test';
import { isMainThread } from 'node:worker_threads';

const GRACE_MS = 10_000;

// Only on a test file's own main thread (the runner marks the process); the runner's parent
// process has no tests, and a worker thread is not where the file's tests run.
if (process.env.NODE_TEST_CONTEXT && isMainThread) {
  after(() => {
    setTimeout(() => {
      const held = process.getActiveResourcesInfo().filter((kind) => kind !== 'Timeout');
      process.stderr.write(`${process.argv[1]}: its tests finished ${GRACE_MS / 1000} s ago but it was still held (${held.join(', ') || 'timers'}); ended\n`);
      process.exit();
    }, GRACE_MS).unref();
  });
}
