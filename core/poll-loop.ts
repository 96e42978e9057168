import { isDatabaseOutage } from './db/availability.ts';
import type { WatchProgress } from './watch-progress.ts';

/**
 * After a pass that failed because the database cannot be used, the next one waits this long at
 * most, whatever the watcher's own backoff (made for chain sources) says: the database coming
 * back is picked up within seconds, and each try costs one refused connection.
 */
export const DATABASE_RETRY_MS = 2_000;

export interface PollLoopOptions<T> {
  /** One pass over the chain; a throw counts as a failure. */
  pass: () => Promise<T>;
  /**
   * The wait before the next pass, given the failures in a row (0 after a success) and the last
   * pass's result (undefined after a failure). Null: the next pass starts at once.
   */
  waitMs: (failures: number, result: T | undefined) => number | null;
  /** After a failed pass, with the failures in a row so far. */
  failed: (error: unknown, failures: number) => void;
  /** After a pass that succeeded. */
  succeeded?: () => void;
  progress: WatchProgress;
}

/**
 * Runs a watcher's passes one after another until stopped, waiting between them as `waitMs` says.
 * A stop during a pass ends the loop when that pass ends, and a stop or `wake` during the wait
 * cuts the wait short.
 */
export function createPollLoop<T>(options: PollLoopOptions<T>) {
  let stopped = true;
  let done: Promise<void> = Promise.resolve();
  let endWait: (() => void) | null = null;

  async function run(): Promise<void> {
    let failures = 0;
    while (!stopped) {
      let result: T | undefined;
      let databaseDown = false;
      try {
        result = await options.pass();
        options.succeeded?.();
        failures = 0;
      } catch (error) {
        failures++;
        databaseDown = isDatabaseOutage(error);
        options.failed(error, failures);
      }
      // stop() during the pass found no wait to cut short: without this the loop would sleep a whole interval first.
      if (stopped) break;
      const asked = options.waitMs(failures, result);
      const wait = databaseDown && asked !== null ? Math.min(asked, DATABASE_RETRY_MS) : asked;
      if (wait === null) continue;
      options.progress.step('waiting for the next poll');
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, wait);
        endWait = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      endWait = null;
    }
  }

  return {
    get running() {
      return !stopped;
    },
    start() {
      if (!stopped) return;
      stopped = false;
      done = run();
    },
    /** Starts the next pass now if the loop is waiting; a pass under way is not repeated. */
    wake() {
      endWait?.();
    },
    /** Resolves once the pass under way (if any) has ended and the loop with it. */
    async stop() {
      stopped = true;
      endWait?.();
      await done;
    },
  };
}
