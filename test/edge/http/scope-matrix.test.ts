import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, ResultSchema } from '@modelcontextprotocol/sdk/types.js';
import type { RunningListener } from '../../../listener/app.ts';
import type { RunningCloud } from '../../../cloud/cloud-app.ts';
import { routesOf, type Route, type Surface } from '../../../shared/routes.ts';
import { OAUTH_SCOPES, type Scope } from '../../../shared/scopes.ts';
import { methodScopes } from '../../../edge/oauth/scopes.ts';
import { TASKS_EXTENSION } from '../../../mcp/tasks/extension.ts';
import { toolScopes } from '../../../mcp/tools/index.ts';
import { createServer as createMcpServer } from '../../../mcp/server.ts';
import { silentLogger } from '../../../core/log.ts';
import { BIP84_ZPUB, postJson, startTestListener } from '../../helpers/listener.ts';
import { signupMerchant, startTestCloud } from '../../helpers/cloud.ts';
import { answerConsent, REDIRECT_URL } from '../../helpers/oauth.ts';
import { messageOf, postModern } from '../../helpers/modern-mcp.ts';
import { defaultChains } from '../../../core/chains/default-chains.ts';

/**
 * The scope matrix: every HTTP route of both editions, every JSON-RPC method the MCP server answers
 * and every tool, each tried on a running server with a credential holding only one scope. The
 * entries come from the route table and the servers' own method and tool lists, so an entry without
 * a declared scope fails here.
 */

const LISTENER_KEY = 'scope-matrix-listener-key-0123456789';
const MCP_ACCEPT = { accept: 'application/json, text/event-stream' };
const ROUTE_SCOPES = new Set(['none', 'any', 'full-access', 'per-message', ...OAUTH_SCOPES]);

/** A credential as its headers, and the scopes it holds (null: all, a full-access key). */
interface Credential {
  name: string;
  headers: Record<string, string>;
  scopes: readonly Scope[] | null;
}

/** What a credential holding `scopes` may do with an entry needing `needed`. */
const covers = (scopes: readonly Scope[] | null, needed: string) => needed === 'none' || needed === 'any' || scopes === null || (scopes as readonly string[]).includes(needed);

/** The code of an error envelope, if the answer is one. */
const envelopeCode = (text: string): string | undefined => {
  try {
    return (JSON.parse(text) as { error?: { code?: string } }).error?.code;
  } catch {
    return undefined;
  }
};

/** Sample bodies for the POST routes that read one (others get `{}`): enough to get past the scope check. */
const routeBodies: Record<string, unknown> = {
  createInvoice: { chain: 'btc', amount_sats: 1000 },
  cloudCreateInvoice: { chain: 'btc', amount_sats: 1000 },
  cloudCreateKey: { label: 'matrix' },
};

async function callRoute(baseUrl: string, route: Route, invoiceId: string, headers: Record<string, string>) {
  const path = route.path.replace('{id}', invoiceId);
  const body = route.method === 'post' ? JSON.stringify(routeBodies[route.operationId] ?? {}) : undefined;
  const response = await fetch(`${baseUrl}${path}`, { method: route.method.toUpperCase(), headers: { 'content-type': 'application/json', ...headers }, body, redirect: 'manual' });
  const text = response.headers.get('content-type')?.includes('event-stream') ? (await response.body?.cancel(), '') : await response.text();
  return { status: response.status, code: envelopeCode(text), text };
}

/**
 * Each keyed or public route of `surface` (the MCP endpoint's are the method matrix's) tried with
 * every credential: refused with 403 insufficient_scope exactly when the credential lacks the
 * declared scope, never refused for a scope otherwise.
 */
async function checkRoutes(surface: Surface, baseUrl: string, invoiceId: string, credentials: readonly Credential[]) {
  const checked: string[] = [];
  for (const route of routesOf(surface)) {
    assert.ok(ROUTE_SCOPES.has(route.scope), `${route.operationId} declares no known scope (${String(route.scope)})`);
    assert.equal(route.auth === 'public', route.scope === 'none', `${route.operationId}: a public route needs no scope, a keyed one declares one`);
    if (route.scope === 'per-message' || route.scope === 'any') {
      assert.match(route.path, /\/mcp$/, `${route.operationId}: only the MCP endpoint scopes per message or takes any credential`);
      continue;
    }
    for (const credential of [...credentials, { name: 'no credential', headers: {}, scopes: [] }]) {
      const answer = await callRoute(baseUrl, route, invoiceId, credential.headers);
      const where: string = `${route.method.toUpperCase()} ${route.path} (${route.operationId}, needs ${route.scope}) with ${credential.name}: ${answer.status} ${answer.text.slice(0, 200)}`;
      if (route.scope === 'none') {
        assert.ok(answer.code !== 'unauthorized' && answer.code !== 'insufficient_scope', where);
      } else if (credential.name === 'no credential') {
        assert.equal(answer.code, 'unauthorized', where);
      } else if (covers(credential.scopes, route.scope)) {
        assert.ok(answer.status !== 401 && answer.status !== 403, where);
      } else {
        assert.equal(answer.status, 403, where);
        assert.equal(answer.code, 'insufficient_scope', where);
      }
    }
    checked.push(route.operationId);
  }
  return checked;
}

/** The methods a server answers, requests and notifications, as the SDK registered them. */
function registeredMethods(): string[] {
  const server = createMcpServer({
    listener: { listInvoices: async () => ({ ok: true, value: { invoices: [] } }) } as never,
    updates: { watch: () => () => undefined },
    chains: defaultChains, renderQr: () => Buffer.alloc(0),
    logger: silentLogger,
  });
  // The SDK keeps its handlers in these maps; nothing public lists them.
  const protocol = server.server as unknown as { _requestHandlers: Map<string, unknown>; _notificationHandlers: Map<string, unknown> };
  return [...protocol._requestHandlers.keys(), ...protocol._notificationHandlers.keys()];
}

/** The tasks extension's methods: tried with the extension declared, on a task nobody made (-32602 once past the scope). */
const TASK_METHODS = ['tasks/get', 'tasks/cancel', 'tasks/update'];
/** The methods only 2026-07-28 has (checked by checkModernMcp); every other one is tried on a 2025 session. */
const MODERN_ONLY = new Set(['server/discover', 'subscriptions/listen', ...TASK_METHODS]);
/** The 2025-only methods: the session's opening, its liveness check and its subscriptions. */
const LEGACY_ONLY = new Set(['initialize', 'ping', 'resources/subscribe', 'resources/unsubscribe']);

/** Sample params of each request method the matrix sends (initialize is every connect). */
const methodParams = (uri: string): Record<string, Record<string, unknown> | undefined> => ({
  ping: undefined,
  'tools/list': {},
  'resources/list': {},
  'resources/templates/list': {},
  'resources/read': { uri },
  'resources/subscribe': { uri },
  'resources/unsubscribe': { uri },
});
const notificationParams: Record<string, Record<string, unknown> | undefined> = {
  'notifications/initialized': undefined,
  'notifications/cancelled': { requestId: 12345, reason: 'matrix' },
  'notifications/progress': { progressToken: 12345, progress: 1 },
  'notifications/roots/list_changed': undefined,
};
/** Sample arguments of each tool: a tool missing here fails the matrix. */
const toolArguments = (invoiceId: string): Record<string, Record<string, unknown>> => ({
  create_invoice: { amount_sats: 1000 },
  get_invoice_status: { invoice_id: invoiceId },
  list_invoices: {},
  list_supported_assets: {},
  wait_for_payment: { invoice_id: invoiceId, timeout_s: 1 },
});

async function connect(mcpUrl: string, headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'scope-matrix', version: '1.0.0' }, { capabilities: { roots: { listChanged: true } } });
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { requestInit: { headers } }));
  return client;
}

/** Runs `call` and checks its outcome for a credential that `allowed` or not: a 403 insufficient_scope when not. */
async function expectScope(where: string, allowed: boolean, call: () => Promise<unknown>) {
  if (allowed) {
    await call().catch((error) => assert.fail(`${where}: refused: ${(error as Error).message}`));
    return;
  }
  await assert.rejects(call, (error: unknown) => {
    assert.ok(error instanceof StreamableHTTPError, `${where}: ${String(error)}`);
    assert.equal(error.code, 403, where);
    assert.equal(envelopeCode(error.message.replace(/^.*?Error POSTing to endpoint: /s, '')), 'insufficient_scope', `${where}: ${error.message}`);
    return true;
  });
}

/**
 * Every declared method and every listed tool, through the SDK's client, with each single-scope
 * credential; undeclared methods are refused to scoped credentials. Returns the tools it tried.
 */
async function checkMcp(mcpUrl: string, invoiceId: string, credentials: readonly Credential[], full: Record<string, string>): Promise<string[]> {
  const uri = `invoice://${invoiceId}`;
  const fullClient = await connect(mcpUrl, full);
  const { tools } = await fullClient.listTools();
  // A method nobody declared: a full-access key meets the SDK's "method not found", a scoped credential a 403.
  await assert.rejects(fullClient.request({ method: 'prompts/list', params: {} }, ResultSchema), (error: { code?: number }) => error.code === ErrorCode.MethodNotFound);
  await fullClient.close();
  for (const credential of credentials) {
    const client = await connect(mcpUrl, credential.headers);
    for (const [method, needed] of Object.entries(methodScopes)) {
      if (method === 'initialize' || method === 'tools/call' || MODERN_ONLY.has(method)) continue;
      const where = `${method} (needs ${needed}) with ${credential.name}`;
      const allowed = covers(credential.scopes, needed);
      if (method.startsWith('notifications/')) {
        assert.ok(method in notificationParams, `${method}: add sample params to the matrix`);
        // A notification has no answer but the HTTP status, which the client turns into a rejection.
        await expectScope(where, allowed, () => client.notification({ method, params: notificationParams[method] } as never));
        continue;
      }
      const params = methodParams(uri);
      assert.ok(method in params, `${method}: add sample params to the matrix`);
      await expectScope(where, allowed, () => client.request({ method, params: params[method] } as never, ResultSchema));
    }
    for (const tool of tools) {
      const needed = toolScopes[tool.name];
      const args = toolArguments(invoiceId)[tool.name];
      assert.ok(args, `${tool.name}: add sample arguments to the matrix`);
      const where = `tools/call ${tool.name} (needs ${needed}) with ${credential.name}`;
      await expectScope(where, covers(credential.scopes, needed!), async () => {
        const result = await client.callTool({ name: tool.name, arguments: args });
        assert.ok(!result.isError, `${where}: ${JSON.stringify(result.content)}`);
      });
    }
    if (credential.scopes !== null) await expectScope(`prompts/list (undeclared) with ${credential.name}`, false, () => client.request({ method: 'prompts/list', params: {} }, ResultSchema));
    // The session's event stream and its end take any credential of the endpoint.
    const transport = client.transport as StreamableHTTPClientTransport;
    const stream = await fetch(mcpUrl, { headers: { ...credential.headers, accept: 'text/event-stream', 'mcp-session-id': transport.sessionId!, 'mcp-protocol-version': transport.protocolVersion! } });
    await stream.body?.cancel();
    assert.ok(stream.status === 200 || stream.status === 409, `GET with ${credential.name}: ${stream.status}`);
    await transport.terminateSession();
    await client.close();
  }
  return tools.map((tool) => tool.name);
}

/** Sample params of the 2026-07-28 requests the matrix sends by hand. */
const modernParams = (uri: string): Record<string, Record<string, unknown>> => ({
  'server/discover': {},
  'tools/list': {},
  'resources/list': {},
  'resources/templates/list': {},
  'resources/read': { uri },
  'subscriptions/listen': { notifications: { resourceSubscriptions: [uri] } },
  'tasks/get': { taskId: 'matrix-no-such-task' },
  'tasks/cancel': { taskId: 'matrix-no-such-task' },
  'tasks/update': { taskId: 'matrix-no-such-task', inputResponses: {} },
});

/**
 * The same matrix on the 2026-07-28 path, request by request on the wire: every method it serves
 * and every tool, with each credential. A refusal is the endpoint's 403 insufficient_scope before
 * the SDK sees the request; anything allowed is answered by the SDK (a listen stream opens).
 */
async function checkModernMcp(mcpUrl: string, invoiceId: string, credentials: readonly Credential[], tools: readonly string[]) {
  const uri = `invoice://${invoiceId}`;
  for (const credential of credentials) {
    const calls = [
      ...Object.entries(methodScopes)
        .filter(([method]) => !method.startsWith('notifications/') && !LEGACY_ONLY.has(method) && method !== 'tools/call')
        .map(([method, needed]) => ({ method, needed, params: modernParams(uri)[method] })),
      ...tools.map((tool) => ({ method: 'tools/call', needed: toolScopes[tool]!, params: { name: tool, arguments: toolArguments(invoiceId)[tool] } as Record<string, unknown> })),
    ];
    for (const { method, needed, params } of calls) {
      assert.ok(params, `${method}: add sample 2026-07-28 params to the matrix`);
      const where = `2026-07-28 ${method} ${String(params.name ?? '')} (needs ${needed}) with ${credential.name}`;
      const isTask = TASK_METHODS.includes(method);
      const response = await postModern(mcpUrl, credential.headers, method, params, isTask ? { capabilities: { extensions: { [TASKS_EXTENSION]: {} } } } : {});
      if (!covers(credential.scopes, needed)) {
        assert.equal(response.status, 403, where);
        assert.equal(envelopeCode(await response.text()), 'insufficient_scope', where);
        continue;
      }
      assert.equal(response.status, 200, where);
      if (method === 'subscriptions/listen') {
        // The stream stays open; its headers are the answer.
        const streams = response.headers.get('content-type')?.startsWith('text/event-stream');
        assert.ok(streams, `${where}: ${streams ? '' : await response.text()}`);
        await response.body?.cancel();
        continue;
      }
      const message = await messageOf(response);
      if (isTask) {
        assert.equal(message.error?.code, -32602, `${where}: reached the tasks handler`);
        continue;
      }
      assert.ok(message.result, `${where}: ${JSON.stringify(message.error)}`);
      if (method === 'tools/call') assert.ok(!message.result.isError, `${where}: ${JSON.stringify(message.result.content)}`);
    }
  }
}

/** An access token for the MCP endpoint at `mcpPath` with exactly `scope`, approved on the consent page with `key`. */
async function tokenFor(baseUrl: string, mcpPath: string, key: string, scope: Scope): Promise<string> {
  const registered = await postJson(`${baseUrl}/oauth/register`, { client_name: 'Matrix', redirect_uris: [REDIRECT_URL], token_endpoint_auth_method: 'none', grant_types: ['authorization_code'] });
  assert.equal(registered.status, 201, registered.text);
  const clientId: string = registered.json.client_id;
  const verifier = randomBytes(32).toString('base64url');
  const url = new URL(`${baseUrl}/oauth/authorize`);
  url.search = new URLSearchParams({
    client_id: clientId,
    response_type: 'code',
    redirect_uri: REDIRECT_URL,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    scope,
    state: 'matrix',
    resource: `${baseUrl}${mcpPath}`,
  }).toString();
  const { redirect } = await answerConsent(url, key, 'approve');
  const code = redirect.searchParams.get('code');
  assert.ok(code, redirect.href);
  const exchanged = await fetch(`${baseUrl}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: REDIRECT_URL, client_id: clientId }).toString(),
  });
  const tokens = (await exchanged.json()) as { access_token: string; scope: string };
  assert.equal(tokens.scope, scope);
  return tokens.access_token;
}

describe('the scope matrix: every route, MCP method and tool against every scope', () => {
  const triedTools = new Set<string>();
  const triedRoutes = new Set<string>();

  test('every method the MCP server registers, and every tool, declares its scope', () => {
    for (const method of registeredMethods()) assert.ok(Object.hasOwn(methodScopes, method), `the MCP method ${method} declares no scope (edge/oauth/scopes.ts)`);
    assert.equal(methodScopes['resources/list'], 'invoices:read', 'listing counts as reading');
    for (const [tool, scope] of Object.entries(toolScopes)) assert.ok(scope === 'any' || (OAUTH_SCOPES as readonly string[]).includes(scope), `${tool}: ${scope}`);
  });

  describe('Cloud, with scoped API keys and an OAuth token', () => {
    let cloud: RunningCloud;
    let full: Credential;
    let keys: Credential[];
    let writeToken: Credential;
    let invoiceId: string;
    before(async () => {
      cloud = await startTestCloud();
      const merchant = await signupMerchant(cloud.url, { btc_xpub: BIP84_ZPUB });
      full = { name: 'a full-access key', headers: { 'x-service-api-key': merchant.api_key }, scopes: null };
      keys = [];
      for (const scope of OAUTH_SCOPES) {
        const issued = await postJson(`${cloud.url}/api/v1/keys`, { label: scope, scopes: [scope] }, full.headers);
        assert.equal(issued.status, 201, issued.text);
        keys.push({ name: `a key with only ${scope}`, headers: { 'x-service-api-key': issued.json.api_key }, scopes: [scope] });
      }
      const token = await tokenFor(cloud.url, '/api/v1/mcp', merchant.api_key, 'invoices:write');
      writeToken = { name: 'a token with only invoices:write', headers: { authorization: `Bearer ${token}` }, scopes: ['invoices:write'] };
      const invoice = await postJson(`${cloud.url}/api/v1/invoice`, { chain: 'btc', amount_sats: 2100 }, full.headers);
      assert.equal(invoice.status, 201, invoice.text);
      invoiceId = invoice.json.invoice_id;
    });
    after(async () => {
      await cloud?.stop();
    });

    test('HTTP routes: refused with 403 insufficient_scope exactly without the declared scope', async () => {
      for (const id of await checkRoutes('cloud', cloud.url, invoiceId, [full, ...keys])) triedRoutes.add(`cloud ${id}`);
    });

    test('MCP methods and tools: a create-only key or token can no longer list invoices; each scope does exactly what is declared', async () => {
      for (const writeOnly of [keys.find((key) => key.scopes![0] === 'invoices:write')!, writeToken]) {
        const client = await connect(`${cloud.url}/api/v1/mcp`, writeOnly.headers);
        await expectScope(`resources/list with ${writeOnly.name}`, false, () => client.listResources());
        await client.close();
      }
      const reader = await connect(`${cloud.url}/api/v1/mcp`, keys.find((key) => key.scopes![0] === 'invoices:read')!.headers);
      assert.ok((await reader.listResources()).resources.some((resource) => resource.uri === `invoice://${invoiceId}`));
      await reader.close();
      for (const tool of await checkMcp(`${cloud.url}/api/v1/mcp`, invoiceId, [...keys, writeToken], full.headers)) triedTools.add(tool);
      await checkModernMcp(`${cloud.url}/api/v1/mcp`, invoiceId, [full, ...keys, writeToken], Object.keys(toolScopes));
    });
  });

  describe('the listener, with its key and OAuth tokens of one scope each', () => {
    let listener: RunningListener;
    let tokens: Credential[];
    let invoiceId: string;
    const key: Credential = { name: 'the key', headers: { 'x-service-api-key': LISTENER_KEY }, scopes: null };
    before(async () => {
      listener = await startTestListener({ env: { SERVICE_API_KEY: LISTENER_KEY } });
      tokens = [];
      for (const scope of OAUTH_SCOPES) tokens.push({ name: `a token with only ${scope}`, headers: { authorization: `Bearer ${await tokenFor(listener.url, '/mcp', LISTENER_KEY, scope)}` }, scopes: [scope] });
      const invoice = await postJson(`${listener.url}/invoice`, { chain: 'btc', amount_sats: 2100 }, key.headers);
      assert.equal(invoice.status, 201, invoice.text);
      invoiceId = invoice.json.invoice_id;
    });
    after(async () => {
      await listener?.stop();
    });

    test('HTTP routes: the key passes every keyed route; tokens, issued for /mcp only, pass none of them', async () => {
      for (const id of await checkRoutes('listener', listener.url, invoiceId, [key])) triedRoutes.add(`listener ${id}`);
      for (const route of routesOf('listener').filter((route) => route.auth !== 'public' && !route.path.endsWith('/mcp'))) {
        for (const token of tokens) assert.equal((await callRoute(listener.url, route, invoiceId, token.headers)).code, 'unauthorized', `${route.operationId} with ${token.name}`);
      }
    });

    test('MCP methods and tools: each token does exactly what its scope declares', async () => {
      for (const tool of await checkMcp(`${listener.url}/mcp`, invoiceId, tokens, key.headers)) triedTools.add(tool);
      await checkModernMcp(`${listener.url}/mcp`, invoiceId, [key, ...tokens], Object.keys(toolScopes).filter((tool) => tool !== 'list_invoices'));
    });
  });

  test('the matrix tried every tool and every route of both editions but the MCP endpoint (tried message by message)', () => {
    assert.deepEqual([...triedTools].sort(), Object.keys(toolScopes).sort());
    const expected = (['listener', 'cloud'] as const).flatMap((surface) => routesOf(surface).filter((route) => route.scope !== 'per-message' && route.scope !== 'any').map((route) => `${surface} ${route.operationId}`));
    assert.deepEqual([...triedRoutes].sort(), expected.sort());
  });
});
