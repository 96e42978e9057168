import { defaultChains } from '../../core/chains/default-chains.ts';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { startListener, type RunningListener } from '../../listener/app.ts';
import type { RunningCloud } from '../../cloud/cloud-app.ts';
import { loadConfig } from '../../listener/config.ts';
import { openCoreDatabase } from '../../core/schema.ts';
import { silentLogger } from '../../core/log.ts';
import { signupMerchant, startTestCloud } from '../helpers/cloud.ts';
import { BIP84_ZPUB, NO_CHAIN_ESPLORA_URL, startTestListener, tempSqliteUrl } from '../helpers/listener.ts';
import { privatePostgresSkip, startPrivatePostgres } from '../helpers/private-postgres.ts';
import { dereferenced, exchange, firstEvent, responseChecker, strictAjv, type Answer } from '../helpers/openapi-check.ts';
import { answerConsent, REDIRECT_URL } from '../helpers/oauth.ts';
import { exerciseX402, x402Stage } from '../helpers/x402-exercise.ts';
import { ACCOUNT_XPUB } from '../helpers/evm-chain.ts';
import { insertRows, invoiceRow } from '../helpers/invoice-rows.ts';
import type { Kysely } from 'kysely';
import type { CoreTables } from '../../core/schema.ts';

const committed = JSON.parse(readFileSync(new URL('../../openapi/openapi.json', import.meta.url), 'utf8'));
const FIXED_ADDRESS = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const LISTENER_KEY = 'listener-test-key-0123456789';
const OVERLONG_ID = 'x'.repeat(20_000);

const MCP_ACCEPT = { accept: 'application/json, text/event-stream' };
const rpc = (message: Record<string, unknown>) => JSON.stringify({ jsonrpc: '2.0', ...message });
const INITIALIZE = rpc({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'contract', version: '1' } } });

/**
 * Every documented answer of the MCP endpoint at `path` (served with MCP_MAX_SESSIONS=1 and
 * MCP_INITIALIZE_RATE_LIMIT=3): a session, a notification, its event stream, its end, and each refusal. `send` checks an answer against the
 * document; the open event stream is checked from its status and headers.
 */
async function exerciseMcp(baseUrl: string, path: string, key: Record<string, string>, send: (method: string, path: string, options: Parameters<typeof exchange>[3]) => Promise<Answer & { json(): any; headers: Headers }>, check: (answer: Answer) => void) {
  const response = await fetch(`${baseUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...key, ...MCP_ACCEPT }, body: INITIALIZE });
  const opened = { method: 'POST', path, status: response.status, contentType: response.headers.get('content-type') ?? '', body: await response.text() };
  check(opened);
  assert.equal(opened.status, 200, opened.body);
  assert.match(opened.body, /"serverInfo"/);
  const session = { ...key, ...MCP_ACCEPT, 'mcp-session-id': response.headers.get('mcp-session-id')! };
  assert.equal((await send('POST', path, { headers: { ...key, ...MCP_ACCEPT }, body: INITIALIZE })).json().error.code, 'capacity');
  assert.equal((await send('POST', path, { headers: session, body: rpc({ method: 'notifications/initialized' }) })).status, 202);
  const stream = await fetch(`${baseUrl}${path}`, { headers: { ...session, accept: 'text/event-stream' } });
  check({ method: 'GET', path, status: stream.status, contentType: stream.headers.get('content-type') ?? '', body: '' });
  assert.equal(stream.status, 200);
  await stream.body?.cancel();
  for (const method of ['POST', 'GET', 'DELETE']) {
    const body = method === 'POST' ? rpc({ id: 2, method: 'tools/list' }) : undefined;
    assert.equal((await send(method, path, { headers: { ...key, ...MCP_ACCEPT }, body })).json().error.code, 'bad_body', method);
    assert.equal((await send(method, path, { headers: MCP_ACCEPT, body })).json().error.code, 'unauthorized', method);
    assert.equal((await send(method, path, { headers: { ...session, origin: 'https://evil.example' }, body })).json().error.code, 'origin_not_allowed', method);
    assert.equal((await send(method, path, { headers: { ...session, 'mcp-session-id': 'gone' }, body })).json().error.code, 'not_found', method);
    assert.equal((await send(method, `${path}?${OVERLONG_ID}`, { headers: session, body })).status, 431, method);
  }
  assert.equal((await send('DELETE', path, { headers: session })).status, 200);
  // Session starts are rate-limited: past three a minute, 429 too_many_sessions with Retry-After.
  let throttled;
  for (let i = 0; i < 5 && !throttled; i++) {
    const answer = await send('POST', path, { headers: { ...key, ...MCP_ACCEPT }, body: INITIALIZE });
    if (answer.status === 429) throttled = answer;
  }
  assert.equal(throttled?.json().error.code, 'too_many_sessions');
  assert.ok(Number(throttled?.headers.get('retry-after')) >= 1);
}

/** Holds one checkout stream open at `url` + `path` while `refused` asks for another over the per-client cap of one. */
async function overStreamCap(url: string, path: string, refused: () => Promise<Answer & { json(): any; headers: Headers }>) {
  const held = await fetch(`${url}${path}`, { headers: { accept: 'text/event-stream' } });
  try {
    assert.equal(held.status, 200);
    const answer = await refused();
    assert.equal(answer.status, 429);
    assert.equal(answer.json().error.code, 'too_many_streams');
    assert.ok(Number(answer.headers.get('retry-after')) >= 1);
  } finally {
    await held.body?.cancel();
  }
}

type Send = (method: string, path: string, options?: Parameters<typeof exchange>[3]) => Promise<Answer & { json(): any; headers: Headers }>;
const form = (fields: Record<string, string>) => ({ headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString(), bare: true });

/**
 * An invoice list (the listener's GET /invoices, Cloud's GET /api/v1/invoices): a page, a CSV
 * export, a refused query, no key, and the export cap: two exports the client does not read hold
 * the merchant's two slots (their rows outgrow every buffer on the way), so a third gets 429.
 */
async function exerciseInvoiceList(baseUrl: string, path: string, key: Record<string, string>, db: Kysely<CoreTables>, merchantId: string, send: Send) {
  const bulky = JSON.stringify({ note: 'x'.repeat(2000) });
  await insertRows(db, Array.from({ length: 10_000 }, (_, n) => invoiceRow(merchantId, `inv_cap${String(n).padStart(5, '0')}`, { created_at: Date.UTC(2026, 0, 1) + n, metadata: bulky })));
  assert.equal((await send('GET', `${path}?limit=2`, { headers: key })).status, 200);
  assert.equal((await send('GET', `${path}?status=paid`, { headers: key })).json().error.code, 'bad_query');
  assert.equal((await send('GET', path, {})).status, 401);
  const held = await Promise.all([0, 1].map(() => fetch(`${baseUrl}${path}?format=csv`, { headers: key })));
  const third = await send('GET', `${path}?format=csv`, { headers: key });
  assert.equal(third.json().error.code, 'rate_limited');
  assert.equal(third.headers.get('retry-after'), '5');
  await Promise.all(held.map((response) => response.body!.cancel()));
  // A cancelled export gives its slot back once the server sees the connection end.
  const deadline = Date.now() + 10_000;
  let exported = await send('GET', `${path}?format=csv&limit=1`, { headers: key });
  while (exported.status === 429 && Date.now() < deadline) exported = await send('GET', `${path}?format=csv&limit=1`, { headers: key });
  assert.equal(exported.status, 200);
  assert.equal(exported.body.split('\n').length - 1, 10_001, 'the whole list, limit ignored');
}

/**
 * Every documented answer of the OAuth endpoints of a server with OAuth on, signing in with `key` for
 * `mcpPath`: the metadata, a registration, the authorization redirect, the code exchange, a
 * revocation, each OAuth refusal, the edge refusals, and the throttles last.
 */
async function exerciseOAuth(baseUrl: string, mcpPath: string, key: string, send: Send) {
  for (const path of ['/.well-known/oauth-protected-resource', `/.well-known/oauth-protected-resource${mcpPath}`, '/.well-known/oauth-authorization-server']) {
    const metadata = await send('GET', path);
    assert.equal(metadata.status, 200, path);
    assert.equal(metadata.json().resource ?? `${baseUrl}${mcpPath}`, `${baseUrl}${mcpPath}`, path);
  }
  const client = await send('POST', '/oauth/register', { body: JSON.stringify({ client_name: 'Contract', redirect_uris: [REDIRECT_URL], token_endpoint_auth_method: 'none' }) });
  assert.equal(client.status, 201, client.body);
  const clientId: string = client.json().client_id;
  assert.equal((await send('POST', '/oauth/register', { body: '{}' })).json().error, 'invalid_redirect_uri');

  const verifier = randomBytes(32).toString('base64url');
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT_URL,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    scope: 'invoices:read invoices:write',
    state: 'contract',
    resource: `${baseUrl}${mcpPath}`,
  });
  const toConsent = await send('GET', `/oauth/authorize?${query}`, { redirect: 'manual' });
  assert.equal(toConsent.status, 303);
  assert.match(toConsent.headers.get('location')!, /\/oauth\/consent\//);
  const unknownClient = await send('GET', `/oauth/authorize?${new URLSearchParams({ ...Object.fromEntries(query), client_id: 'unknown' })}`, { redirect: 'manual' });
  assert.equal(unknownClient.status, 400);
  assert.match(unknownClient.body, /invalid_client/);

  const { redirect } = await answerConsent(new URL(`/oauth/authorize?${query}`, baseUrl), key, 'approve');
  const code = redirect.searchParams.get('code');
  assert.ok(code, redirect.href);
  const exchangeCode = form({ grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: REDIRECT_URL, client_id: clientId });
  const tokens = await send('POST', '/oauth/token', exchangeCode);
  assert.equal(tokens.status, 200, tokens.body);
  assert.equal((await send('POST', '/oauth/token', exchangeCode)).json().error, 'invalid_grant', 'a used code');
  assert.equal((await send('POST', '/oauth/revoke', form({ token: tokens.json().access_token, client_id: clientId }))).status, 200);
  assert.equal((await send('POST', '/oauth/revoke', form({ token: tokens.json().access_token }))).json().error, 'invalid_request');

  for (const [method, path] of [
    ['GET', '/.well-known/oauth-protected-resource'],
    ['GET', `/.well-known/oauth-protected-resource${mcpPath}`],
    ['GET', '/.well-known/oauth-authorization-server'],
    ['GET', '/oauth/authorize'],
    ['POST', '/oauth/token'],
    ['POST', '/oauth/register'],
    ['POST', '/oauth/revoke'],
  ] as const) {
    const body = method === 'POST' ? form({}) : {};
    assert.equal((await send(method, `${path}?%ff`, body)).json().error.code, 'bad_body', path);
    assert.equal((await send(method, `${path}?${OVERLONG_ID}`, body)).status, 431, path);
  }
  // Registrations are throttled per client address (20 here): the next ones get 429 with Retry-After.
  let throttled;
  for (let i = 0; i < 25 && !throttled; i++) {
    const answer = await send('POST', '/oauth/register', { body: JSON.stringify({ redirect_uris: [REDIRECT_URL], token_endpoint_auth_method: 'none' }) });
    if (answer.status === 429) throttled = answer;
  }
  assert.equal(throttled?.json().error, 'too_many_requests');
  assert.match(throttled!.headers.get('retry-after')!, /^[1-9][0-9]*$/);
  // So are authorization requests (60 a minute) and token requests (600): an error page, an OAuth error.
  let authorizeThrottled;
  for (let i = 0; i < 70 && !authorizeThrottled; i++) {
    const answer = await send('GET', `/oauth/authorize?${query}`, { redirect: 'manual' });
    if (answer.status === 429) authorizeThrottled = answer;
  }
  assert.match(authorizeThrottled!.body, /temporarily_unavailable/);
  assert.match(authorizeThrottled!.headers.get('retry-after')!, /^[1-9][0-9]*$/);
  let tokenThrottled;
  for (let i = 0; i < 610 && !tokenThrottled; i++) {
    const answer = await send('POST', '/oauth/token', form({ grant_type: 'refresh_token', refresh_token: `guess-${i}`, client_id: clientId }));
    if (answer.status === 429) tokenThrottled = answer;
  }
  assert.equal(tokenThrottled?.json().error, 'too_many_requests');
  assert.match(tokenThrottled!.headers.get('retry-after')!, /^[1-9][0-9]*$/);
}

function assertFullyResolves(document: Record<string, unknown>) {
  const text = JSON.stringify(document);
  assert.ok(!text.includes('"$ref"'), 'no $ref is left after dereferencing');
}

describe('the contract resolves everywhere', () => {
  it('the committed openapi.json validates and dereferences fully with swagger-parser', async () => {
    assertFullyResolves(await dereferenced(committed));
  });

  it('every component schema compiles under JSON Schema 2020-12 (Ajv strict) with plain #/components/schemas refs', async () => {
    const refs = JSON.stringify(committed).match(/"\$ref":"[^"]*"/g) ?? [];
    for (const ref of refs) assert.match(ref, /^"\$ref":"#\/components\/schemas\/[A-Za-z]+"$/);
    const ajv = strictAjv();
    ajv.addKeyword({ keyword: 'components' });
    ajv.addSchema({ $id: 'https://contract.invalid/openapi.json', components: committed.components });
    for (const id of Object.keys(committed.components.schemas)) ajv.compile({ $ref: `https://contract.invalid/openapi.json#/components/schemas/${id}` });
    // Each schema on its own too: the resource above does not validate `$id` or keywords inside `components`.
    const standalone = strictAjv();
    for (const schema of Object.values((await dereferenced(committed)).components.schemas)) standalone.compile(schema as object);
    const broken = strictAjv();
    broken.addKeyword({ keyword: 'components' });
    broken.addSchema({ $id: 'https://broken.invalid/openapi.json', components: { schemas: { X: { type: 'object', properties: { a: { $ref: '#/components/schemas/__shared#/$defs/Y' } } } } } });
    assert.throws(() => broken.compile({ $ref: 'https://broken.invalid/openapi.json#/components/schemas/X' }), /resolve reference/, 'the check catches an unresolvable ref');
  });

  it('the listener and Cloud serve that document, and it dereferences fully', async () => {
    const listener = await startTestListener();
    const cloud = await startTestCloud();
    try {
      for (const url of [`${listener.url}/openapi.json`, `${cloud.url}/api/v1/openapi.json`]) {
        const served = await (await fetch(url)).json();
        assert.deepEqual(served, committed, url);
        assertFullyResolves(await dereferenced(served));
      }
    } finally {
      await Promise.all([listener.stop(), cloud.stop()]);
    }
  });
});

/** Starts a listener over a database the test can close, to produce the storage-failure answers. */
async function listenerOverClosableDatabase() {
  const database = await openCoreDatabase(tempSqliteUrl(), defaultChains, { logger: silentLogger });
  const listener = await startTestListener({ database });
  return { listener, database };
}

describe('real answers of every listener operation and documented status match the served document', () => {
  let check: ReturnType<typeof responseChecker>;
  const listeners: RunningListener[] = [];

  before(async () => {
    const probe = await startTestListener();
    listeners.push(probe);
    check = responseChecker(await dereferenced(await (await fetch(`${probe.url}/openapi.json`)).json()));
  });
  after(() => Promise.all(listeners.map((listener) => listener.stop())));

  const send = async (url: string, method: string, path: string, options: Parameters<typeof exchange>[3] = {}) => {
    const answer = await exchange(url, method, path, options);
    check.check(answer);
    return answer;
  };

  it('Bitcoin listener with an API key: success, refusals, oversized headers, documents', async () => {
    const listener = await startTestListener({ env: { SERVICE_API_KEY: LISTENER_KEY } });
    listeners.push(listener);
    const key = { 'X-Service-Api-Key': LISTENER_KEY };
    const url = listener.url;
    const created = await send(url, 'POST', '/invoice', { headers: key, body: '{"chain":"btc","amount_sats":1000,"memo":"x"}' });
    assert.equal(created.status, 201);
    const id = created.json().invoice_id;
    for (const body of ['{', '{"chain":"btc","amount_sats":-1}', '{"chain":"doge","amount_sats":1}', '{"chain":"base","amount_usd":1}']) {
      assert.equal((await send(url, 'POST', '/invoice', { headers: key, body })).status, 400, body);
    }
    assert.equal((await send(url, 'POST', '/invoice', { body: '{"chain":"btc","amount_sats":1000}' })).status, 401);
    assert.equal((await send(url, 'POST', '/invoice?x=%ff', { headers: key, body: '{}' })).status, 400);
    assert.equal((await send(url, 'POST', `/invoice?${OVERLONG_ID}`, { headers: key, body: '{}' })).status, 431);
    for (const route of ['/invoice', '/checkout']) {
      assert.equal((await send(url, 'GET', `${route}/${id}`)).status, 200);
      assert.equal((await send(url, 'GET', `${route}/missing`)).status, 404);
      assert.equal((await send(url, 'GET', `${route}/%ff`)).status, 400);
      assert.equal((await send(url, 'GET', `${route}/${OVERLONG_ID}`)).status, 431);
    }
    assert.equal((await send(url, 'GET', '/pay/missing')).status, 404);
    assert.equal((await send(url, 'GET', '/health')).status, 200);
    assert.equal((await send(url, 'GET', '/health?%ff')).status, 400);
    assert.equal((await send(url, 'GET', `/health?${OVERLONG_ID}`)).status, 431);
    assert.equal((await send(url, 'GET', '/metrics', { headers: { 'X-Forwarded-For': '203.0.113.7' } })).status, 401, 'a forwarded /metrics request');
    for (const path of ['/openapi.json', '/llms.txt', `/pay/${id}`, '/metrics']) {
      assert.equal((await send(url, 'GET', path)).status, 200, path);
      assert.equal((await send(url, 'GET', `${path}?%ff`)).status, 400, path);
      assert.equal((await send(url, 'GET', `${path}?${OVERLONG_ID}`)).status, 431, path);
    }
  });

  it('GET /invoices: a page, an export, a refused query, no key, the export cap', async () => {
    const listener = await startTestListener({ env: { SERVICE_API_KEY: LISTENER_KEY, MERCHANT_ID: 'm_list' } });
    listeners.push(listener);
    await exerciseInvoiceList(listener.url, '/invoices', { 'X-Service-Api-Key': LISTENER_KEY }, listener.database.db, 'm_list', (method, path, options) => send(listener.url, method, path, options));
    assert.equal((await send(listener.url, 'GET', '/invoices?%ff')).status, 400);
    assert.equal((await send(listener.url, 'GET', `/invoices?${OVERLONG_ID}`)).status, 431);
  });

  it('Base fixed-address listener: chain and asset refusals, 503 capacity, then 429 rate_limited', async () => {
    const config = loadConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      DATABASE_URL: tempSqliteUrl(),
      MERCHANT_BASE_ADDRESS: FIXED_ADDRESS,
      MERCHANT_EVM_TOKENS: 'usdt',
      BASE_RPC_URL: 'http://127.0.0.1:9', BASE_MIN_SOURCES: '1',
      SERVICE_RATE_LIMIT: '12',
    }, defaultChains);
    const listener = await startListener(config, { logger: silentLogger, tuning: { evm: { nonceDigits: 1 } } });
    listeners.push(listener);
    const post = (body: string) => send(listener.url, 'POST', '/invoice', { body });
    assert.equal((await post('{"chain":"btc","amount_sats":1000}')).json().error.code, 'chain_disabled');
    assert.equal((await post('{"chain":"base","amount_usd":1,"asset":"usdc"}')).json().error.code, 'asset_disabled');
    // One nonce digit: an amount has nine nonces, the tenth invoice of it finds none.
    for (let i = 0; i < 9; i++) assert.equal((await post('{"chain":"base","amount_usd":2,"asset":"usdt"}')).status, 201);
    assert.equal((await post('{"chain":"base","amount_usd":2,"asset":"usdt"}')).status, 503);
    // A request the service fails (5xx) gives its slot back: the twelfth slot is still free.
    assert.equal((await post('{"chain":"base","amount_usd":3,"asset":"usdt"}')).status, 201);
    const limited = await post('{"chain":"base","amount_usd":3,"asset":"usdt"}');
    assert.equal(limited.status, 429);
  });

  it('a listener whose database fails: 500 create_failed and lookup_failed, the checkout page asks to reload', async () => {
    const { listener, database } = await listenerOverClosableDatabase();
    listeners.push(listener);
    await database.close();
    assert.equal((await send(listener.url, 'POST', '/invoice', { body: '{"chain":"btc","amount_sats":1000}' })).json().error.code, 'create_failed');
    assert.equal((await send(listener.url, 'GET', '/invoice/any')).json().error.code, 'lookup_failed');
    assert.equal((await send(listener.url, 'GET', '/invoices')).json().error.code, 'lookup_failed');
    assert.equal((await send(listener.url, 'GET', '/invoices?format=csv')).json().error.code, 'lookup_failed');
    assert.equal((await send(listener.url, 'GET', '/checkout/any')).json().error.code, 'lookup_failed');
    assert.equal((await send(listener.url, 'GET', '/x402/any')).json().error.code, 'lookup_failed');
    assert.equal((await send(listener.url, 'GET', '/pay/any')).status, 500);
  });

  it('a listener whose PostgreSQL is down: 503 database_unavailable with Retry-After', { skip: privatePostgresSkip }, async () => {
    const server = await startPrivatePostgres();
    try {
      const listener = await startTestListener({ env: { DATABASE_URL: server.url } });
      listeners.push(listener);
      await server.stop();
      for (const [method, path, body] of [['POST', '/invoice', '{"chain":"btc","amount_sats":1000}'], ['GET', '/invoice/any'], ['GET', '/invoices'], ['GET', '/checkout/any'], ['GET', '/checkout/any/events'], ['GET', '/x402/any']]) {
        const answer = await send(listener.url, method, path, body ? { body } : {});
        assert.equal(answer.json().error.code, 'database_unavailable', path);
        assert.equal(answer.headers.get('retry-after'), '5', path);
      }
    } finally {
      await server.destroy();
    }
  });

  it('the MCP endpoint: a session and every refusal', async () => {
    const listener = await startTestListener({ env: { SERVICE_API_KEY: LISTENER_KEY, MCP_MAX_SESSIONS: '1', MCP_INITIALIZE_RATE_LIMIT: '3' } });
    listeners.push(listener);
    await exerciseMcp(listener.url, '/mcp', { 'X-Service-Api-Key': LISTENER_KEY }, (method, path, options) => send(listener.url, method, path, options), (answer) => check.check(answer));
  });

  it('OAuth: metadata, authorization, token, registration, revocation, their refusals; 404 everywhere while OAuth is off', async () => {
    const listener = await startTestListener({ env: { SERVICE_API_KEY: LISTENER_KEY } });
    const off = await startTestListener();
    listeners.push(listener, off);
    await exerciseOAuth(listener.url, '/mcp', LISTENER_KEY, (method, path, options) => send(listener.url, method, path, options));
    for (const [method, path] of [
      ['GET', '/.well-known/oauth-protected-resource'],
      ['GET', '/.well-known/oauth-protected-resource/mcp'],
      ['GET', '/.well-known/oauth-authorization-server'],
      ['GET', '/oauth/authorize'],
      ['POST', '/oauth/token'],
      ['POST', '/oauth/register'],
      ['POST', '/oauth/revoke'],
    ] as const) {
      assert.equal((await send(off.url, method, path, method === 'POST' ? form({}) : {})).json().error.code, 'not_found', path);
    }
  });

  it("OAuth whose storage fails: the authorization endpoint's error page with the status oidc-provider picks", async () => {
    const database = await openCoreDatabase(tempSqliteUrl(), defaultChains, { logger: silentLogger });
    const listener = await startTestListener({ database, env: { SERVICE_API_KEY: LISTENER_KEY } });
    listeners.push(listener);
    assert.equal((await send(listener.url, 'GET', '/.well-known/oauth-authorization-server')).status, 200, 'the authorization server is up');
    await database.close();
    const failed = await send(listener.url, 'GET', '/oauth/authorize?client_id=any&response_type=code', { redirect: 'manual' });
    assert.equal(failed.status, 500, failed.body);
    assert.match(failed.body, /server_error/);
  });

  it('the live checkout view: its first event, and each refusal', async () => {
    const { listener, database } = await listenerOverClosableDatabase();
    listeners.push(listener);
    const created = await send(listener.url, 'POST', '/invoice', { body: '{"chain":"btc","amount_sats":1000}' });
    const id = created.json().invoice_id;
    const stream = await firstEvent(listener.url, `/checkout/${id}/events`);
    check.check(stream);
    assert.equal(stream.event, 'view');
    assert.equal(JSON.parse(stream.data).invoice_id, id);
    for (const [path, status] of [['/checkout/missing/events', 404], ['/checkout/%ff/events', 400], [`/checkout/${OVERLONG_ID}/events`, 431]] as const) {
      assert.equal((await send(listener.url, 'GET', path)).status, status, path.slice(0, 40));
    }
    await database.close();
    assert.equal((await send(listener.url, 'GET', `/checkout/${id}/events`)).json().error.code, 'lookup_failed');
  });

  it('a client over its checkout stream cap: 429 too_many_streams with Retry-After', async () => {
    const listener = await startTestListener({ env: { CHECKOUT_STREAMS_PER_CLIENT: '1' } });
    listeners.push(listener);
    const id = (await send(listener.url, 'POST', '/invoice', { body: '{"chain":"btc","amount_sats":1000}' })).json().invoice_id;
    await overStreamCap(listener.url, `/checkout/${id}/events`, () => send(listener.url, 'GET', `/checkout/${id}/events`));
  });

  it('x402: every answer of an invoice\'s x402 URL, one node standing in for two chains (the built-in settler, a facilitator)', async () => {
    const stage = await x402Stage();
    try {
      const listener = await startTestListener({ env: { ...stage.env, MERCHANT_EVM_XPUB: ACCOUNT_XPUB, BTC_ESPLORA_URL: NO_CHAIN_ESPLORA_URL } });
      listeners.push(listener);
      const create = async (body: Record<string, unknown>) => (await send(listener.url, 'POST', '/invoice', { body: JSON.stringify(body) })).json();
      await exerciseX402(stage, '', create, (method, path, options) => send(listener.url, method, path, options), OVERLONG_ID);
    } finally {
      await stage.close();
    }
  });

  it('covers every documented listener status but the one no input can reach', () => {
    const unreachable = [
      // /health reports a failing database as `ok: false` with 200; 500 is only for a bug.
      'GET /health 500',
    ];
    // Cloud's paths: under /api/v1, and the metadata of its MCP endpoint.
    const documented = check.documented((template) => !template.includes('/api/v1'));
    assert.deepEqual([...check.covered].sort(), documented.filter((entry) => !unreachable.includes(entry)).sort());
  });
});

describe('real answers of every Cloud operation and documented status match the served document', () => {
  let check: ReturnType<typeof responseChecker>;
  let cloud: RunningCloud;
  let failCard = false;
  const api = (path: string) => `/api/v1${path}`;
  const send = async (method: string, path: string, options: Parameters<typeof exchange>[3] = {}, url = cloud.url) => {
    const answer = await exchange(url, method, path, options);
    check.check(answer);
    return answer;
  };

  /** A second Cloud with signups and plan room left, for the tests after the first. */
  let second: RunningCloud;
  const fresh = {
    url: () => second.url,
    send: ((method, path, options) => send(method, path, options, second.url)) as Send,
  };

  before(async () => {
    second = await startTestCloud();
    cloud = await startTestCloud({
      env: { CLOUD_SIGNUP_RATE_LIMIT: '4,1000', CLOUD_CHECKOUT_BASE_URL: 'https://pay.example.com' },
      deps: {
        card: {
          async createCheckout({ subscriptionId }) {
            if (failCard) throw new Error('processor down');
            return { url: `https://checkout.processor.example/c/${subscriptionId}` };
          },
        },
      },
    });
    check = responseChecker(await dereferenced(await (await fetch(`${cloud.url}/api/v1/openapi.json`)).json()));
  });
  after(() => Promise.all([cloud.stop(), second.stop()]));

  it('every keyed and public route: success, refusals, oversized headers, plan limit and rate limit', async () => {
    const signup = (body: string) => send('POST', api('/signup'), { body });
    const first = await signup(`{"email":"a@example.com","shop_name":"Shop A","btc_xpub":"${BIP84_ZPUB}"}`);
    assert.equal(first.status, 201, first.body);
    const key = { 'X-Service-Api-Key': first.json().api_key };
    assert.equal((await signup('{"email":"nope","shop_name":"Shop B"}')).status, 400);
    assert.equal((await signup(`{"email":"a@example.com","shop_name":"Shop A","btc_xpub":"${BIP84_ZPUB}"}`)).status, 409);
    assert.equal((await send('POST', api(`/signup?${OVERLONG_ID}`), { body: '{}' })).status, 431);
    assert.equal((await signup('{}')).status, 400);
    assert.equal((await signup('{}')).status, 429);

    for (const path of ['/me', '/invoices', '/plans', '/health', '/openapi.json', '/llms.txt']) {
      assert.equal((await send('GET', api(path), { headers: key })).status, 200, path);
      assert.equal((await send('GET', api(`${path}?%ff`), { headers: key })).status, 400, path);
      assert.equal((await send('GET', api(`${path}?${OVERLONG_ID}`), { headers: key })).status, 431, path);
    }
    for (const path of ['/me', '/invoices']) assert.equal((await send('GET', api(path))).status, 401, path);
    await exerciseInvoiceList(cloud.url, api('/invoices'), key, cloud.database.db as unknown as Kysely<CoreTables>, first.json().merchant_id, send);

    assert.equal((await send('POST', api('/webhook'), { headers: key, body: '{"webhook_url":"https://hooks.example.com/w"}' })).status, 200);
    assert.equal((await send('POST', api('/webhook'), { headers: key, body: '{"webhook_url":"http://hooks.example.com/w"}' })).status, 400);
    assert.equal((await send('POST', api('/webhook'), { body: '{}' })).status, 401);
    assert.equal((await send('POST', api(`/webhook?${OVERLONG_ID}`), { headers: key, body: '{}' })).status, 431);

    // Disconnecting needs no wallet; connecting is exercised against a real relay and wallet in test/cloud/cloud-lightning.test.ts.
    assert.equal((await send('POST', api('/lightning'), { headers: key, body: '{"nwc_url":null}' })).status, 200);
    assert.equal((await send('POST', api('/lightning'), { headers: key, body: '{"nwc_url":"lightning:nope"}' })).json().error.code, 'invalid_lightning_connection');
    assert.equal((await send('POST', api('/lightning'), { body: '{"nwc_url":null}' })).status, 401);
    assert.equal((await send('POST', api(`/lightning?${OVERLONG_ID}`), { headers: key, body: '{}' })).status, 431);

    const billing = (body: string) => send('POST', api('/billing/checkout'), { headers: key, body });
    assert.equal((await billing('{"plan":"pro","method":"card"}')).status, 200);
    assert.equal((await billing('{"plan":"gold"}')).status, 400);
    assert.equal((await billing('{"plan":"pro","method":"crypto"}')).status, 409);
    failCard = true;
    assert.equal((await billing('{"plan":"pro","method":"card"}')).status, 502);
    assert.equal((await send('POST', api('/billing/checkout'), { body: '{}' })).status, 401);
    assert.equal((await send('POST', api(`/billing/checkout?${OVERLONG_ID}`), { headers: key, body: '{}' })).status, 431);

    const create = (body = '{"chain":"btc","amount_sats":1000}') => send('POST', api('/invoice'), { headers: key, body });
    const created = await create();
    assert.equal(created.status, 201, created.body);
    const id = created.json().invoice_id;
    assert.equal((await create('{"chain":"base","amount_usd":1}')).status, 400);
    assert.equal((await send('POST', api('/invoice'), { body: '{}' })).status, 401);
    assert.equal((await send('POST', api(`/invoice?${OVERLONG_ID}`), { headers: key, body: '{}' })).status, 431);
    for (const path of ['/invoice', '/checkout']) {
      assert.equal((await send('GET', api(`${path}/${id}`), { headers: key })).status, 200, path);
      assert.equal((await send('GET', api(`${path}/missing`), { headers: key })).status, 404, path);
      assert.equal((await send('GET', api(`${path}/%ff`), { headers: key })).status, 400, path);
      assert.equal((await send('GET', api(`${path}/${OVERLONG_ID}`), { headers: key })).status, 431, path);
    }
    assert.equal((await send('GET', api(`/invoice/${id}`))).status, 401);

    // Free plan: 50 invoices a month, then 402; the per-key window (60 a minute) then answers 429.
    const statuses: number[] = [];
    for (let i = 0; i < 60; i++) statuses.push((await create()).status);
    assert.equal(statuses.filter((status) => status === 201).length, 49, 'one invoice was made above');
    assert.ok(statuses.slice(49).every((status) => status === 402 || status === 429), String(statuses));
    assert.ok(statuses.includes(402) && statuses.includes(429), String(statuses));
  });

  it('scoped keys: issuing them, and 403 insufficient_scope wherever a scope falls short', async () => {
    const send = fresh.send;
    const merchant = await signupMerchant(fresh.url(), { btc_xpub: BIP84_ZPUB });
    const full = { 'X-Service-Api-Key': merchant.api_key };
    const issue = (body: string, headers = full) => send('POST', api('/keys'), { headers, body });
    const reader = await issue('{"label":"reader","scopes":["invoices:read"]}');
    assert.equal(reader.status, 201, reader.body);
    const writer = await issue('{"label":"writer","scopes":["invoices:write"]}');
    assert.equal(writer.status, 201, writer.body);
    assert.equal((await issue('{"label":"x","scopes":["invoices:delete"]}')).json().error.code, 'invalid_key_request');
    assert.equal((await send('POST', api('/keys?%ff'), { headers: full, body: '{}' })).json().error.code, 'bad_body');
    assert.equal((await send('POST', api('/keys'), { body: '{"label":"x"}' })).status, 401);
    assert.equal((await send('POST', api(`/keys?${OVERLONG_ID}`), { headers: full, body: '{}' })).status, 431);
    const readKey = { 'X-Service-Api-Key': reader.json().api_key };
    const writeKey = { 'X-Service-Api-Key': writer.json().api_key };
    const created = await send('POST', api('/invoice'), { headers: writeKey, body: '{"chain":"btc","amount_sats":1000}' });
    assert.equal(created.status, 201, created.body);
    const refusals: Array<[string, string, Record<string, string>, string?]> = [
      ['POST', '/keys', readKey, '{"label":"escalate"}'],
      ['GET', '/me', readKey],
      ['GET', '/invoices', writeKey],
      ['GET', `/invoice/${created.json().invoice_id}`, writeKey],
      ['POST', '/invoice', readKey, '{"chain":"btc","amount_sats":1000}'],
      ['POST', '/webhook', readKey, '{"webhook_url":"https://hooks.example.com/w"}'],
      ['POST', '/lightning', readKey, '{"nwc_url":null}'],
      ['POST', '/billing/checkout', readKey, '{"plan":"pro","method":"card"}'],
    ];
    for (const [method, path, headers, body] of refusals) {
      assert.equal((await send(method, api(path), { headers, body })).json().error.code, 'insufficient_scope', `${method} ${path}`);
    }
  });

  it('the live checkout view: its first event, and each refusal', async () => {
    const send = fresh.send;
    const merchant = await signupMerchant(fresh.url(), { btc_xpub: BIP84_ZPUB });
    const created = await send('POST', api('/invoice'), { headers: { 'X-Service-Api-Key': merchant.api_key }, body: '{"chain":"btc","amount_sats":1000}' });
    const id = created.json().invoice_id;
    const stream = await firstEvent(fresh.url(), api(`/checkout/${id}/events`));
    check.check(stream);
    assert.equal(stream.event, 'view');
    assert.equal(JSON.parse(stream.data).invoice_id, id);
    for (const [path, status] of [['/checkout/missing/events', 404], ['/checkout/%ff/events', 400], [`/checkout/${OVERLONG_ID}/events`, 431]] as const) {
      assert.equal((await send('GET', api(path))).status, status, path.slice(0, 40));
    }
  });

  it('a client over its checkout stream cap: 429 too_many_streams with Retry-After', async () => {
    const capped = await startTestCloud({ env: { CHECKOUT_STREAMS_PER_CLIENT: '1' } });
    try {
      const merchant = await signupMerchant(capped.url, { btc_xpub: BIP84_ZPUB });
      const created = await send('POST', api('/invoice'), { headers: { 'X-Service-Api-Key': merchant.api_key }, body: '{"chain":"btc","amount_sats":1000}' }, capped.url);
      const path = api(`/checkout/${created.json().invoice_id}/events`);
      await overStreamCap(capped.url, path, () => send('GET', path, {}, capped.url));
    } finally {
      await capped.stop();
    }
  });

  it("OAuth for /api/v1/mcp, and its metadata's 404 on a Cloud that cannot tell its own URL", async () => {
    const merchant = await signupMerchant(fresh.url(), { btc_xpub: BIP84_ZPUB });
    await exerciseOAuth(fresh.url(), api('/mcp'), merchant.api_key, fresh.send);
    // Neither PUBLIC_URL nor a loopback address: OAuth is off.
    const unnamed = await startTestCloud({ env: { HOST: '0.0.0.0' } });
    try {
      const url = `http://127.0.0.1:${new URL(unnamed.url).port}`;
      assert.equal((await send('GET', '/.well-known/oauth-protected-resource/api/v1/mcp', {}, url)).json().error.code, 'not_found');
    } finally {
      await unnamed.stop();
    }
  });

  it('a Cloud whose database fails: 500 create_failed and lookup_failed', async () => {
    const database = await openCoreDatabase(tempSqliteUrl(), defaultChains, { logger: silentLogger });
    const failing = await startTestCloud({ env: { DATABASE_URL: 'sqlite::memory:' }, deps: { database } });
    try {
      await database.close();
      const key = { 'X-Service-Api-Key': 'sk_any' };
      assert.equal((await send('POST', api('/invoice'), { headers: key, body: '{"chain":"btc","amount_sats":1}' }, failing.url)).json().error.code, 'create_failed');
      assert.equal((await send('GET', api('/invoice/any'), { headers: key }, failing.url)).json().error.code, 'lookup_failed');
      assert.equal((await send('GET', api('/invoices'), { headers: key }, failing.url)).json().error.code, 'lookup_failed');
      assert.equal((await send('GET', api('/x402/any'), {}, failing.url)).json().error.code, 'lookup_failed');
    } finally {
      await failing.stop();
    }
  });

  it('a Cloud whose PostgreSQL is down: 503 database_unavailable with Retry-After on every route that needs it', { skip: privatePostgresSkip }, async () => {
    const server = await startPrivatePostgres();
    const down = await startTestCloud({ env: { DATABASE_URL: server.url } });
    try {
      await server.stop();
      const key = { 'X-Service-Api-Key': 'sk_any' };
      const requests: Array<[string, string, Parameters<typeof exchange>[3]]> = [
        ['POST', api('/signup'), { body: `{"email":"down@example.com","shop_name":"Shop","btc_xpub":"${BIP84_ZPUB}"}` }],
        ['GET', api('/me'), { headers: key }],
        ['GET', api('/invoices'), { headers: key }],
        ['POST', api('/webhook'), { headers: key, body: '{"webhook_url":"https://example.com/hook"}' }],
        ['POST', api('/lightning'), { headers: key, body: '{"nwc_url":null}' }],
        ['POST', api('/billing/checkout'), { headers: key, body: '{"plan":"pro","method":"crypto"}' }],
        ['POST', api('/invoice'), { headers: key, body: '{"chain":"btc","amount_sats":1}' }],
        ['GET', api('/invoice/any'), { headers: key }],
        ['GET', api('/checkout/any'), {}],
        ['GET', api('/checkout/any/events'), {}],
        ['GET', api('/x402/any'), {}],
        ['POST', api('/keys'), { headers: key, body: '{"label":"down"}' }],
        ['POST', api('/mcp'), { headers: { ...key, ...MCP_ACCEPT }, body: INITIALIZE }],
        ['GET', api('/mcp'), { headers: { ...key, ...MCP_ACCEPT, 'mcp-session-id': 'any' } }],
        ['DELETE', api('/mcp'), { headers: { ...key, 'mcp-session-id': 'any' } }],
      ];
      for (const [method, path, options] of requests) {
        const answer = await send(method, path, options, down.url);
        assert.equal(answer.json().error.code, 'database_unavailable', `${method} ${path}`);
        assert.equal(answer.headers.get('retry-after'), '5', `${method} ${path}`);
      }
    } finally {
      await down.stop();
      await server.destroy();
    }
  });

  it('a fixed-address merchant whose nonces of an amount are all held: 503 capacity', async () => {
    const fixed = await startTestCloud({ env: { BASE_RPC_URL: 'http://127.0.0.1:9', BASE_MIN_SOURCES: '1' } });
    try {
      const merchant = await signupMerchant(fixed.url, { base_address: FIXED_ADDRESS });
      // The 9,999 nonces of $2.00 (four nonce digits) held by earlier invoices, as the lease table keeps them.
      const leases = Array.from({ length: 9_999 }, (_, i) => ({
        address: FIXED_ADDRESS,
        base_units: '2000000',
        nonce: i + 1,
        invoice_id: `inv_held_${i + 1}`,
        reserved_until: Date.now() + 3_600_000,
      }));
      for (let i = 0; i < leases.length; i += 500) await fixed.database.db.insertInto('base_nonce_leases').values(leases.slice(i, i + 500)).execute();
      const key = { 'X-Service-Api-Key': merchant.api_key };
      const exhausted = await send('POST', api('/invoice'), { headers: key, body: '{"chain":"base","amount_usd":2}' }, fixed.url);
      assert.equal(exhausted.json().error.code, 'capacity', exhausted.body);
    } finally {
      await fixed.stop();
    }
  });

  it('the MCP endpoint: a session and every refusal', async () => {
    const small = await startTestCloud({ env: { MCP_MAX_SESSIONS: '1', MCP_INITIALIZE_RATE_LIMIT: '3' } });
    try {
      const merchant = await signupMerchant(small.url, { btc_xpub: BIP84_ZPUB });
      await exerciseMcp(small.url, api('/mcp'), { 'X-Service-Api-Key': merchant.api_key }, (method, path, options) => send(method, path, options, small.url), (answer) => check.check(answer));
    } finally {
      await small.stop();
    }
  });

  it('x402: every answer of an invoice\'s x402 URL, one node standing in for two chains (the built-in settler, a facilitator)', async () => {
    const stage = await x402Stage();
    const paying = await startTestCloud({ env: { ...stage.env, CLOUD_SIGNUP_RATE_LIMIT: 'off', CLOUD_INVOICE_RATE_LIMIT: 'off' } });
    try {
      const merchant = await signupMerchant(paying.url, { receive_methods: [{ chain: 'base', xpub: ACCOUNT_XPUB }, { chain: 'eth', xpub: ACCOUNT_XPUB }] });
      const key = { 'X-Service-Api-Key': merchant.api_key };
      const create = async (body: Record<string, unknown>) => (await send('POST', api('/invoice'), { headers: key, body: JSON.stringify(body) }, paying.url)).json();
      await exerciseX402(stage, '/api/v1', create, (method, path, options) => send(method, path, options, paying.url), OVERLONG_ID);
    } finally {
      await paying.stop();
      await stage.close();
    }
  });

  it('covers every documented Cloud status', () => {
    // The OAuth addresses both editions share are counted in the listener's coverage.
    const cloudOnly = (entry: string) => entry.includes('/api/v1');
    assert.deepEqual([...check.covered].filter(cloudOnly).sort(), check.documented(cloudOnly).sort());
  });
});
