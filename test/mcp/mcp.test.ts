import assert from 'node:assert/strict';
import { createServer as createHttpServer, request as httpRequest, type Server } from 'node:http';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import jsQRModule from 'jsqr';
import { PNG } from 'pngjs';
import * as z from 'zod';
import { HDNodeWallet } from 'ethers';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { silentLogger } from '../../core/log.ts';
import { createListenerClient } from '../../mcp/listener-client.ts';
import { createServer as createMcpServer } from '../../mcp/server.ts';
import { openCheckoutShape } from '../../mcp/checkout-hand-off.ts';
import { inlineDefinitions } from '../../mcp/input-schema.ts';
import { API_VERSION, BtcInvoice, BtcInvoiceCreated, CreateInvoiceRequest, evmChainNames } from '../../shared/index.ts';
import { BIP84_ZPUB, NO_CHAIN_ESPLORA_URL, postJson, tempSqliteUrl } from '../helpers/listener.ts';
import { spawnListener, type ListenerProcess } from '../helpers/process.ts';
import { connectMcp, type McpSession } from '../helpers/mcp-process.ts';
import { releasedPort } from '../helpers/ports.ts';
import { signupMerchant, startTestCloud } from '../helpers/cloud.ts';
import type { RunningCloud } from '../../cloud/cloud-app.ts';
import { defaultChains } from '../../core/chains/default-chains.ts';

const API_KEY = 'mcp-test-key-0123456789';

type ToolResult = Awaited<ReturnType<McpSession['client']['callTool']>> & {
  content: Array<{ type: string; text?: string; data?: string; mimeType?: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
};

async function call(session: McpSession, name: string, args: Record<string, unknown>): Promise<ToolResult> {
  return (await session.client.callTool({ name, arguments: args })) as ToolResult;
}

function errorText(result: ToolResult): string {
  assert.equal(result.isError, true, `expected a tool error, got ${JSON.stringify(result.content)}`);
  assert.equal(result.structuredContent, undefined);
  return result.content[0]?.text ?? '';
}

/** m/84'/0'/0'/0/0 of the BIP-84 test vector key, from the known-answer fixtures. */
const BIP84_FIRST_ADDRESS: string = JSON.parse(readFileSync(new URL('../fixtures/bip84.json', import.meta.url), 'utf8')).valid[0]
  .addresses[0];

/** The real listener CLI with a fresh database, in an empty directory so no stray .env is read. */
function startListenerProcess(env: Record<string, string>): Promise<ListenerProcess> {
  const cwd = mkdtempSync(join(tmpdir(), 'mcp-listener-'));
  return spawnListener(
    { DATABASE_URL: tempSqliteUrl(), MERCHANT_BTC_XPUB: BIP84_ZPUB, BTC_ESPLORA_URL: NO_CHAIN_ESPLORA_URL, ...env },
    cwd,
  );
}

function textOf(content: { text: string } | { blob: string } | undefined): string {
  assert.ok(content && 'text' in content, 'expected a text resource');
  return content.text;
}

// jsqr is CommonJS whose module.exports is the function and also carries it as `default`;
// its typings only know the latter.
const jsQR = jsQRModule.default;

function decodeQr(base64Png: string): string | undefined {
  const png = PNG.sync.read(Buffer.from(base64Png, 'base64'));
  return jsQR(new Uint8ClampedArray(png.data), png.width, png.height)?.data;
}

describe('MCP server over stdio against a real listener', () => {
  let listener: ListenerProcess;
  let session: McpSession;

  before(async () => {
    listener = await startListenerProcess({ SERVICE_API_KEY: API_KEY });
    session = await connectMcp({ LISTENER_URL: listener.url, SERVICE_API_KEY: API_KEY });
  });

  after(async () => {
    await session?.close();
    await listener?.stop();
  });

  test('lists the three tools of the spec and wait_for_payment, with input and output schemas taken from the contract', async () => {
    const { tools } = await session.client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    assert.deepEqual([...byName.keys()].sort(), ['create_invoice', 'get_invoice_status', 'list_supported_assets', 'wait_for_payment']);

    const create = byName.get('create_invoice')!;
    const contract = z.toJSONSchema(CreateInvoiceRequest, { target: 'draft-7', io: 'input' }) as unknown as {
      definitions: { CreateInvoiceRequest: { properties: Record<string, unknown> } } & Record<string, unknown>;
    };
    // A tool's input schema stands alone: the contract's references (PriceCurrency) are written in place.
    const contractFields = inlineDefinitions(contract.definitions.CreateInvoiceRequest.properties, contract.definitions) as Record<string, unknown>;
    assert.ok(!JSON.stringify(create.inputSchema).includes('$ref'), 'no reference the tool schema cannot resolve');
    // The body of POST /invoice, and open_checkout: what the agent asks of the client, never sent to the listener.
    const handOff = z.toJSONSchema(z.object(openCheckoutShape), { target: 'draft-7', io: 'input' }) as unknown as { properties: Record<string, unknown> };
    assert.deepEqual(create.inputSchema.properties, { ...contractFields, ...handOff.properties });
    assert.equal(create.outputSchema?.type, 'object');
    assert.deepEqual(create.outputSchema?.required, ['invoice']);
    assert.equal(create.annotations?.readOnlyHint, false);

    const status = byName.get('get_invoice_status')!;
    assert.deepEqual(status.inputSchema.required, ['invoice_id']);
    assert.deepEqual(status.outputSchema?.required, ['invoice']);
    assert.equal(status.annotations?.readOnlyHint, true);

    const assets = byName.get('list_supported_assets')!;
    assert.deepEqual(assets.outputSchema?.required, ['assets']);
    assert.equal(assets.annotations?.readOnlyHint, true);

    const wait = byName.get('wait_for_payment')!;
    assert.deepEqual(wait.inputSchema.required, ['invoice_id']);
    assert.deepEqual(wait.outputSchema?.required, ['outcome', 'invoice']);

    for (const tool of tools) assert.ok((tool.description ?? '').length > 100, `${tool.name} needs a description for a model`);
    assert.match(create.description!, /sats/);
    assert.match(create.description!, /exactly/);
    assert.match(status.description!, /confirmed/);
    assert.match(status.description!, /sparingly/);
  });

  test('create_invoice makes a BTC invoice: structured result, readable text and a QR code of the payment URI', async () => {
    const result = await call(session, 'create_invoice', { amount_sats: 1000, memo: 'Order 42' });
    assert.notEqual(result.isError, true, JSON.stringify(result.content));
    const invoice = BtcInvoiceCreated.parse((result.structuredContent as { invoice: unknown }).invoice);
    assert.equal(invoice.amount_sats, 1000);
    assert.equal(invoice.amount_btc, '0.00001000');
    assert.equal(invoice.status, 'pending');
    // The first invoice of a fresh listener takes child 0 of the BIP-84 test vector key.
    assert.equal(invoice.child_index, 0);
    assert.equal(invoice.receive_address, BIP84_FIRST_ADDRESS);

    const text = result.content.find((block) => block.type === 'text')!.text!;
    assert.match(text, /0\.00001000 BTC \(1000 sats\)/);
    assert.ok(text.includes(invoice.receive_address));
    assert.ok(text.includes(invoice.qr_uri));
    assert.ok(text.includes(invoice.expires_at));
    assert.match(text, /pending/);

    const image = result.content.find((block) => block.type === 'image')!;
    assert.equal(image.mimeType, 'image/png');
    assert.equal(decodeQr(image.data!), invoice.qr_uri);
  });

  test('get_invoice_status reads back the stored invoice', async () => {
    const created = await call(session, 'create_invoice', { amount_sats: 2500 });
    const { invoice: createdInvoice } = created.structuredContent as { invoice: { invoice_id: string; receive_address: string } };

    const result = await call(session, 'get_invoice_status', { invoice_id: createdInvoice.invoice_id });
    assert.notEqual(result.isError, true, JSON.stringify(result.content));
    const invoice = BtcInvoice.parse((result.structuredContent as { invoice: unknown }).invoice);
    assert.equal(invoice.invoice_id, createdInvoice.invoice_id);
    assert.equal(invoice.receive_address, createdInvoice.receive_address);
    assert.equal(invoice.amount_sats, 2500);
    assert.equal(invoice.status, 'pending');
    assert.match(result.content[0]!.text!, new RegExp(`${invoice.invoice_id}: status pending`));
  });

  test('create_invoice takes the order fields and get_invoice_status returns them; an unknown argument is the listener\'s bad_body naming it', async () => {
    const order = { order_id: 'ORD-MCP-1', metadata: { agent: 'buyer-bot' }, memo: 'Via MCP', redirect_url: 'https://shop.example/done' };
    const created = await call(session, 'create_invoice', { amount_sats: 3000, ...order });
    assert.notEqual(created.isError, true, JSON.stringify(created.content));
    const { invoice_id } = BtcInvoiceCreated.parse((created.structuredContent as { invoice: unknown }).invoice);
    assert.match(created.content[0]!.text!, /For order "ORD-MCP-1"\./);
    const read = await call(session, 'get_invoice_status', { invoice_id });
    const invoice = BtcInvoice.parse((read.structuredContent as { invoice: unknown }).invoice);
    assert.deepEqual({ order_id: invoice.order_id, metadata: invoice.metadata, memo: invoice.memo, redirect_url: invoice.redirect_url }, order);
    assert.match(errorText(await call(session, 'create_invoice', { amount_sats: 1, orderId: 'ORD-1' })), /^bad_body: .*orderId/);
  });

  test('an unknown invoice id is a not_found tool error', async () => {
    assert.match(errorText(await call(session, 'get_invoice_status', { invoice_id: 'inv_doesnotexist' })), /^not_found: /);
  });

  test('an invalid amount is a tool error carrying the listener code invalid_amount', async () => {
    for (const amount_sats of [0, -5, 1.5, '1000', null]) {
      const text = errorText(await call(session, 'create_invoice', { amount_sats }));
      assert.match(text, /^invalid_amount: /, `amount_sats ${JSON.stringify(amount_sats)}`);
    }
    assert.match(errorText(await call(session, 'create_invoice', {})), /^invalid_amount: /);
  });

  test('other bad input gets the listener codes, and the server keeps serving', async () => {
    assert.match(errorText(await call(session, 'create_invoice', { chain: 'doge', amount_sats: 1 })), /^unsupported_chain: /);
    assert.match(errorText(await call(session, 'create_invoice', { chain: 'base', amount_usd: 5 })), /^base_disabled: .*list_supported_assets/);
    assert.match(errorText(await call(session, 'create_invoice', { amount_sats: 1, memo: 'x'.repeat(201) })), /^bad_body: /);
    assert.match(errorText(await call(session, 'create_invoice', { amount_sats: 1, expires_in: { nested: [1, 2] } })), /^bad_body: /);
    // invoice_id has no listener-side code to map to: the SDK's own input check answers.
    assert.match(errorText(await call(session, 'get_invoice_status', { invoice_id: 42 })), /invoice_id/);
    assert.match(errorText(await call(session, 'get_invoice_status', {})), /invoice_id/);
    const after = await call(session, 'create_invoice', { amount_sats: 1 });
    assert.notEqual(after.isError, true);
  });

  test('list_supported_assets reports each asset with its unit and what the listener has enabled', async () => {
    const result = await call(session, 'list_supported_assets', {});
    const { assets } = result.structuredContent as {
      assets: Array<{ id: string; chain: string; amount_field: string; unit: string; enabled: boolean | null }>;
    };
    assert.deepEqual(
      assets.map(({ id, chain, amount_field, unit, enabled }) => ({ id, chain, amount_field, unit, enabled })),
      [
        { id: 'btc', chain: 'btc', amount_field: 'amount_sats', unit: 'sats', enabled: true },
        { id: 'btc-lightning', chain: 'btc', amount_field: 'amount_sats', unit: 'sats', enabled: false },
        ...evmChainNames.flatMap((chain) => [
          { id: `usdc-${chain}`, chain, amount_field: 'amount_usd', unit: 'USD', enabled: false },
          { id: `usdt-${chain}`, chain, amount_field: 'amount_usd', unit: 'USD', enabled: false },
        ]),
      ],
    );
    assert.match(result.content[0]!.text!, /^btc: .*enabled\.$/m);
  });

  test("exposes the listener's llms.txt and openapi.json as resources (and the MCP Apps invoice view)", async () => {
    const { resources } = await session.client.listResources();
    assert.deepEqual(resources.map((r) => [r.uri, r.mimeType]).sort(), [
      ['service://llms.txt', 'text/plain'],
      ['service://openapi.json', 'application/json'],
      ['ui://service/invoice.html', 'text/html;profile=mcp-app'],
    ]);
    const openapi = await session.client.readResource({ uri: 'service://openapi.json' });
    const document = JSON.parse(textOf(openapi.contents[0]));
    assert.match(document.openapi, /^3\.1\./);
    assert.equal(document.info.version, API_VERSION);
    const llms = await session.client.readResource({ uri: 'service://llms.txt' });
    assert.match(textOf(llms.contents[0]), /POST \/invoice/);
  });

  test('invoices are resources (invoice://{id}) one can read and subscribe to', async () => {
    const { resourceTemplates } = await session.client.listResourceTemplates();
    assert.deepEqual(resourceTemplates.map((t) => [t.uriTemplate, t.mimeType]), [['invoice://{id}', 'application/json']]);
    assert.equal(session.client.getServerCapabilities()?.resources?.subscribe, true);
    const created = await session.client.callTool({ name: 'create_invoice', arguments: { amount_sats: 12_345 } });
    const { invoice_id } = (created.structuredContent as { invoice: { invoice_id: string } }).invoice;
    const read = await session.client.readResource({ uri: `invoice://${invoice_id}` });
    const stored = await (await fetch(`${listener.url}/invoice/${invoice_id}`)).json();
    assert.deepEqual(JSON.parse(textOf(read.contents[0])), stored);
    assert.deepEqual(await session.client.subscribeResource({ uri: `invoice://${invoice_id}` }), {});
    await assert.rejects(session.client.subscribeResource({ uri: 'invoice://inv_nope' }), /not_found/);
    await assert.rejects(session.client.readResource({ uri: 'invoice://inv_nope' }), /not_found/);
    assert.deepEqual(await session.client.unsubscribeResource({ uri: `invoice://${invoice_id}` }), {});
  });

  test('writes only protocol messages to stdout, logs JSON lines to stderr, never the API key', () => {
    assert.deepEqual(session.transportErrors, []);
    const lines = session.stderr().trim().split('\n');
    assert.ok(lines.length >= 2);
    for (const line of lines) assert.doesNotThrow(() => JSON.parse(line), line);
    assert.ok(lines.some((line) => JSON.parse(line).code === 'invalid_amount'));
    assert.ok(!session.stderr().includes(API_KEY));
  });

  test('an invoice whose QR code cannot be drawn is still returned as created, without the image', async () => {
    const listenerClient = createListenerClient({
      baseUrl: listener.url,
      apiKey: API_KEY,
      fetch: globalThis.fetch,
      timeoutMs: 5000,
      logger: silentLogger,
    });
    const server = createMcpServer({
      listener: listenerClient,
      updates: { watch: () => () => undefined },
      chains: defaultChains, renderQr: () => {
        throw new Error('cannot draw');
      },
      logger: silentLogger,
    });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'in-process', version: '1.0.0' });
    await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
    try {
      const result = (await client.callTool({ name: 'create_invoice', arguments: { amount_sats: 777 } })) as ToolResult;
      assert.notEqual(result.isError, true);
      assert.equal(BtcInvoiceCreated.parse((result.structuredContent as { invoice: unknown }).invoice).amount_sats, 777);
      assert.deepEqual(result.content.map((block) => block.type), ['text']);
    } finally {
      await client.close();
    }
  });

  test('works under a Cloud-style /api/v1 base path, sending the key on reads too', async () => {
    // A path-prefix proxy in front of the real listener that, like Cloud, wants the key on every request.
    const target = new URL(listener.url);
    const seen: string[] = [];
    const proxy: Server = createHttpServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      if (!req.url?.startsWith('/api/v1/') || req.headers['x-service-api-key'] !== API_KEY) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"code":"not_found","message":"no"}}');
        return;
      }
      const upstream = httpRequest(
        { host: target.hostname, port: target.port, method: req.method, path: req.url.slice('/api/v1'.length), headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode!, answer.headers);
          answer.pipe(res);
        },
      );
      req.pipe(upstream);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const cloud = await connectMcp({
      LISTENER_URL: `http://127.0.0.1:${(proxy.address() as { port: number }).port}/api/v1`,
      SERVICE_API_KEY: API_KEY,
    });
    try {
      const created = await call(cloud, 'create_invoice', { amount_sats: 4200 });
      const { invoice_id } = BtcInvoiceCreated.parse((created.structuredContent as { invoice: unknown }).invoice);
      const read = await call(cloud, 'get_invoice_status', { invoice_id });
      assert.equal(BtcInvoice.parse((read.structuredContent as { invoice: unknown }).invoice).amount_sats, 4200);
      assert.deepEqual(seen, ['POST /api/v1/invoice', `GET /api/v1/invoice/${invoice_id}`]);
    } finally {
      await cloud.close();
      proxy.closeAllConnections();
      await new Promise((resolve) => proxy.close(resolve));
    }
  });

  test('a wrong or missing API key is an unauthorized tool error', async () => {
    for (const key of ['wrong-key-0123456789', undefined]) {
      const other = await connectMcp({ LISTENER_URL: listener.url, ...(key ? { SERVICE_API_KEY: key } : {}) });
      try {
        const text = errorText(await call(other, 'create_invoice', { amount_sats: 1000 }));
        assert.match(text, /^unauthorized: .*SERVICE_API_KEY/);
        assert.ok(!other.stderr().includes(key ?? API_KEY));
      } finally {
        await other.close();
      }
    }
  });
});

describe('MCP server over stdio against a real Cloud', () => {
  const BASE_ADDRESS = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
  const BASE_XPUB = HDNodeWallet.fromPhrase('test test test test test test test test test test test junk', undefined, "m/44'/60'/0'").neuter().extendedKey;
  let cloud: RunningCloud;
  before(async () => {
    // Base's platform settings, USDT included (no watching here): merchants may receive on it.
    cloud = await startTestCloud({ env: { BASE_RPC_URL: 'http://127.0.0.1:9', BASE_MIN_SOURCES: '1', BASE_TOKENS: 'usdc,usdt' } });
  });
  after(() => cloud?.stop());

  /** The stdio server pointed at Cloud's API with this key: list_supported_assets' answer, enabled by asset id, and its text. */
  async function listedWith(apiKey: string) {
    const session = await connectMcp({ LISTENER_URL: `${cloud.url}/api/v1`, SERVICE_API_KEY: apiKey });
    try {
      const result = await call(session, 'list_supported_assets', {});
      assert.notEqual(result.isError, true, JSON.stringify(result.content));
      const { assets } = result.structuredContent as { assets: Array<{ id: string; enabled: boolean | null }> };
      return { enabled: Object.fromEntries(assets.map(({ id, enabled }) => [id, enabled])), text: result.content[0]?.text ?? '' };
    } finally {
      await session.close();
    }
  }

  test("list_supported_assets answers from the key's account (GET /me): a Bitcoin xpub enables btc only", async () => {
    const merchant = await signupMerchant(cloud.url, { btc_xpub: BIP84_ZPUB });
    const { enabled, text } = await listedWith(merchant.api_key);
    assert.equal(enabled.btc, true);
    assert.equal(enabled['usdc-base'], false);
    assert.equal(enabled['usdt-base'], false);
    assert.ok(Object.values(enabled).every((value) => value !== null), 'never unknown for a full-access key');
    assert.doesNotMatch(text, /unknown/);
  });

  test('a Base fixed address enables USDT on Base; a Base xpub alone does not (USDT is served at a fixed address only)', async () => {
    const fixed = await listedWith((await signupMerchant(cloud.url, { base_address: BASE_ADDRESS })).api_key);
    assert.deepEqual([fixed.enabled['usdc-base'], fixed.enabled['usdt-base'], fixed.enabled.btc], [true, true, false]);
    const xpubOnly = await listedWith((await signupMerchant(cloud.url, { base_xpub: BASE_XPUB })).api_key);
    assert.deepEqual([xpubOnly.enabled['usdc-base'], xpubOnly.enabled['usdt-base']], [true, false]);
  });

  test('a key limited to invoice scopes cannot read /me: unknown, and the text says why', async () => {
    const merchant = await signupMerchant(cloud.url, { btc_xpub: BIP84_ZPUB });
    const issued = await postJson(`${cloud.url}/api/v1/keys`, { label: 'agent', scopes: ['invoices:write'] }, { 'x-service-api-key': merchant.api_key });
    assert.equal(issued.status, 201, issued.text);
    const { enabled, text } = await listedWith((issued.json as { api_key: string }).api_key);
    assert.ok(Object.values(enabled).every((value) => value === null), JSON.stringify(enabled));
    assert.match(text, /enabled: unknown/);
    assert.match(text, /invoice scopes .*GET \/me/);
  });
});

describe('MCP server against a rate-limited listener', () => {
  test('rate_limited carries the Retry-After seconds', async () => {
    const listener = await startListenerProcess({ SERVICE_RATE_LIMIT: '1' });
    const session = await connectMcp({ LISTENER_URL: listener.url });
    try {
      assert.notEqual((await call(session, 'create_invoice', { amount_sats: 1000 })).isError, true);
      const text = errorText(await call(session, 'create_invoice', { amount_sats: 1000 }));
      assert.match(text, /^rate_limited: .* Retry after [1-9]\d* s\./);
    } finally {
      await session.close();
      await listener.stop();
    }
  });
});

describe('MCP server with no listener running', () => {
  test('each tool answers a clear listener_unreachable error naming the address, and the server stays up', async () => {
    const url = `http://127.0.0.1:${await releasedPort()}`;
    const session = await connectMcp({ LISTENER_URL: url });
    try {
      for (const [name, args] of [
        ['create_invoice', { amount_sats: 1000 }],
        ['get_invoice_status', { invoice_id: 'inv_x' }],
        ['list_supported_assets', {}],
      ] as const) {
        const text = errorText(await call(session, name, args));
        assert.match(text, /^listener_unreachable: Cannot reach the listener at /);
        assert.ok(text.includes(url), text);
        assert.match(text, /LISTENER_URL/);
      }
      await assert.rejects(session.client.readResource({ uri: 'service://llms.txt' }), /listener_unreachable/);
      assert.deepEqual(session.transportErrors, []);
    } finally {
      await session.close();
    }
  });
});
