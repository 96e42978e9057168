import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { StartFailure } from '../edge/settings.ts';

/**
 * What a running sandbox tells the CLI commands run in the same directory: which edition, its API,
 * its chain's control endpoint, its database. Written once the sandbox serves, removed at stop; a
 * file left by a sandbox that was killed names a process that is gone, so it is not taken for a
 * running one.
 */
export const SANDBOX_STATE_PATH = './data/sandbox.json';

/** Where the sandbox chain listens unless SANDBOX_CHAIN_PORT says otherwise. 18443 is regtest's usual RPC port. */
export const DEFAULT_SANDBOX_CHAIN_PORT = 18443;

export interface SandboxState {
  pid: number;
  edition: 'listener' | 'cloud';
  /** Where invoices are read: the listener's URL, or Cloud's `…/api/v1`. */
  api_url: string;
  /** The sandbox chain server (control endpoints under /control). */
  chain_url: string;
  /** The sandbox's SQLite database, relative to the directory it runs in. */
  database: string;
}

export function writeSandboxState(state: SandboxState): void {
  writeFileSync(SANDBOX_STATE_PATH, `${JSON.stringify(state, null, 2)}\n`);
}

export function removeSandboxState(): void {
  rmSync(SANDBOX_STATE_PATH, { force: true });
}

/** The sandbox running in this directory, or null (none, or its process is gone; EPERM: alive, another user's). */
export function runningSandbox(path = SANDBOX_STATE_PATH): SandboxState | null {
  const state = readJson<SandboxState>(path);
  return state && alive(state.pid) ? state : null;
}

/**
 * The folder's claim: taken by a sandbox before it touches anything (its database and state file
 * are removed at start), from its first step until it stops, so a second start in the same folder,
 * of either edition, is refused instead of deleting what the running one holds. The state file
 * cannot serve: it is written only once the sandbox serves.
 */
export const SANDBOX_LOCK_PATH = './data/sandbox.lock';

/**
 * Claims the folder for this process's sandbox; the call returned gives the claim up. A claim whose
 * process is gone (killed) is taken over. Throws a StartFailure naming the running sandbox.
 */
export function claimSandboxFolder(path = SANDBOX_LOCK_PATH, statePath = SANDBOX_STATE_PATH): () => void {
  mkdirSync(dirname(path), { recursive: true });
  for (let attempt = 0; ; attempt++) {
    try {
      writeFileSync(path, `${JSON.stringify({ pid: process.pid })}\n`, { flag: 'wx' });
      return () => {
        if (readJson<{ pid: number }>(path)?.pid === process.pid) rmSync(path, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = readJson<{ pid: number }>(path);
    if (holder && alive(holder.pid)) {
      const running = runningSandbox(statePath);
      const where = running?.pid === holder.pid ? `, serving ${running.api_url}` : ', still starting';
      throw new StartFailure(
        `A sandbox already runs in this folder (process ${holder.pid}${where}); its database and state files are left as they are. ` +
          'Stop it first (Ctrl-C in its terminal), or start this one in another folder.',
      );
    }
    // Gone (or a claim cut short by a crash): taken over once; two starts racing for it meet at `wx` again.
    if (attempt > 0) throw new StartFailure(`Could not claim this folder for the sandbox: ${path} keeps coming back. Remove it if no sandbox runs here.`);
    rmSync(path, { force: true });
  }
}

function readJson<T>(path: string): T | null {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as T;
  } catch {
    return null;
  }
}

/** Whether the process exists (EPERM: it does, another user's). */
function alive(pid: unknown): boolean {
  if (!Number.isSafeInteger(pid) || (pid as number) <= 0) return false;
  try {
    process.kill(pid as number, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
