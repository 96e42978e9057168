/**
 * create_invoice over MCP stdio vs POST /invoice over HTTP, against one real listener process.
 * The two are interleaved call by call so machine noise hits both alike. Target: MCP p50 within
 * 1.5x of direct HTTP. Run: npm run bench -- mcp
 */
import { mkdtempSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderQrPng } from '../mcp/qr.ts';
import { BIP84_ZPUB, NO_CHAIN_ESPLORA_URL, tempSqliteUrl } from '../test/support/listener.ts';
import { spawnListener } from '../test/support/process.ts';
import { connectMcp } from '../test/support/mcp-process.ts';
import { progress, report, round } from './support/report.ts';

const CALLS = 1000;
const WARMUP = 50;
const TARGET_RATIO = 1.5;
const API_KEY = 'bench-key-0123456789abcdef';

const listener = await spawnListener(
  {
    DATABASE_URL: tempSqliteUrl(),
    MERCHANT_BTC_XPUB: BIP84_ZPUB,
    BTC_ESPLORA_URL: NO_CHAIN_ESPLORA_URL,
    SERVICE_API_KEY: API_KEY,
    SERVICE_RATE_LIMIT: 'off',
  },
  mkdtempSync(join(tmpdir(), 'bench-mcp-')),
);
const session = await connectMcp({ LISTENER_URL: listener.url, SERVICE_API_KEY: API_KEY });

async function viaHttp(amount: number): Promise<void> {
  const response = await fetch(`${listener.url}/invoice`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-api-key': API_KEY },
    body: JSON.stringify({ amount_sats: amount }),
  });
  await response.json();
  if (response.status !== 201) throw new Error(`POST /invoice answered ${response.status}`);
}

const paymentUris: string[] = [];

async function viaMcp(amount: number): Promise<void> {
  const result = await session.client.callTool({ name: 'create_invoice', arguments: { amount_sats: amount } });
  if (result.isError) throw new Error(`create_invoice failed: ${JSON.stringify(result.content)}`);
  paymentUris.push((result.structuredContent as { invoice: { qr_uri: string } }).invoice.qr_uri);
}

async function timed(run: () => Promise<void>): Promise<number> {
  const start = process.hrtime.bigint();
  await run();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

function summary(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    p50: round(percentile(sorted, 50), 3),
    p99: round(percentile(sorted, 99), 3),
    mean: round(samples.reduce((sum, ms) => sum + ms, 0) / samples.length, 3),
  };
}

try {
  // Tool listing caches the output-schema validator the client applies to every result.
  await session.client.listTools();
  for (let i = 0; i < WARMUP; i++) {
    await viaHttp(1000 + i);
    await viaMcp(1000 + i);
  }
  const http: number[] = [];
  const mcp: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    http.push(await timed(() => viaHttp(5000 + i)));
    mcp.push(await timed(() => viaMcp(5000 + i)));
    if ((i + 1) % 100 === 0) progress(`  ${i + 1}/${CALLS} of each`);
  }
  // The QR code is the one CPU-heavy step of the tool: time it alone, in this process, on the same URIs.
  const qr = paymentUris.slice(-CALLS).map((uri) => {
    const start = process.hrtime.bigint();
    renderQrPng(uri);
    return Number(process.hrtime.bigint() - start) / 1e6;
  });
  const h = summary(http);
  const m = summary(mcp);
  const q = summary(qr);
  const ratio = round(m.p50 / h.p50);
  // Three processes take turns on the MCP path, two on the HTTP path: a busy machine widens the gap.
  const load = round(loadavg()[0]!);
  report(
    [
      `create_invoice, ${CALLS} sequential calls each, interleaved, one listener (SQLite)`,
      `  machine: ${cpus().length} cores, load average ${load} (1 min)`,
      `  direct HTTP POST /invoice   p50 ${h.p50} ms   p99 ${h.p99} ms   mean ${h.mean} ms`,
      `  MCP stdio create_invoice    p50 ${m.p50} ms   p99 ${m.p99} ms   mean ${m.mean} ms`,
      `  of which the QR code PNG    p50 ${q.p50} ms   p99 ${q.p99} ms (timed alone in-process)`,
      `  ratio MCP/HTTP p50 ${ratio}x (target <= ${TARGET_RATIO}x): ${ratio <= TARGET_RATIO ? 'met' : 'NOT met'}`,
    ],
    {
      bench: 'mcp',
      value: m.p50,
      unit: 'ms',
      baseline: h.p50,
      ratio,
      target: TARGET_RATIO,
      mcp_p99_ms: m.p99,
      http_p99_ms: h.p99,
      qr_p50_ms: q.p50,
      load_avg_1m: load,
      calls: CALLS,
    },
  );
} finally {
  await session.close();
  await listener.stop();
}
