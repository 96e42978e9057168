import { createListenerClient } from './mcp/listener-client.ts';
import { renderQrPng } from './mcp/qr.ts';
import { createServer } from './mcp/server.ts';
import { silentLogger } from './listener/log.ts';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { startListenerProcess } from './test/support/listener-process.ts';
import { CreatedInvoice } from './shared/index.ts';

const l = await startListenerProcess({ SERVICE_RATE_LIMIT: 'off' });
const listener = createListenerClient({ baseUrl: l.url, apiKey: undefined, fetch, timeoutMs: 5000, logger: silentLogger });
async function run(label: string, renderQr: (u: string) => Promise<Buffer>) {
  const server = createServer({ listener, renderQr });
  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'p', version: '1' });
  await Promise.all([server.connect(b), client.connect(a)]);
  await client.listTools();
  const t: number[] = [];
  for (let i = 0; i < 300; i++) { const s = performance.now(); await client.callTool({ name: 'create_invoice', arguments: { amount_sats: 1000 + i } }); t.push(performance.now() - s); }
  t.sort((x, y) => x - y);
  console.log(label, 'inmem p50', t[150].toFixed(2));
  await client.close();
}
const h: number[] = [];
for (let i = 0; i < 300; i++) { const s = performance.now(); await listener.createInvoice({ amount_sats: 1000 + i }); h.push(performance.now() - s); }
h.sort((x, y) => x - y); console.log('client.createInvoice p50', h[150].toFixed(2));
const r: number[] = [];
for (let i = 0; i < 300; i++) { const res = await fetch(l.url + '/invoice', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ amount_sats: 5 }) }); const j = await res.json(); const s = performance.now(); CreatedInvoice.parse(j); r.push(performance.now() - s); }
r.sort((x, y) => x - y); console.log('zod parse p50', r[150].toFixed(3));
await run('qr', renderQrPng);
const fixed = await renderQrPng('bitcoin:x');
await run('noqr', async () => fixed);
await run('qr', renderQrPng);
await run('noqr', async () => fixed);
await l.stop();
