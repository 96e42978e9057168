/**
 * The compiled Cloud as its own process for the Cloud benches (cloud-watch, cloud-scale): started
 * as `npm start -- --cloud` runs it, against a fresh SQLite file or a private Postgres schema, and
 * its CPU and memory read from /proc.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { freePort } from './server-process.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const CLOCK_TICKS = 100;

export const PG_URL = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export type DatabaseKind = 'sqlite' | 'postgres';

/** A fresh SQLite file or Postgres schema (`prefix` names it), and how to drop it. */
export async function freshDatabase(kind: DatabaseKind, prefix: string): Promise<{ url: string; cleanup(): Promise<void> }> {
  if (kind === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), `${prefix}-`));
    return { url: `sqlite:${join(dir, 'cloud.db')}`, cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const schema = `${prefix.replace(/-/g, '_')}_${randomBytes(4).toString('hex')}`;
  await withPg(PG_URL, (client) => client.query(`create schema ${schema}`));
  const url = new URL(PG_URL);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    url: url.toString(),
    cleanup: async () => {
      await withPg(PG_URL, (client) => client.query(`drop schema ${schema} cascade`));
    },
  };
}

export async function withPg<T>(url: string, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

/** The compiled Cloud (dist/, built beforehand), as `npm start -- --cloud` runs it, watching the local chain at `esploraUrl`. */
export async function startCloudProcess(databaseUrl: string, esploraUrl: string): Promise<{ child: ChildProcess; port: number }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['bin/service.js', 'start', '--cloud'], {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(port),
      DATABASE_URL: databaseUrl,
      CLOUD_WATCH: 'true',
      BTC_ESPLORA_URL: esploraUrl,
      BTC_ESPLORA_NETWORK: 'regtest',
      BTC_ESPLORA_SELF_HOSTED: 'true',
      CLOUD_SIGNUP_RATE_LIMIT: 'off',
      CLOUD_INVOICE_RATE_LIMIT: 'off',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  for (let tries = 0; tries < 600; tries++) {
    if (child.exitCode !== null) throw new Error(`the Cloud process exited with ${child.exitCode}`);
    try {
      await fetch(`http://127.0.0.1:${port}/api/v1/health`);
      return { child, port };
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new Error('the Cloud process did not answer');
}

export async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

const statusMb = (pid: number, field: 'VmRSS' | 'VmHWM') => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
export const rssMb = (pid: number) => statusMb(pid, 'VmRSS');
/** The highest RSS the process reached so far. */
export const peakRssMb = (pid: number) => statusMb(pid, 'VmHWM');
/** User plus system CPU seconds of the process so far. */
export const cpuS = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
};
/** Share of one core the process used over the next `seconds`, percent. */
export const cpuPctOver = async (pid: number, seconds: number) => {
  const before = cpuS(pid);
  const started = performance.now();
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  return ((cpuS(pid) - before) / ((performance.now() - started) / 1000)) * 100;
};

export async function waitFor(what: string, check: () => Promise<boolean> | boolean, timeoutMs: number, everyMs = 50): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** Until the process used under a tenth of a core over `windowS`: the work started before is done. */
export const waitQuiet = (what: string, pid: number, windowS = 1) => waitFor(what, async () => (await cpuPctOver(pid, windowS)) < 10, 600_000, 0);
