import { readFileSync, rmSync, writeFileSync } from 'node:fs';

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
  let state: SandboxState;
  try {
    state = JSON.parse(readFileSync(path, 'utf8')) as SandboxState;
  } catch {
    return null;
  }
  if (!Number.isSafeInteger(state.pid) || state.pid <= 0) return null;
  try {
    process.kill(state.pid, 0);
    return state;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM' ? state : null;
  }
}
