import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { RunningCloud } from '../../cloud/cloud-app.ts';
import type { RunningListener } from '../../listener/app.ts';
import { signupMerchant, startTestCloud } from '../helpers/cloud.ts';
import { BIP84_ZPUB, startTestListener } from '../helpers/listener.ts';
import { connectWithOAuth } from '../helpers/oauth.ts';

/**
 * MCP sessions against running servers: each owner (a Cloud merchant, a listener credential) holds
 * at most MCP_MAX_SESSIONS_PER_OWNER and starts at most MCP_INITIALIZE_RATE_LIMIT a minute, per
 * owner and per client address; past either a 429 too_many_sessions with Retry-After, while every
 * other owner goes on opening and using sessions. MCP_MAX_SESSIONS still bounds them all.
 */

const INITIALIZE = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bounds', version: '1' } } });

/** One initialize as a client sends it, answered in full. */
async function initialize(url: string, headers: Record<string, string>) {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body: INITIALIZE });
  const text = await response.text();
  const code = response.ok ? undefined : ((JSON.parse(text) as { error: { code: string } }).error.code);
  return { status: response.status, code, retryAfter: response.headers.get('retry-after'), sessionId: response.headers.get('mcp-session-id') };
}

const statusCounts = (answers: { status: number }[]) => answers.reduce<Record<number, number>>((counts, { status }) => ({ ...counts, [status]: (counts[status] ?? 0) + 1 }), {});

/** The SDK's client with a session of its own. */
async function connect(url: string, headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'bounds', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

function assertRefusedForOwner(answer: Awaited<ReturnType<typeof initialize>>, where: string) {
  assert.equal(answer.status, 429, where);
  assert.equal(answer.code, 'too_many_sessions', where);
  assert.ok(Number(answer.retryAfter) >= 1, `${where}: Retry-After ${answer.retryAfter}`);
}

describe('MCP sessions on Cloud: at most MCP_MAX_SESSIONS_PER_OWNER per merchant', () => {
  const GLOBAL = 10;
  const PER_MERCHANT = 4;
  let cloud: RunningCloud;
  const clients: Client[] = [];
  after(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await cloud?.stop();
  });

  test('one merchant fills its bound and gets 429 too_many_sessions; another still opens and works; the global bound stays', async () => {
    // No reserve for paid plans: these Free merchants meet the per-owner and instance bounds only
    // (the plans' shares are test/cloud/cloud-fair-shares.test.ts's).
    cloud = await startTestCloud({ env: { MCP_MAX_SESSIONS: String(GLOBAL), MCP_MAX_SESSIONS_PER_OWNER: String(PER_MERCHANT), MCP_INITIALIZE_RATE_LIMIT: 'off', CLOUD_FAIR_SHARE_RESERVE: '0' } });
    const mcpUrl = `${cloud.url}/api/v1/mcp`;
    const keyOf = async () => ({ 'x-service-api-key': (await signupMerchant(cloud.url, { btc_xpub: BIP84_ZPUB })).api_key });
    const [a, b, c, d, e] = [await keyOf(), await keyOf(), await keyOf(), await keyOf(), await keyOf()];

    // Merchant A: its bound, through the SDK's client, then 20 more initializes at once, all refused.
    const ofA: Client[] = [];
    for (let i = 0; i < PER_MERCHANT; i++) ofA.push(await connect(mcpUrl, a));
    clients.push(...ofA);
    const beyond = await Promise.all(Array.from({ length: 20 }, () => initialize(mcpUrl, a)));
    assert.deepEqual(statusCounts(beyond), { 429: 20 });
    for (const answer of beyond) assertRefusedForOwner(answer, 'merchant A past its bound');

    // Merchant B is not affected: it opens a session and uses it; A's sessions all still work.
    const ofB = await connect(mcpUrl, b);
    clients.push(ofB);
    assert.ok((await ofB.listTools()).tools.some((tool) => tool.name === 'list_invoices'));
    await Promise.all(ofA.map((client) => client.ping()));

    // Merchant C races 30 initializes at once: exactly its bound open.
    const raced = await Promise.all(Array.from({ length: 30 }, () => initialize(mcpUrl, c)));
    assert.deepEqual(statusCounts(raced), { 200: PER_MERCHANT, 429: 30 - PER_MERCHANT });

    // 4 + 1 + 4 open: D takes the last one, E meets the instance's bound (503 capacity).
    assert.equal((await initialize(mcpUrl, d)).status, 200);
    const full = await initialize(mcpUrl, e);
    assert.equal(full.status, 503);
    assert.equal(full.code, 'capacity');

    // A ends one of its sessions: the freed place is A's again.
    await (ofA[0]!.transport as StreamableHTTPClientTransport).terminateSession();
    assert.equal((await initialize(mcpUrl, a)).status, 200);
    assertRefusedForOwner(await initialize(mcpUrl, a), 'merchant A at its bound again');
  });
});

describe('MCP session starts on Cloud: MCP_INITIALIZE_RATE_LIMIT per merchant and per address', () => {
  let cloud: RunningCloud;
  after(async () => {
    await cloud?.stop();
  });

  test('a merchant past its rate is refused from any address; another merchant is not; an address past its rate is refused for anyone', async () => {
    const RATE = 5;
    // Five starts a minute per merchant, eight per address.
    cloud = await startTestCloud({ env: { MCP_INITIALIZE_RATE_LIMIT: `${RATE},8`, TRUST_PROXY: 'true' } });
    const mcpUrl = `${cloud.url}/api/v1/mcp`;
    const keyOf = async () => (await signupMerchant(cloud.url, { btc_xpub: BIP84_ZPUB })).api_key;
    const [f, g, h] = [await keyOf(), await keyOf(), await keyOf()];
    const from = (key: string, address: string) => ({ 'x-service-api-key': key, 'x-forwarded-for': address });

    const started = await Promise.all(Array.from({ length: RATE }, () => initialize(mcpUrl, from(f, '198.51.100.1'))));
    assert.deepEqual(statusCounts(started), { 200: RATE });
    const refused = await Promise.all(Array.from({ length: 10 }, () => initialize(mcpUrl, from(f, '198.51.100.1'))));
    assert.deepEqual(statusCounts(refused), { 429: 10 });
    for (const answer of refused) assertRefusedForOwner(answer, 'merchant F past its rate');
    assertRefusedForOwner(await initialize(mcpUrl, from(f, '198.51.100.2')), 'merchant F from a fresh address');

    // Merchant G, from its own address, starts sessions as usual.
    const ofG = await connect(mcpUrl, from(g, '198.51.100.3'));
    assert.ok((await ofG.listTools()).tools.length > 0);
    await ofG.close();
    // F's first address has spent its eight tries (five starts, three refused by F's own window):
    // merchant H is refused there, not from another address.
    assertRefusedForOwner(await initialize(mcpUrl, from(h, '198.51.100.1')), "merchant H from F's spent address");
    assert.equal((await initialize(mcpUrl, from(h, '198.51.100.4'))).status, 200);
  });
});

describe('MCP sessions on the listener: at most MCP_MAX_SESSIONS_PER_OWNER per credential', () => {
  const KEY = 'session-bounds-listener-key-0123456789';
  let listener: RunningListener;
  const clients: Client[] = [];
  after(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await listener?.stop();
  });

  test('the key fills its bound; an OAuth grant (through the SDK client) still opens and works', async () => {
    listener = await startTestListener({ env: { SERVICE_API_KEY: KEY, MCP_MAX_SESSIONS_PER_OWNER: '2', MCP_INITIALIZE_RATE_LIMIT: 'off' } });
    const mcpUrl = `${listener.url}/mcp`;
    const key = { 'x-service-api-key': KEY };
    clients.push(await connect(mcpUrl, key), await connect(mcpUrl, key));
    const beyond = await Promise.all(Array.from({ length: 10 }, () => initialize(mcpUrl, key)));
    assert.deepEqual(statusCounts(beyond), { 429: 10 });
    for (const answer of beyond) assertRefusedForOwner(answer, 'the key past its bound');

    const { client } = await connectWithOAuth(mcpUrl, KEY);
    clients.push(client);
    assert.ok((await client.listTools()).tools.some((tool) => tool.name === 'create_invoice'));
    await Promise.all(clients.map((open) => open.ping()));
  });
});
