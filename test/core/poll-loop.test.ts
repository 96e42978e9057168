import { test } from 'node:test';
import assert from 'node:assert/strict';
import { manualClock } from '../../core/clock.ts';
import { exponentialBackoffMs } from '../../core/net/backoff.ts';
import { createPollLoop } from '../../core/poll-loop.ts';
import { createWatchProgress } from '../../core/watch-progress.ts';

const HOUR_MS = 3_600_000;

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

test('poll loop: a stop during a pass ends the loop when that pass ends, not a wait later', { timeout: 10_000 }, async () => {
  const progress = createWatchProgress(manualClock());
  const entered = deferred();
  const release = deferred();
  let passes = 0;
  const loop = createPollLoop({
    pass: async () => {
      passes++;
      entered.resolve();
      await release.promise;
    },
    waitMs: () => HOUR_MS,
    failed: () => assert.fail('no pass fails'),
    progress,
  });
  loop.start();
  await entered.promise;
  const stopped = loop.stop();
  assert.equal(loop.running, false);
  release.resolve();
  await stopped;
  assert.equal(passes, 1);
  assert.equal(progress.current().step, 'starting', 'the loop never began the wait');
});

test('poll loop: wake and stop cut the wait between passes short', { timeout: 10_000 }, async () => {
  const progress = createWatchProgress(manualClock());
  let waiting = deferred();
  let passes = 0;
  const loop = createPollLoop({
    pass: async () => {
      passes++;
    },
    waitMs: () => {
      waiting.resolve();
      return HOUR_MS;
    },
    failed: () => assert.fail('no pass fails'),
    progress,
  });
  loop.start();
  await waiting.promise;
  assert.equal(progress.current().step, 'waiting for the next poll');
  waiting = deferred();
  loop.wake();
  await waiting.promise;
  assert.equal(passes, 2);
  await loop.stop();
  assert.equal(passes, 2);
});

test('poll loop: failures are counted in a row and reset by a success; a null wait starts the next pass at once', { timeout: 10_000 }, async () => {
  const progress = createWatchProgress(manualClock());
  const outcomes = ['fail', 'fail', 'ok', 'fail'];
  const waits: Array<[number, string | undefined]> = [];
  const failedAt: number[] = [];
  let successes = 0;
  const ended = deferred();
  const loop = createPollLoop<string>({
    pass: async () => {
      const outcome = outcomes.shift();
      if (!outcomes.length) {
        void loop.stop().then(ended.resolve);
      }
      if (outcome === 'fail') throw new Error('source down');
      return 'result';
    },
    waitMs: (failures, result) => {
      waits.push([failures, result]);
      return null;
    },
    failed: (error, failures) => {
      assert.equal((error as Error).message, 'source down');
      failedAt.push(failures);
    },
    succeeded: () => successes++,
    progress,
  });
  loop.start();
  await ended.promise;
  assert.deepEqual(failedAt, [1, 2, 1]);
  assert.equal(successes, 1);
  assert.deepEqual(waits, [
    [1, undefined],
    [2, undefined],
    [0, 'result'],
  ]);
  assert.equal(progress.current().step, 'starting', 'a null wait never reports waiting');
});

test('watch progress: track records a pass that succeeds, and one that fails (rethrown) until the next success', async () => {
  const clock = manualClock();
  const progress = createWatchProgress(clock);
  await assert.rejects(progress.track(async () => Promise.reject(new Error('no answer'))), /no answer/);
  const failing = progress.current();
  assert.equal(failing.last_error, 'no answer');
  assert.equal(failing.failing_since, new Date(clock.now()).toISOString());
  clock.advance(1_000);
  assert.equal(await progress.track(async () => 7), 7);
  const recovered = progress.current();
  assert.equal(recovered.last_error, null);
  assert.equal(recovered.failing_since, null);
  assert.equal(recovered.last_success_at, new Date(clock.now()).toISOString());
});

test('exponential backoff: the base, doubled after each further failure, capped', () => {
  assert.deepEqual([1, 2, 3, 4, 7, 8].map((n) => exponentialBackoffMs(n, 1_000, 60_000)), [1_000, 2_000, 4_000, 8_000, 60_000, 60_000]);
});
