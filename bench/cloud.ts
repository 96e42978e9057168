/**
 * POST /api/v1/invoice throughput across 100 merchants (each with its own key and xpub sequence),
 * on SQLite with one instance and on Postgres with one and two instances (separate processes on
 * one database), side by side. Target: two instances on Postgres >= 1.6x one.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { progress, report, round } from './support/report.ts';
import { freePort, startServer } from './support/server-process.ts';

const ZPUB = 'zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs';
const MERCHANTS = 100;
const CONNECTIONS = 50;
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 8);
const PG_URL = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

async function startCloudProcess(databaseUrl: string): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  const env = { DATABASE_URL: databaseUrl, CLOUD_INVOICE_RATE_LIMIT: 'off', CLOUD_SIGNUP_RATE_LIMIT: 'off', CLOUD_WATCH: 'false', BTC_ESPLORA_URL: 'http://127.0.0.1:9/api' };
  const child = await startServer(['bin/cli.ts', 'start', '--cloud'], env, port, '/api/v1/health');
  return { child, url: `http://127.0.0.1:${port}` };
}

async function signupAll(url: string): Promise<string[]> {
  const keys: string[] = [];
  for (let i = 0; i < MERCHANTS; i++) {
    const response = await fetch(`${url}/api/v1/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: `bench${i}@example.com`, shop_name: `Bench ${i}`, btc_xpub: ZPUB }),
    });
    keys.push(((await response.json()) as { api_key: string }).api_key);
  }
  return keys;
}

/** Load on every URL at once (connections split between them); returns created invoices per second. */
async function load(urls: string[], keys: string[]) {
  let next = 0;
  const runs = urls.map((url) =>
    autocannon({
      url: `${url}/api/v1/invoice`,
      connections: Math.round(CONNECTIONS / urls.length),
      duration: DURATION_S,
      requests: [
        {
          method: 'POST',
          setupRequest: (request) => ({
            ...request,
            headers: { 'content-type': 'application/json', 'x-service-api-key': keys[next++ % keys.length] },
            body: JSON.stringify({ amount_sats: 1000 }),
          }),
        },
      ],
    }),
  );
  const results = await Promise.all(runs);
  const ok = results.reduce((sum, r) => sum + r['2xx'], 0);
  const non2xx = results.reduce((sum, r) => sum + r.non2xx, 0);
  return { rps: ok / DURATION_S, p50: Math.max(...results.map((r) => r.latency.p50)), non2xx };
}

async function freshSchema(): Promise<string> {
  const schema = `bench_cloud_${Date.now()}`;
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  await client.query(`create schema ${schema}`);
  await client.end();
  const url = new URL(PG_URL);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return url.toString();
}

async function scenario(name: string, databaseUrl: string, instances: number) {
  progress(`${name}: starting ${instances} instance(s)`);
  const first = await startCloudProcess(databaseUrl);
  const others = [];
  for (let i = 1; i < instances; i++) others.push(await startCloudProcess(databaseUrl));
  const all = [first, ...others];
  try {
    const keys = await signupAll(first.url);
    // Pro plan for the run, so the monthly cap does not end it early.
    if (databaseUrl.startsWith('postgres')) {
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      await client.query(`update cloud_merchants set plan = 'pro', plan_expires_at = $1`, [Date.now() + 86_400_000]);
      await client.end();
    } else {
      const { default: Database } = await import('better-sqlite3');
      const db = new Database(databaseUrl.slice('sqlite:'.length));
      db.prepare(`update cloud_merchants set plan = 'pro', plan_expires_at = ?`).run(Date.now() + 86_400_000);
      db.close();
    }
    progress(`${name}: ${MERCHANTS} merchants, ${DURATION_S} s of load`);
    const result = await load(all.map((p) => p.url), keys);
    progress(`${name}: ${round(result.rps, 0)} invoices/s`);
    return result;
  } finally {
    for (const p of all) p.child.kill('SIGTERM');
    await Promise.all(all.map((p) => new Promise((r) => (p.child.exitCode !== null ? r(null) : p.child.once('exit', r)))));
  }
}

const schemas: string[] = [];
async function freshDatabase(): Promise<string> {
  const url = await freshSchema();
  schemas.push(new URL(url).searchParams.get('options')!.split('=')[1]);
  return url;
}

const sqlite = await scenario('sqlite, 1 instance', `sqlite:${join(mkdtempSync(join(tmpdir(), 'bench-cloud-')), 'cloud.db')}`, 1);
const pgOne = await scenario('postgres, 1 instance', await freshDatabase(), 1);
const pgTwo = await scenario('postgres, 2 instances', await freshDatabase(), 2);
const cleanup = new pg.Client({ connectionString: PG_URL });
await cleanup.connect();
for (const schema of schemas) await cleanup.query(`drop schema ${schema} cascade`);
await cleanup.end();
const ratio = round(pgTwo.rps / pgOne.rps);
const line = (name: string, r: { rps: number; p50: number; non2xx: number }) =>
  `${name.padEnd(24)} ${String(round(r.rps, 0)).padStart(7)} invoices/s   p50 ${r.p50} ms   non-2xx ${r.non2xx}`;
report(
  [
    `POST /api/v1/invoice, ${MERCHANTS} merchants, ${CONNECTIONS} connections, ${DURATION_S} s each`,
    line('sqlite, 1 instance', sqlite),
    line('postgres, 1 instance', pgOne),
    line('postgres, 2 instances', pgTwo),
    `two instances / one on Postgres: ${ratio}x (target >= 1.6x)`,
  ],
  { bench: 'cloud', value: round(pgTwo.rps, 1), unit: 'invoices/s', baseline: round(pgOne.rps, 1), ratio, target: 1.6, sqlite_rps: round(sqlite.rps, 1) },
);
