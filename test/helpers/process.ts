import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { BIP84_ZPUB, NO_CHAIN_ESPLORA_URL } from './listener.ts';
import './built.ts';

export const SERVICE_BIN = fileURLToPath(new URL('../../bin/service.js', import.meta.url));

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the real CLI to completion. */
export function runCli(args: string[], options: { env?: Record<string, string>; cwd?: string; timeoutMs?: number; nodeArgs?: string[] } = {}): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...(options.nodeArgs ?? []), SERVICE_BIN, ...args], {
      cwd: options.cwd,
      // A sandbox a test did not ask for binds a free port, never the developer's 18443.
      env: { PATH: process.env.PATH ?? '', SANDBOX_CHAIN_PORT: '0', ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 30_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

export interface ListenerProcess {
  child: ChildProcess;
  url: string;
  output(): string;
  /** SIGTERM and wait for exit. */
  stop(): Promise<number | null>;
}

/**
 * Starts `service start` as a child process and resolves once it logs its URL. Unless the test
 * says otherwise it runs with the BIP-84 test key and an unreachable chain source, so it is never
 * the sandbox (whose database lives in memory) and never reaches a public explorer.
 */
export function spawnListener(env: Record<string, string>, cwd?: string, options: { onOutput?: (output: string) => void } = {}): Promise<ListenerProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SERVICE_BIN, 'start'], {
      cwd,
      env: {
        PATH: process.env.PATH ?? '',
        PORT: '0',
        MERCHANT_BTC_XPUB: BIP84_ZPUB,
        BTC_ESPLORA_URL: NO_CHAIN_ESPLORA_URL,
        SANDBOX_CHAIN_PORT: '0',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const exited = new Promise<number | null>((done) => child.on('close', (code) => done(code)));
    let started = false;
    const onData = (chunk: Buffer) => {
      output += chunk;
      options.onOutput?.(output);
      // Scanned until the start line only: later output is kept, never searched again per chunk.
      if (started) return;
      const match = /"msg":"listener started","url":"([^"]+)"/.exec(output);
      if (match) {
        started = true;
        resolve({
          child,
          url: match[1],
          output: () => output,
          stop: async () => {
            child.kill('SIGTERM');
            return exited;
          },
        });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (chunk) => (output += chunk));
    void exited.then((code) => reject(new Error(`listener exited (${code}) before starting:\n${output}`)));
  });
}
