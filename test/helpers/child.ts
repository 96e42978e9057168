import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import './built.ts';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

export interface Child {
  process: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the first regex match on stderr or stdout; rejects if the child exits first or after timeoutMs. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  exited: Promise<number | null>;
}

/** Runs a bin entry of this repository (compiled JavaScript) as a real child process. */
export function spawnBin(entry: string, args: string[], env: Record<string, string | undefined>, cwd?: string): Child {
  return spawnChild(process.execPath, [entry, ...args], env, { cwd });
}

/**
 * Runs a program as a real child process in the repository root (or `cwd`). `detached` puts it in
 * a process group of its own, for a program such as npm whose children must be stopped with it.
 */
export function spawnChild(command: string, args: string[], env: Record<string, string | undefined>, options: { detached?: boolean; cwd?: string } = {}): Child {
  const child = spawn(command, args, {
    cwd: options.cwd ?? repoRoot,
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.detached,
  });
  let out = '';
  let err = '';
  const waiters = new Set<() => void>();
  const notify = () => waiters.forEach((w) => w());
  child.stdout!.on('data', (d) => ((out += d), notify()));
  child.stderr!.on('data', (d) => ((err += d), notify()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => (notify(), resolve(code))));
  return {
    process: child,
    stdout: () => out,
    stderr: () => err,
    exited,
    waitFor(pattern, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = err.match(pattern) ?? out.match(pattern);
          if (match) return done(() => resolve(match));
          if (child.exitCode !== null || child.signalCode !== null) {
            done(() => reject(new Error(`child exited before ${pattern}:\n${out}\n${err}`)));
          }
        };
        const timer = setTimeout(() => done(() => reject(new Error(`timed out waiting for ${pattern}:\n${out}\n${err}`))), timeoutMs);
        const done = (settle: () => void) => (clearTimeout(timer), waiters.delete(check), settle());
        waiters.add(check);
        check();
      });
    },
  };
}
