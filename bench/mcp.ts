/**
 * create_invoice over MCP stdio vs POST /invoice over HTTP, against one real listener process.
 * The two are interleaved call by call so machine noise hits both alike. Target: MCP p50 within
 * 1.5x of direct HTTP. Run: npm run bench -- mcp
 */
import { cpus, loadavg } from 'node:os';
import { renderQrPng } from '../mcp/qr.ts';
import { BIP84_ZPUB, startListenerProcess } from '../test/support/listener-process.ts';
import { connectMcp } from '../test/support/mcp-process.ts';

const CALLS = 1000;
const WARMUP = 50;
const TARGET_RATIO = 1.5;
const API_KEY = 'bench-key-0123456789abcdef';

const listener = await startListenerProcess({
  MERCHANT_BTC_XPUB: BIP84_ZPUB,
  SERVICE_API_KEY: API_KEY,
  SERVICE_RATE_LIMIT: 'off',
});
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
  const round = (ms: number) => Math.round(ms * 1000) / 1000;
  return {
    p50: round(percentile(sorted, 50)),
    p99: round(percentile(sorted, 99)),
    mean: round(samples.reduce((sum, ms) => sum + ms, 0) / samples.length),
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
    if ((i + 1) % 100 === 0) process.stderr.write(`  ${i + 1}/${CALLS} of each\n`);
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
  const ratio = Math.round((m.p50 / h.p50) * 100) / 100;
  // Three processes take turns on the MCP path, two on the HTTP path: a busy machine widens the gap.
  const load = Math.round(loadavg()[0]! * 100) / 100;
  console.log(`create_invoice, ${CALLS} sequential calls each, interleaved, one listener (SQLite)`);
  console.log(`  machine: ${cpus().length} cores, load average ${load} (1 min)`);
  console.log(`  direct HTTP POST /invoice   p50 ${h.p50} ms   p99 ${h.p99} ms   mean ${h.mean} ms`);
  console.log(`  MCP stdio create_invoice    p50 ${m.p50} ms   p99 ${m.p99} ms   mean ${m.mean} ms`);
  console.log(`  of which the QR code PNG    p50 ${q.p50} ms   p99 ${q.p99} ms (timed alone in-process)`);
  console.log(`  ratio MCP/HTTP p50 ${ratio}x (target <= ${TARGET_RATIO}x): ${ratio <= TARGET_RATIO ? 'met' : 'NOT met'}`);
  console.log(
    JSON.stringify({
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
    }),
  );
} finally {
  await session.close();
  await listener.stop();
}
