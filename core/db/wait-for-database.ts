import type { Logger } from '../log.ts';
import { describeDatabaseError, isDatabaseUnavailable } from './availability.ts';

/** How long a start waits for Postgres by default (DATABASE_WAIT_S). Here, not beside the drivers, so the settings parser does not load them. */
export const DEFAULT_DATABASE_WAIT_S = 60;

/** The database could not be reached within DATABASE_WAIT_S at start; the message says what to change. */
export class DatabaseUnreachable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DatabaseUnreachable';
  }
}

const RETRY_MS = 3_000;

/**
 * Runs `work` (connecting and migrating at start) until it succeeds, retrying every few seconds
 * while the database cannot be reached and saying so each time, for `waitS` seconds at most. Any
 * other failure ends the wait at once.
 */
export async function waitForDatabase(
  work: () => Promise<void>,
  options: { waitS: number; logger?: Logger; now?: () => number; sleep?: (ms: number) => Promise<void> },
): Promise<void> {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const startedAt = now();
  for (;;) {
    try {
      await work();
      if (now() - startedAt >= RETRY_MS) options.logger?.info('database reachable', { waited_s: Math.round((now() - startedAt) / 1000) });
      return;
    } catch (error) {
      if (!isDatabaseUnavailable(error)) throw error;
      const waitedS = Math.round((now() - startedAt) / 1000);
      if (waitedS >= options.waitS) {
        throw new DatabaseUnreachable(
          `The database could not be reached for ${options.waitS} s (${describeDatabaseError(error)}). Check DATABASE_URL and that the database is up, or wait longer with DATABASE_WAIT_S.`,
        );
      }
      options.logger?.warn('database unreachable; waiting for it', { error: describeDatabaseError(error), waited_s: waitedS, limit_s: options.waitS, setting: 'DATABASE_WAIT_S' });
      await sleep(Math.min(RETRY_MS, Math.max(0, options.waitS * 1000 - (now() - startedAt))));
    }
  }
}
