import { readFileSync } from 'node:fs';
import type { Env } from '../config.ts';
import { SANDBOX_DATABASE_PATH, SANDBOX_PID_PATH, wantsSandbox } from '../sandbox/sandbox.ts';

/** True when the process named in the sandbox's pid file is alive (EPERM: alive, another user's). */
function sandboxRunningHere(): boolean {
  let pid: number;
  try {
    pid = Number(readFileSync(SANDBOX_PID_PATH, 'utf8'));
  } catch {
    return false;
  }
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The database to read: DATABASE_URL when set (a listener's, even from a machine without its
 * keys); else, with no merchant key set, the running sandbox's. Throws, saying so, when that
 * sandbox is not running here, rather than reading an unrelated ./data/service.db.
 */
export function stateDatabaseUrl(env: Env, configured: string): string {
  if (env.DATABASE_URL?.trim() || !wantsSandbox(env)) return configured;
  if (!sandboxRunningHere()) {
    throw new Error(
      `No merchant key is set, so the listener here is the sandbox, and no sandbox is running in this directory ` +
        `(it keeps ${SANDBOX_DATABASE_PATH} only while it runs). Start it with "npm start" and run this command in the same directory.`,
    );
  }
  return `sqlite:${SANDBOX_DATABASE_PATH}`;
}
