import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/** BIP-84 test vector account key (m/84'/0'/0'); its first receive address is known. */
export const BIP84_ZPUB =
  'zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs';
export const BIP84_FIRST_ADDRESS = 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu';

export interface ListenerProcess {
  url: string;
  stop(): Promise<void>;
}

/**
 * Starts the real listener CLI (`bin/service.js start`) on a random port with a fresh SQLite
 * database, in an empty working directory so no stray .env is read. Resolves with its URL once
 * its "listener started" log line appears.
 */
export async function startListenerProcess(env: Record<string, string> = {}): Promise<ListenerProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'listener-'));
  const child = spawn(process.execPath, [join(repoRoot, 'bin/service.js'), 'start'], {
    cwd: dir,
    env: {
      PATH: process.env.PATH ?? '',
      PORT: '0',
      DATABASE_URL: `sqlite:${join(dir, 'service.db')}`,
      MERCHANT_BTC_XPUB: BIP84_ZPUB,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  try {
    const url = await startedUrl(child, () => stderr);
    return {
      url,
      async stop() {
        await stopProcess(child);
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await stopProcess(child);
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

function startedUrl(child: ChildProcess, stderr: () => string): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`listener did not start in 20 s: ${stderr()}`)), 20_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`listener exited with ${code}: ${stderr()}`));
    });
    createInterface({ input: child.stdout! }).on('line', (line) => {
      let record: { msg?: string; url?: string };
      try {
        record = JSON.parse(line);
      } catch {
        return;
      }
      if (record.msg === 'listener started' && record.url) {
        clearTimeout(timer);
        resolve(record.url);
      }
    });
  });
}

async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}
