// The listener's streamed CSV export (`GET /invoices?format=csv`, the same handler as Cloud's
// `GET /api/v1/invoices?format=csv`) of 100,000 invoices, against the baseline a client has
// without it: paging through the same rows with the JSON list API, `limit=100` and its cursors,
// on the same server in the same run. A SQLite file is filled first (every chain, a few statuses,
// order references, metadata and memos that need quoting), then the compiled listener starts in
// its own process, so its memory is its own: RSS is read from /proc before each transfer and
// sampled during it, its peak (VmHWM) reset first so start-up does not count. Rounds alternate
// CSV and JSON; the faster of each is reported. `BENCH_INVOICES`, `BENCH_ROUNDS` change the size,
// `BENCH_HEAP_MB` caps the listener's V8 old space (default: none, as `service start` runs).
// Run: npm run bench -- csv-export
import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { defaultChains } from '../core/chains/default-chains.ts';
import type { InvoiceRow } from '../core/invoices/invoice.repository.ts';
import { openCoreDatabase } from '../core/schema.ts';
import { chainFacts, chainNames } from '../shared/chains.ts';
import { invoiceRow, insertRows } from '../test/helpers/invoice-rows.ts';
import { tempSqliteUrl } from '../test/helpers/listener.ts';
import { spawnListener } from '../test/helpers/process.ts';
import { MB, processMemory, resetPeak } from './support/process-memory.ts';
import { progress, progressOf, report, round } from './support/report.ts';

const INVOICES = Number(process.env.BENCH_INVOICES ?? 100_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const HEAP_MB = process.env.BENCH_HEAP_MB;
const PAGE_LIMIT = 100;
const FILL_BATCH = 10_000;
const KEY = 'sk_bench_export_key_0123456789';
const MERCHANT = 'm_own';
/** The issue's bound on what an export adds to the server's resident memory. */
const RSS_TARGET_MB = 100;
const headers = { 'X-Service-Api-Key': KEY };

/** Invoice n of the fill: chains, assets and statuses in turn (the confirmed ones paid); some with an order reference, metadata, a memo to quote. */
function rowOf(n: number, start: number): InvoiceRow {
  const chain = chainNames[n % chainNames.length];
  const facts = chainFacts[chain];
  const evmNetwork = Object.keys(facts.networks)[0];
  const status = (['confirmed', 'expired', 'pending', 'partial'] as const)[n % 4];
  const createdAt = start + n * 1000;
  const txHash = `${facts.family === 'evm' ? '0x' : ''}${n.toString(16).padStart(64, 'a')}`;
  return invoiceRow(MERCHANT, `inv_${String(n).padStart(6, '0')}`, {
    created_at: createdAt,
    chain,
    asset: facts.assets[Math.floor(n / chainNames.length) % facts.assets.length],
    ...(evmNetwork ? { network: evmNetwork } : {}),
    status,
    ...(status === 'confirmed' ? { tx_hash: txHash, paid_at: createdAt + 600_000 } : {}),
    order_id: n % 2 ? `order-${n}` : null,
    metadata: n % 3 ? null : `{"customer":"c${n}","cart":[${n % 7},${n % 11}]}`,
    memo: n % 5 ? null : `Order ${n}, "gift"`,
  });
}

/** A fresh SQLite file holding INVOICES invoices, written in transactions of FILL_BATCH rows. */
async function fill(): Promise<{ url: string; seconds: number }> {
  const url = tempSqliteUrl();
  const database = await openCoreDatabase(url, defaultChains);
  const started = performance.now();
  const start = Date.UTC(2026, 0, 1);
  for (let from = 0; from < INVOICES; from += FILL_BATCH) {
    const rows = Array.from({ length: Math.min(FILL_BATCH, INVOICES - from) }, (_, i) => rowOf(from + i, start));
    await database.db.transaction().execute((trx) => insertRows(trx, rows));
    progressOf('filling', from + rows.length, INVOICES, started);
  }
  await database.close();
  return { url, seconds: (performance.now() - started) / 1000 };
}

interface Memory {
  beforeMb: number;
  peakMb: number;
  growthMb: number;
  peakReset: boolean;
}

/** The server's RSS from now on: before, sampled on demand, and the peak at the end. */
function watchMemory(pid: number) {
  const peakReset = resetPeak(pid);
  const before = processMemory(pid).rss;
  let highest = before;
  return {
    sample: () => void (highest = Math.max(highest, processMemory(pid).rss)),
    /** The peak is VmHWM when it could be reset, else only what the samples saw. */
    done(): Memory {
      const peak = Math.max(highest, peakReset ? processMemory(pid).peak : 0);
      return { beforeMb: before / MB, peakMb: peak / MB, growthMb: (peak - before) / MB, peakReset };
    },
  };
}

interface Transfer {
  rows: number;
  bytes: number;
  seconds: number;
  /** CSV: sending the request to its first body byte; JSON: the first page, whole. */
  firstMs: number;
  requests: number;
  memory: Memory;
}

async function exportCsv(url: string, pid: number): Promise<Transfer> {
  const memory = watchMemory(pid);
  const started = performance.now();
  const response = await fetch(`${url}/invoices?format=csv`, { headers });
  if (response.status !== 200) throw new Error(`CSV export answered ${response.status}: ${await response.text()}`);
  let firstMs = NaN;
  let bytes = 0;
  let lines = 0;
  let reported = 0;
  for await (const chunk of response.body! as AsyncIterable<Uint8Array>) {
    if (bytes === 0) firstMs = performance.now() - started;
    bytes += chunk.byteLength;
    // Line feeds: no memo of the fill holds a line break, so one a row, plus the header.
    for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) lines++;
    memory.sample();
    if (lines - reported >= 20_000) progressOf('  csv rows', (reported = lines) - 1, INVOICES, started);
  }
  const seconds = (performance.now() - started) / 1000;
  if (lines - 1 !== INVOICES) throw new Error(`the CSV held ${lines - 1} rows, not ${INVOICES}`);
  return { rows: lines - 1, bytes, seconds, firstMs, requests: 1, memory: memory.done() };
}

async function pageJson(url: string, pid: number): Promise<Transfer> {
  const memory = watchMemory(pid);
  const started = performance.now();
  let cursor: string | null = null;
  let firstMs = NaN;
  let rows = 0;
  let bytes = 0;
  let requests = 0;
  do {
    const query: string = cursor ? `&cursor=${cursor}` : '';
    const response = await fetch(`${url}/invoices?limit=${PAGE_LIMIT}${query}`, { headers });
    const raw = new Uint8Array(await response.arrayBuffer());
    if (response.status !== 200) throw new Error(`JSON page answered ${response.status}: ${new TextDecoder().decode(raw)}`);
    const page = JSON.parse(new TextDecoder().decode(raw)) as { invoices: unknown[]; next_cursor: string | null };
    if (++requests === 1) firstMs = performance.now() - started;
    rows += page.invoices.length;
    bytes += raw.byteLength;
    cursor = page.next_cursor;
    memory.sample();
    if (requests % 200 === 0) progressOf('  json rows', rows, INVOICES, started);
  } while (cursor);
  const seconds = (performance.now() - started) / 1000;
  if (rows !== INVOICES) throw new Error(`the JSON pages held ${rows} rows, not ${INVOICES}`);
  return { rows, bytes, seconds, firstMs, requests, memory: memory.done() };
}

const rowsPerS = (t: Transfer) => t.rows / t.seconds;
const fastest = (transfers: Transfer[]) => transfers.reduce((best, t) => (t.seconds < best.seconds ? t : best));
const describe = (t: Transfer) =>
  `${Math.round(rowsPerS(t)).toLocaleString('en')} rows/s, ${(t.bytes / MB / t.seconds).toFixed(1)} MB/s (${(t.bytes / MB).toFixed(1)} MB in ${t.seconds.toFixed(1)} s, ${t.requests} ${t.requests === 1 ? 'request' : 'requests'}), first ${t.firstMs.toFixed(0)} ms; server RSS ${t.memory.beforeMb.toFixed(0)} → peak ${t.memory.peakMb.toFixed(0)} MB (+${t.memory.growthMb.toFixed(1)})`;

const filled = await fill();
const listener = await spawnListener({
  DATABASE_URL: filled.url,
  SERVICE_API_KEY: KEY,
  MERCHANT_ID: MERCHANT,
  SERVICE_RATE_LIMIT: 'off',
  LOG_LEVEL: 'warn',
  ...(HEAP_MB ? { NODE_OPTIONS: `--max-old-space-size=${HEAP_MB}` } : {}),
});
const pid = listener.child.pid!;
const idleMb = processMemory(pid).rss / MB;
const csv: Transfer[] = [];
const json: Transfer[] = [];
try {
  for (let r = 1; r <= ROUNDS; r++) {
    csv.push(await exportCsv(listener.url, pid));
    progress(`[round ${r}/${ROUNDS}] csv: ${describe(csv.at(-1)!)}`);
    json.push(await pageJson(listener.url, pid));
    progress(`[round ${r}/${ROUNDS}] json: ${describe(json.at(-1)!)}`);
  }
} finally {
  await listener.stop();
  rmSync(dirname(filled.url.slice('sqlite:'.length)), { recursive: true, force: true });
}

const best = { csv: fastest(csv), json: fastest(json) };
const ratio = round(rowsPerS(best.csv) / rowsPerS(best.json));
const growthMb = Math.max(...csv.map((t) => t.memory.growthMb));
const rssMet = growthMb < RSS_TARGET_MB;
const peakNote = csv.every((t) => t.memory.peakReset) ? 'VmHWM reset before each transfer' : 'VmHWM could not be reset: peak is the highest sample';
report(
  [
    '',
    `csv-export: ${INVOICES.toLocaleString('en')} invoices on SQLite (filled in ${filled.seconds.toFixed(1)} s), compiled listener in its own process${HEAP_MB ? ` (--max-old-space-size=${HEAP_MB})` : ''}, idle RSS ${idleMb.toFixed(0)} MB; faster of ${ROUNDS} rounds each`,
    '',
    `CSV export (one request):        ${describe(best.csv)}`,
    `JSON pages of ${PAGE_LIMIT} (baseline): ${describe(best.json)}`,
    '',
    `CSV vs JSON paging (same run): ${ratio}x the rows/s (target ≥ 1: ${ratio >= 1 ? 'met' : 'NOT MET'})`,
    `server RSS growth during the CSV export, largest of ${ROUNDS}: ${growthMb.toFixed(1)} MB (target < ${RSS_TARGET_MB} MB: ${rssMet ? 'met' : 'NOT MET'}; ${peakNote})`,
  ],
  {
    bench: 'csv-export',
    value: Math.round(rowsPerS(best.csv)),
    unit: 'rows/s',
    baseline: Math.round(rowsPerS(best.json)),
    ratio,
    target: `csv rows/s ≥ 1× JSON paging; server RSS growth < ${RSS_TARGET_MB} MB`,
    ratio_met: ratio >= 1,
    rss_growth_mb: round(growthMb, 1),
    rss_target_mb: RSS_TARGET_MB,
    rss_met: rssMet,
    rss_idle_mb: round(idleMb, 1),
    rss_before_mb: round(best.csv.memory.beforeMb, 1),
    rss_peak_mb: round(Math.max(...csv.map((t) => t.memory.peakMb)), 1),
    csv_mb_per_s: round(best.csv.bytes / MB / best.csv.seconds, 1),
    csv_mb: round(best.csv.bytes / MB, 1),
    csv_s: round(best.csv.seconds, 2),
    ttfb_ms: round(best.csv.firstMs, 1),
    json_first_page_ms: round(best.json.firstMs, 1),
    json_s: round(best.json.seconds, 2),
    json_rss_growth_mb: round(Math.max(...json.map((t) => t.memory.growthMb)), 1),
    invoices: INVOICES,
    rounds: ROUNDS,
    heap_cap_mb: HEAP_MB ? Number(HEAP_MB) : null,
    fill_s: round(filled.seconds, 1),
  },
);
