/**
 * POST /invoice (btc): latency under a steady open-loop load (300 a second, not saturating), then
 * throughput and latency at 50 connections, next to two baselines measured in the same run: a bare
 * Koa handler returning the same JSON, and a plain loop doing the minimum an invoice needs (one
 * BIP-32 child derivation, the address, one database insert). A second, profiled listener under the
 * same saturating load gives the CPU profile's top entries.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import Database from 'better-sqlite3';
import { parseAccountKey, receiveAddress } from '../core/btc/account-key.ts';
import { progress, report, round } from './support/report.ts';
import { freePort, startServer, stopServer } from './support/server-process.ts';
import { openLoop } from './support/open-loop.ts';
import { readProfileIn, summarizeProfile } from './support/cpu-profile.ts';

const ZPUB = 'zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs';
const CONNECTIONS = 50;
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 8);
const LOOP_MS = 3000;
const OPEN_LOOP_RATE = Number(process.env.BENCH_OPEN_LOOP_RATE ?? 300);
const OPEN_LOOP_S = Number(process.env.BENCH_OPEN_LOOP_S ?? 10);
const OPEN_LOOP_P99_TARGET_MS = 25;

async function load(url: string) {
  const result = await autocannon({
    url,
    method: 'POST',
    connections: CONNECTIONS,
    duration: DURATION_S,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ amount_sats: 1000 }),
  });
  const ok = result['2xx'];
  return { rps: ok / DURATION_S, p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx, errors: result.errors };
}

const createTable = `create table invoices (invoice_id text primary key, merchant_id text, receive_address text, child_index integer, amount_sats integer, created_at integer)`;
const insertSql = `insert into invoices values (?, ?, ?, ?, ?, ?)`;

/** The plain loop, on one core: derive + address + one insert (better-sqlite3), per second. */
function plainLoopRate(): number {
  const key = parseAccountKey(ZPUB);
  const db = new Database(join(mkdtempSync(join(tmpdir(), 'bench-')), 'loop.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec(createTable);
  const insert = db.prepare(insertSql);
  const started = performance.now();
  let index = 0;
  while (performance.now() - started < LOOP_MS) {
    insert.run(`inv_${index}`, 'default', receiveAddress(key, index), index, 1000, Date.now());
    index++;
  }
  db.close();
  return index / ((performance.now() - started) / 1000);
}

progress('plain loop (derive + address + insert, better-sqlite3)…');
const loopRate = plainLoopRate();

const dataDir = mkdtempSync(join(tmpdir(), 'bench-listener-'));
const listenerEnv = (name: string) => ({
  MERCHANT_BTC_XPUB: ZPUB,
  SERVICE_RATE_LIMIT: 'off',
  // No chain here: the watcher polls a refused loopback port instead of a public explorer.
  BTC_ESPLORA_URL: 'http://127.0.0.1:9/api',
  DATABASE_URL: `sqlite:${join(dataDir, `${name}.db`)}`,
});
const body = JSON.stringify({ amount_sats: 1000 });

progress(`listener POST /invoice, open loop at ${OPEN_LOOP_RATE}/s for ${OPEN_LOOP_S} s, then ${CONNECTIONS} connections…`);
const listenerPort = await freePort();
const listener = await startServer(['bin/cli.ts', 'start'], listenerEnv('service'), listenerPort);
const invoiceUrl = `http://127.0.0.1:${listenerPort}/invoice`;
const sample = await (await fetch(invoiceUrl, { method: 'POST', body })).json();
// A short warm-up at the same rate, so the measured seconds are not the JIT's first ones.
await openLoop({ url: invoiceUrl, body, ratePerS: OPEN_LOOP_RATE, durationS: 2 });
const steady = await openLoop({ url: invoiceUrl, body, ratePerS: OPEN_LOOP_RATE, durationS: OPEN_LOOP_S });
const service = await load(invoiceUrl);
await stopServer(listener);

// The profile comes from a run of its own: sampling costs the server some throughput.
progress(`listener under a CPU profile at ${CONNECTIONS} connections…`);
const profileDir = mkdtempSync(join(tmpdir(), 'bench-profile-'));
const profilePort = await freePort();
const profiled = await startServer(['bin/cli.ts', 'start'], listenerEnv('profiled'), profilePort, '/health', ['--cpu-prof', `--cpu-prof-dir=${profileDir}`]);
await load(`http://127.0.0.1:${profilePort}/invoice`);
await stopServer(profiled);
const profile = summarizeProfile(readProfileIn(profileDir));

progress('bare Koa baseline at 50 connections…');
const barePort = await freePort();
const bare = await startServer(['bench/support/bare-koa.ts', JSON.stringify(sample)], {}, barePort);
const koa = await load(`http://127.0.0.1:${barePort}/invoice`);
await stopServer(bare);

const ratio = service.rps / loopRate;
const openLoopMet = steady.p99 < OPEN_LOOP_P99_TARGET_MS && steady.failed === 0;
report(
  [
    `POST /invoice (btc), SQLite, one listener process (2 shared cores: figures are noisy):`,
    `  open loop ${OPEN_LOOP_RATE}/s for ${OPEN_LOOP_S} s: ${round(steady.rps, 0)} answered/s  p50 ${steady.p50} ms  p90 ${steady.p90} ms  p99 ${steady.p99} ms  max ${steady.max} ms  (failed ${steady.failed}; p99 target < ${OPEN_LOOP_P99_TARGET_MS} ms: ${openLoopMet ? 'met' : 'missed'})`,
    `  saturated, ${CONNECTIONS} connections, ${DURATION_S} s: ${round(service.rps, 0)} req/s  p50 ${service.p50} ms  p99 ${service.p99} ms  (non-2xx ${service.non2xx}, errors ${service.errors})`,
    `  bare Koa baseline: ${round(koa.rps, 0)} req/s  p50 ${koa.p50} ms  p99 ${koa.p99} ms`,
    `  plain loop (derive + address + insert): ${round(loopRate, 0)} /s on one core`,
    `  ratio listener / plain loop: ${round(ratio)} (target >= 0.7)`,
    `  CPU profile of the saturated listener (self time, share of all samples; idle ${profile.idlePct} %):`,
    ...profile.functions.map((entry) => `    ${String(entry.selfPct).padStart(5)} %  ${entry.name}`),
    `  by owner of the code:`,
    ...profile.owners.map((entry) => `    ${String(entry.selfPct).padStart(5)} %  ${entry.name}`),
  ],
  {
    bench: 'create-invoice',
    value: round(service.rps, 1),
    unit: 'req/s',
    baseline: round(loopRate, 1),
    ratio: round(ratio, 3),
    target: `>= 0.7 x plain loop; open loop ${OPEN_LOOP_RATE}/s p99 < ${OPEN_LOOP_P99_TARGET_MS} ms`,
    p50_ms: service.p50,
    p99_ms: service.p99,
    open_loop_rate: OPEN_LOOP_RATE,
    open_loop_p50_ms: steady.p50,
    open_loop_p99_ms: steady.p99,
    open_loop_failed: steady.failed,
    open_loop_p99_met: openLoopMet,
    bare_koa_rps: round(koa.rps, 1),
    bare_koa_p99_ms: koa.p99,
    profile_top: profile.functions.slice(0, 8),
    profile_owners: profile.owners.slice(0, 8),
  },
);
process.exit(0);
