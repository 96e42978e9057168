import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { Client, StreamableHTTPClientTransport, type Transport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { RunningListener } from '../../listener/app.ts';
import type { RunningCloud } from '../../cloud/cloud-app.ts';
import { BIP84_ZPUB, postJson, startTestListener } from '../helpers/listener.ts';
import { signupMerchant, startTestCloud } from '../helpers/cloud.ts';
import { messageOf, MODERN_REVISION, postModern } from '../helpers/modern-mcp.ts';
import { APPS_CAPABILITY } from '../helpers/apps-host.ts';
import { CHECKOUT_META_KEY } from '../../mcp/app/invoice-app.ts';
import '../helpers/built.ts';

/**
 * Both MCP revisions the server speaks, through the SDK 2 client: the 2025 handshake (the client's
 * default), `auto` negotiation (which finds 2026-07-28) and a 2026-07-28 pin, over stdio and over
 * Streamable HTTP on the listener and on Cloud; and the 2026-07-28 wire by hand where the client
 * hides it (cache fields, a refused request, another merchant's invoice).
 */

const API_KEY = 'mcp-revisions-test-key-0123456789';
const ALLOWED_ORIGIN = 'https://agent.example';
const MCP_BIN = fileURLToPath(new URL('../../bin/service-mcp.js', import.meta.url));

type Negotiation = { name: string; options: ConstructorParameters<typeof Client>[1]; era: 'legacy' | 'modern'; version: (v: string | undefined) => boolean };
const negotiations: Negotiation[] = [
  { name: 'the default (2025 handshake)', options: {}, era: 'legacy', version: (v) => v !== undefined && v < '2026' },
  { name: "versionNegotiation 'auto'", options: { versionNegotiation: { mode: 'auto' } }, era: 'modern', version: (v) => v === MODERN_REVISION },
  { name: `a pin to ${MODERN_REVISION}`, options: { versionNegotiation: { mode: { pin: MODERN_REVISION } } }, era: 'modern', version: (v) => v === MODERN_REVISION },
];

const TOOLS = ['create_invoice', 'get_invoice_status', 'list_supported_assets', 'wait_for_payment'];

/** What every revision must serve alike: the tools as hosts list them, and an invoice created then read. */
async function exercise(client: Client, negotiation: Negotiation, extraTools: string[] = []) {
  assert.equal(client.getProtocolEra(), negotiation.era, `${negotiation.name}: era`);
  assert.ok(negotiation.version(client.getNegotiatedProtocolVersion()), `${negotiation.name}: version ${client.getNegotiatedProtocolVersion()}`);
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((tool) => tool.name).sort(), [...TOOLS, ...extraTools].sort());
  for (const tool of tools) {
    assert.ok(tool.title, `${tool.name}: title`);
    assert.equal(tool.annotations?.title, tool.title, `${tool.name}: annotations`);
    assert.ok(tool.icons?.some((icon) => icon.mimeType === 'image/svg+xml' && icon.src.startsWith('data:image/svg+xml;base64,')), `${tool.name}: icons`);
  }
  assert.equal(tools.find((tool) => tool.name === 'create_invoice')!.annotations?.readOnlyHint, false);
  const created = await client.callTool({ name: 'create_invoice', arguments: { amount_sats: 4200 } });
  assert.ok(!created.isError, JSON.stringify(created.content));
  const invoiceId = (created.structuredContent as { invoice: { invoice_id: string } }).invoice.invoice_id;
  const read = await client.callTool({ name: 'get_invoice_status', arguments: { invoice_id: invoiceId } });
  assert.ok(!read.isError, JSON.stringify(read.content));
  const invoice = (read.structuredContent as { invoice: { invoice_id: string; status: string; amount_sats: number } }).invoice;
  assert.equal(invoice.invoice_id, invoiceId);
  assert.equal(invoice.status, 'pending');
  assert.equal(invoice.amount_sats, 4200);
  return invoiceId;
}

async function connected(transport: Transport, negotiation: Negotiation): Promise<Client> {
  const client = new Client({ name: 'revisions-test', version: '1.0.0' }, negotiation.options);
  await client.connect(transport);
  return client;
}

const httpTransport = (url: string, headers: Record<string, string>) => new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });

/** The 2026-07-28 wire of one endpoint: cache fields on the listings, a request without Mcp-Method refused. */
async function checkModernWire(mcpUrl: string, credential: Record<string, string>) {
  for (const method of ['tools/list', 'resources/templates/list', 'server/discover']) {
    const response = await postModern(mcpUrl, credential, method);
    assert.equal(response.status, 200, method);
    const { result } = await messageOf(response);
    assert.equal(result?.ttlMs, 300_000, `${method}: ttlMs on the wire`);
    assert.equal(result?.cacheScope, 'public', `${method}: cacheScope on the wire`);
  }
  const listed = await messageOf(await postModern(mcpUrl, credential, 'resources/list'));
  assert.equal(listed.result?.ttlMs, 0);
  assert.equal(listed.result?.cacheScope, 'private');

  const refused = await postModern(mcpUrl, credential, 'tools/list', {}, { omit: 'Mcp-Method' });
  assert.equal(refused.status, 400);
  assert.equal((await messageOf(refused)).error?.code, -32020);
  // The 2025 answer of the same listing carries no cache fields.
  const legacy = await connected(httpTransport(mcpUrl, credential), negotiations[0]!);
  const raw = await legacy.request({ method: 'tools/list', params: {} });
  assert.equal((raw as Record<string, unknown>).ttlMs, undefined);
  await legacy.close();
}

describe('MCP revisions over Streamable HTTP on the listener', () => {
  let listener: RunningListener;
  let mcpUrl: string;
  const credential = { authorization: `Bearer ${API_KEY}` };
  before(async () => {
    listener = await startTestListener({ env: { SERVICE_API_KEY: API_KEY, MCP_ALLOWED_ORIGINS: ALLOWED_ORIGIN, MCP_MAX_SESSIONS_PER_OWNER: '2' } });
    mcpUrl = `${listener.url}/mcp`;
  });
  after(async () => {
    await listener?.stop();
  });

  for (const negotiation of negotiations) {
    test(`${negotiation.name}: lists the tools and creates and reads an invoice`, async () => {
      const client = await connected(httpTransport(mcpUrl, credential), negotiation);
      await exercise(client, negotiation);
      await client.close();
    });
  }

  test('2026-07-28 on the wire: cache hints on the listings; a request without Mcp-Method is refused with -32020', async () => {
    await checkModernWire(mcpUrl, credential);
  });

  test('2026-07-28: wait_for_payment blocks and reports progress; an MCP Apps host gets the view extras', async () => {
    const pinned = negotiations[2]!;
    const apps = new Client({ name: 'revisions-apps-host', version: '1.0.0' }, { ...pinned.options, capabilities: APPS_CAPABILITY });
    await apps.connect(httpTransport(mcpUrl, credential));
    const created = await apps.callTool({ name: 'create_invoice', arguments: { amount_sats: 5100 } });
    assert.ok(created._meta?.[CHECKOUT_META_KEY], 'the view extras for a host that declares MCP Apps on the request');
    const invoiceId = (created.structuredContent as { invoice: { invoice_id: string } }).invoice.invoice_id;
    const progress: number[] = [];
    const waited = await apps.callTool({ name: 'wait_for_payment', arguments: { invoice_id: invoiceId, timeout_s: 2 } }, { onprogress: ({ progress: p }) => void progress.push(p) });
    assert.equal((waited.structuredContent as { outcome: string }).outcome, 'timeout');
    assert.ok(progress.length >= 1, 'progress while waiting');
    await apps.close();

    const plain = await connected(httpTransport(mcpUrl, credential), pinned);
    const bare = await plain.callTool({ name: 'create_invoice', arguments: { amount_sats: 5200 } });
    assert.equal(bare._meta?.[CHECKOUT_META_KEY], undefined, 'no view extras for a host without MCP Apps');
    await plain.close();
  });

  test('CORS: the preflight allows the 2026-07-28 headers; answers expose what a browser client reads', async () => {
    const preflight = await fetch(mcpUrl, {
      method: 'OPTIONS',
      headers: { origin: ALLOWED_ORIGIN, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type, mcp-method, mcp-name, mcp-protocol-version, mcp-param-region' },
    });
    assert.equal(preflight.status, 204);
    const allowed = (preflight.headers.get('access-control-allow-headers') ?? '').toLowerCase();
    for (const header of ['mcp-method', 'mcp-name', 'mcp-protocol-version', 'mcp-param-region', 'mcp-session-id']) assert.ok(allowed.includes(header), `${header} in ${allowed}`);
    const answer = await postModern(mcpUrl, { ...credential, origin: ALLOWED_ORIGIN }, 'server/discover');
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get('access-control-allow-origin'), ALLOWED_ORIGIN);
    assert.match(answer.headers.get('access-control-expose-headers') ?? '', /Mcp-Session-Id.*Mcp-Protocol-Version/);
    await answer.body?.cancel();
  });

  test('2026-07-28 listen streams are bounded per owner (MCP_MAX_SESSIONS_PER_OWNER)', async () => {
    const listen = () => postModern(mcpUrl, credential, 'subscriptions/listen', { notifications: { toolsListChanged: true } });
    const open = [await listen(), await listen()];
    for (const stream of open) assert.match(stream.headers.get('content-type') ?? '', /text\/event-stream/);
    const refused = await listen();
    assert.equal(refused.status, 429);
    assert.equal(((await refused.json()) as { error: { code: string } }).error.code, 'too_many_sessions');
    await open[0]!.body!.cancel();
    // The cancelled stream's place comes back once the server has seen the connection close.
    const deadline = Date.now() + 10_000;
    for (;;) {
      const again = await listen();
      await again.body?.cancel();
      if (again.status === 200) break;
      assert.ok(Date.now() < deadline, 'waiting for the closed listen stream to free its place: still 429 after 10 s');
    }
    await open[1]!.body!.cancel();
  });

  test('the credential and the scope checks hold on the modern path too', async () => {
    const anonymous = await postModern(mcpUrl, {}, 'tools/list');
    assert.equal(anonymous.status, 401);
    const wrongKey = await postModern(mcpUrl, { authorization: 'Bearer not-the-key-0123456789' }, 'server/discover');
    assert.equal(wrongKey.status, 401);
  });
});

describe('MCP revisions over Streamable HTTP on Cloud', () => {
  let cloud: RunningCloud;
  let mcpUrl: string;
  let merchantA: Record<string, string>;
  let merchantB: Record<string, string>;
  before(async () => {
    cloud = await startTestCloud();
    mcpUrl = `${cloud.url}/api/v1/mcp`;
    merchantA = { 'x-service-api-key': (await signupMerchant(cloud.url, { btc_xpub: BIP84_ZPUB })).api_key };
    merchantB = { 'x-service-api-key': (await signupMerchant(cloud.url, { btc_xpub: BIP84_ZPUB })).api_key };
  });
  after(async () => {
    await cloud?.stop();
  });

  for (const negotiation of negotiations) {
    test(`${negotiation.name}: lists the tools (with list_invoices) and creates and reads an invoice`, async () => {
      const client = await connected(httpTransport(mcpUrl, merchantA), negotiation);
      await exercise(client, negotiation, ['list_invoices']);
      await client.close();
    });
  }

  test('2026-07-28 on the wire: cache hints on the listings; a request without Mcp-Method is refused with -32020', async () => {
    await checkModernWire(mcpUrl, merchantA);
  });

  test("2026-07-28: merchant B can neither read, list nor listen to merchant A's invoice", async () => {
    const created = await postJson(`${cloud.url}/api/v1/invoice`, { chain: 'btc', amount_sats: 1234 }, merchantA);
    assert.equal(created.status, 201, created.text);
    const invoiceId: string = created.json.invoice_id;
    const pinned = negotiations[2]!;
    const a = await connected(httpTransport(mcpUrl, merchantA), pinned);
    const own = await a.callTool({ name: 'get_invoice_status', arguments: { invoice_id: invoiceId } });
    assert.ok(!own.isError, JSON.stringify(own.content));
    await a.close();

    const b = await connected(httpTransport(mcpUrl, merchantB), pinned);
    const theirs = await b.callTool({ name: 'get_invoice_status', arguments: { invoice_id: invoiceId } });
    assert.equal(theirs.isError, true);
    assert.match(JSON.stringify(theirs.content), /not_found/);
    const listed = await b.callTool({ name: 'list_invoices', arguments: {} });
    assert.ok(!JSON.stringify(listed.structuredContent).includes(invoiceId), 'B lists no invoice of A');
    await assert.rejects(b.readResource({ uri: `invoice://${invoiceId}` }), (error: { code?: number }) => error.code === -32602);
    await b.close();

    // Nor listen to its updates: the stream is refused before it opens, with what reading an
    // unknown resource answers (in-band, before any acknowledgement); A's own opens.
    const listen = (credential: Record<string, string>) => postModern(mcpUrl, credential, 'subscriptions/listen', { notifications: { resourceSubscriptions: [`invoice://${invoiceId}`] } });
    const foreign = await listen(merchantB);
    assert.equal(foreign.status, 200);
    const refusal = (await messageOf(foreign)).error;
    const unknown = (await messageOf(await postModern(mcpUrl, merchantB, 'subscriptions/listen', { notifications: { resourceSubscriptions: ['invoice://inv_none_such'] } }))).error;
    assert.equal(refusal?.code, -32602);
    assert.deepEqual(refusal, unknown, 'the same answer as an invoice that does not exist');
    const owned = await listen(merchantA);
    assert.match(owned.headers.get('content-type') ?? '', /text\/event-stream/);
    await owned.body?.cancel();
  });
});

describe('MCP revisions over stdio', () => {
  let listener: RunningListener;
  before(async () => {
    listener = await startTestListener({ env: { SERVICE_API_KEY: API_KEY } });
  });
  after(async () => {
    await listener?.stop();
  });

  for (const negotiation of negotiations) {
    test(`${negotiation.name}: lists the tools and creates and reads an invoice`, async () => {
      const transport = new StdioClientTransport({ command: process.execPath, args: [MCP_BIN], env: { PATH: process.env.PATH ?? '', LISTENER_URL: listener.url, SERVICE_API_KEY: API_KEY }, stderr: 'ignore' });
      const client = await connected(transport, negotiation);
      await exercise(client, negotiation);
      await client.close();
    });
  }
});
