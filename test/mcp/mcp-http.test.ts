import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceUpdatedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { RunningListener } from '../../listener/app.ts';
import type { RunningCloud } from '../../cloud/cloud-app.ts';
import { silentLogger } from '../../core/log.ts';
import { createListenerClient } from '../../mcp/listener-client.ts';
import { createServer as createMcpServer } from '../../mcp/server.ts';
import { paymentStateFor, paymentStateSettings } from '../../mcp/payment-state.ts';
import { startTestListener } from '../helpers/listener.ts';
import { startTestCloud, signupMerchant } from '../helpers/cloud.ts';
import { startBtcWatchContext, testAccountKey, type BtcWatchContext } from '../helpers/btc-chain.ts';
import { defaultChains } from '../../core/chains/default-chains.ts';

const API_KEY = 'mcp-http-test-key-0123456789';
const ALLOWED_ORIGIN = 'https://agent.example';

type Invoice = { invoice_id: string; receive_address: string; status: string };

/** The SDK's own Streamable HTTP client, connected with the given headers. */
async function connectHttp(url: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'service-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

const initialize = (url: string, headers: Record<string, string>) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } }),
  });

const structured = <T>(result: Awaited<ReturnType<Client['callTool']>>) => {
  assert.ok(!result.isError, JSON.stringify(result.content));
  return result.structuredContent as T;
};
const errorText = (result: Awaited<ReturnType<Client['callTool']>>) => {
  assert.equal(result.isError, true);
  return (result.content as CallToolResult['content'])[0]!.type === 'text' ? ((result.content as { text: string }[])[0]!.text) : '';
};

describe('MCP over Streamable HTTP on the listener', () => {
  let listener: RunningListener;
  let mcpUrl: string;
  let client: Client;

  before(async () => {
    listener = await startTestListener({ env: { SERVICE_API_KEY: API_KEY, MCP_ALLOWED_ORIGINS: ALLOWED_ORIGIN } });
    mcpUrl = `${listener.url}/mcp`;
    client = await connectHttp(mcpUrl, { authorization: `Bearer ${API_KEY}` });
  });
  after(async () => {
    await client?.close();
    await listener?.stop();
  });

  test('lists the same tools, with the same descriptions and schemas, as the stdio server', async () => {
    const { tools } = await client.listTools();
    const stdioServer = createMcpServer({
      listener: createListenerClient({ baseUrl: listener.url, apiKey: API_KEY, fetch, timeoutMs: 5_000, logger: silentLogger }),
      updates: { watch: () => () => undefined },
      chains: defaultChains, renderQr: () => Buffer.alloc(0),
      logger: silentLogger,
      // As the stdio server has it (mcp/stdio.ts): create_invoice then takes open_checkout there too.
      paymentState: paymentStateFor(paymentStateSettings(undefined, () => null), 'stdio'),
    });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const local = new Client({ name: 'service-test', version: '1.0.0' });
    await Promise.all([stdioServer.connect(serverSide), local.connect(clientSide)]);
    // Compared as they travel: JSON has no undefined fields.
    assert.deepEqual(tools, JSON.parse(JSON.stringify((await local.listTools()).tools)));
    assert.deepEqual(tools.map((tool) => tool.name).sort(), ['create_invoice', 'get_invoice_status', 'list_supported_assets', 'wait_for_payment']);
    await local.close();
  });

  test('create_invoice and get_invoice_status answer what the HTTP API stores; failures are tool errors with the stable code', async () => {
    const created = structured<{ invoice: Invoice }>(await client.callTool({ name: 'create_invoice', arguments: { amount_sats: 21_000, memo: 'mcp http' } }));
    const stored = await (await fetch(`${listener.url}/invoice/${created.invoice.invoice_id}`)).json();
    const read = structured<{ invoice: unknown }>(await client.callTool({ name: 'get_invoice_status', arguments: { invoice_id: created.invoice.invoice_id } }));
    assert.deepEqual(read.invoice, stored);
    assert.match(errorText(await client.callTool({ name: 'create_invoice', arguments: { amount_sats: -5 } })), /^invalid_amount: /);
    assert.match(errorText(await client.callTool({ name: 'get_invoice_status', arguments: { invoice_id: 'inv_missing' } })), /^not_found: /);
    const resource = await client.readResource({ uri: `invoice://${created.invoice.invoice_id}` });
    assert.deepEqual(JSON.parse((resource.contents[0] as { text: string }).text), stored);
  });

  test('takes the key as X-Service-Api-Key or as a bearer token; refuses a missing or wrong key', async () => {
    const byHeader = await connectHttp(mcpUrl, { 'x-service-api-key': API_KEY });
    assert.ok((await byHeader.listTools()).tools.length >= 4);
    await byHeader.close();
    const refusedHeaders: Record<string, string>[] = [{}, { 'x-service-api-key': 'wrong-key-wrong-key-wrong' }, { authorization: 'Bearer wrong-key-wrong-key-wrong' }];
    for (const headers of refusedHeaders) {
      const refused = await initialize(mcpUrl, headers);
      assert.equal(refused.status, 401);
      assert.equal((await refused.json()).error.code, 'unauthorized');
      await assert.rejects(connectHttp(mcpUrl, headers));
    }
  });

  test('refuses a browser Origin that is not allowed; an allowed one and none pass', async () => {
    const refused = await initialize(mcpUrl, { 'x-service-api-key': API_KEY, origin: 'https://evil.example' });
    assert.equal(refused.status, 403);
    assert.equal((await refused.json()).error.code, 'origin_not_allowed');
    const allowed = await initialize(mcpUrl, { 'x-service-api-key': API_KEY, origin: ALLOWED_ORIGIN });
    assert.equal(allowed.status, 200);
    assert.equal(allowed.headers.get('access-control-allow-origin'), ALLOWED_ORIGIN);
    assert.ok(allowed.headers.get('mcp-session-id'));
    await allowed.body?.cancel();
    const preflight = (origin: string) => fetch(mcpUrl, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' } });
    const allowedPreflight = await preflight(ALLOWED_ORIGIN);
    assert.equal(allowedPreflight.status, 204);
    assert.match(allowedPreflight.headers.get('access-control-allow-headers')!, /Authorization/);
    assert.equal((await preflight('https://evil.example')).status, 403);
  });

  test('a request needs a live session: none, or an unknown one, is refused in the error envelope', async () => {
    const list = (headers: Record<string, string>) =>
      fetch(mcpUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-service-api-key': API_KEY, ...headers },
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
      });
    const without = await list({});
    assert.equal(without.status, 400);
    assert.equal((await without.json()).error.code, 'bad_body');
    const unknown = await list({ 'mcp-session-id': 'no-such-session' });
    assert.equal(unknown.status, 404);
    assert.equal((await unknown.json()).error.code, 'not_found');
  });
});

describe('MCP over Streamable HTTP: live invoice status on a local chain', () => {
  let ctx: BtcWatchContext;
  let client: Client;
  const updates: string[] = [];
  let updated: () => void = () => undefined;

  before(async () => {
    ctx = await startBtcWatchContext('esplora');
    client = await connectHttp(`${ctx.listener.url}/mcp`);
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
      updates.push(notification.params.uri);
      updated();
    });
  });
  after(async () => {
    await client?.close();
    await ctx?.close();
  });

  const create = async (amount_sats: number) => structured<{ invoice: Invoice }>(await client.callTool({ name: 'create_invoice', arguments: { amount_sats } })).invoice;
  /** Pays the invoice in full and mines one block: 99,999 sats and below confirm at one confirmation. */
  const payAndConfirm = async (invoice: Invoice, amount: number) => {
    ctx.chain.pay([{ address: invoice.receive_address, value: BigInt(amount) }]);
    ctx.chain.mine(1);
    await ctx.sync();
  };

  test('a subscribed invoice sends notifications/resources/updated when its payment confirms', async () => {
    const invoice = await create(40_000);
    const uri = `invoice://${invoice.invoice_id}`;
    await client.subscribeResource({ uri });
    const notified = new Promise<void>((resolve) => (updated = resolve));
    await payAndConfirm(invoice, 40_000);
    await notified;
    assert.deepEqual(updates, [uri]);
    const read = await client.readResource({ uri });
    assert.equal(JSON.parse((read.contents[0] as { text: string }).text).status, 'confirmed');
  });

  test('wait_for_payment sends progress while pending and returns once the invoice confirms', async () => {
    const invoice = await create(30_000);
    const progress: number[] = [];
    let firstProgress: () => void = () => undefined;
    const progressed = new Promise<void>((resolve) => (firstProgress = resolve));
    const waiting = client.callTool({ name: 'wait_for_payment', arguments: { invoice_id: invoice.invoice_id, timeout_s: 120 } }, undefined, {
      onprogress: (event) => {
        progress.push(event.progress);
        firstProgress();
      },
      timeout: 130_000,
    });
    await progressed;
    await payAndConfirm(invoice, 30_000);
    const result = structured<{ outcome: string; invoice: Invoice }>(await waiting);
    assert.equal(result.outcome, 'confirmed');
    assert.equal(result.invoice.status, 'confirmed');
    assert.ok(progress.length >= 1);
  });

  test('wait_for_payment returns "timeout" with the invoice still pending when timeout_s runs out', async () => {
    const invoice = await create(20_000);
    const result = structured<{ outcome: string; invoice: Invoice }>(await client.callTool({ name: 'wait_for_payment', arguments: { invoice_id: invoice.invoice_id, timeout_s: 1 } }));
    assert.equal(result.outcome, 'timeout');
    assert.equal(result.invoice.status, 'pending');
  });
});

describe('MCP over Streamable HTTP on Cloud', () => {
  let cloud: RunningCloud;
  let mcpUrl: string;
  let first: { api_key: string };
  let second: { api_key: string };
  let firstClient: Client;
  let secondClient: Client;

  before(async () => {
    cloud = await startTestCloud({ env: { CLOUD_CHECKOUT_BASE_URL: 'https://pay.example.com' } });
    mcpUrl = `${cloud.url}/api/v1/mcp`;
    first = await signupMerchant(cloud.url, { btc_xpub: testAccountKey(7) });
    second = await signupMerchant(cloud.url, { btc_xpub: testAccountKey(8) });
    firstClient = await connectHttp(mcpUrl, { authorization: `Bearer ${first.api_key}` });
    secondClient = await connectHttp(mcpUrl, { 'x-service-api-key': second.api_key });
  });
  after(async () => {
    await firstClient?.close();
    await secondClient?.close();
    await cloud?.stop();
  });

  test("adds list_invoices; each merchant sees its own invoices only, another's is not found", async () => {
    const { tools } = await firstClient.listTools();
    assert.deepEqual(tools.map((tool) => tool.name).sort(), ['create_invoice', 'get_invoice_status', 'list_invoices', 'list_supported_assets', 'wait_for_payment']);
    const { invoice } = structured<{ invoice: Invoice & { checkout_url?: string } }>(await firstClient.callTool({ name: 'create_invoice', arguments: { amount_sats: 15_000 } }));
    // The contract's invoice, exactly as the stdio server reads it over HTTP: Cloud's checkout_url is not part of it.
    assert.equal(invoice.checkout_url, undefined);
    const listed = structured<{ invoices: Invoice[] }>(await firstClient.callTool({ name: 'list_invoices', arguments: {} }));
    assert.deepEqual(listed.invoices.map((entry) => entry.invoice_id), [invoice.invoice_id]);
    // The list's filters, as over HTTP: a search by id, a status it does not have, a malformed date.
    const found = structured<{ invoices: Invoice[]; next_cursor: string | null }>(await firstClient.callTool({ name: 'list_invoices', arguments: { q: invoice.invoice_id, status: 'pending', asset: 'BTC' } }));
    assert.deepEqual(found.invoices.map((entry) => entry.invoice_id), [invoice.invoice_id]);
    assert.equal(found.next_cursor, null);
    assert.deepEqual(structured<{ invoices: Invoice[] }>(await firstClient.callTool({ name: 'list_invoices', arguments: { status: 'confirmed' } })).invoices, []);
    assert.match(errorText(await firstClient.callTool({ name: 'list_invoices', arguments: { created_from: 'last week' } })), /^bad_query: .*created_from/);
    const own = structured<{ invoice: Invoice }>(await firstClient.callTool({ name: 'get_invoice_status', arguments: { invoice_id: invoice.invoice_id } }));
    assert.equal(own.invoice.invoice_id, invoice.invoice_id);

    assert.match(errorText(await secondClient.callTool({ name: 'get_invoice_status', arguments: { invoice_id: invoice.invoice_id } })), /^not_found: /);
    await assert.rejects(secondClient.readResource({ uri: `invoice://${invoice.invoice_id}` }), /not_found/);
    await assert.rejects(secondClient.subscribeResource({ uri: `invoice://${invoice.invoice_id}` }), /not_found/);
    assert.deepEqual(structured<{ invoices: Invoice[] }>(await secondClient.callTool({ name: 'list_invoices', arguments: {} })).invoices, []);
    assert.deepEqual(structured<{ invoices: Invoice[] }>(await secondClient.callTool({ name: 'list_invoices', arguments: { q: invoice.invoice_id } })).invoices, [], "not even by the other merchant's invoice id");
    const { resources } = await firstClient.listResources();
    assert.ok(resources.some((resource) => resource.uri === `invoice://${invoice.invoice_id}`));
  });

  test("list_supported_assets answers from the merchant's receive methods: enabled or not, never unknown", async () => {
    const { assets } = structured<{ assets: Array<{ id: string; chain: string; enabled: boolean | null }> }>(await firstClient.callTool({ name: 'list_supported_assets', arguments: {} }));
    assert.ok(assets.length > 1);
    for (const asset of assets) assert.equal(asset.enabled, asset.id === 'btc', `${asset.id}: the merchant receives on Bitcoin on-chain only (no Lightning wallet)`);
  });

  test("a merchant's key cannot use another merchant's session; no key or a wrong one is refused", async () => {
    const opened = await initialize(mcpUrl, { 'x-service-api-key': first.api_key });
    const sessionId = opened.headers.get('mcp-session-id')!;
    await opened.body?.cancel();
    const foreign = await fetch(mcpUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-service-api-key': second.api_key, 'mcp-session-id': sessionId },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    assert.equal(foreign.status, 404);
    assert.equal((await foreign.json()).error.code, 'not_found');
    const refusedHeaders: Record<string, string>[] = [{}, { authorization: 'Bearer sk_wrong' }];
    for (const headers of refusedHeaders) {
      const refused = await initialize(mcpUrl, headers);
      assert.equal(refused.status, 401);
      assert.equal((await refused.json()).error.code, 'unauthorized');
    }
    const badOrigin = await initialize(mcpUrl, { 'x-service-api-key': first.api_key, origin: 'https://evil.example' });
    assert.equal(badOrigin.status, 403);
  });
});
