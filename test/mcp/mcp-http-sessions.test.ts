import assert from 'node:assert/strict';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/server';
import { ServiceError } from '../../core/errors.ts';
import { silentLogger } from '../../core/log.ts';
import { createMcpSessions } from '../../mcp/http-sessions.ts';

const IDLE_MS = 60_000;

async function bodyOf(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
}

/** An HTTP server answering every request through `sessions`, refusals with their code as JSON. */
function serveSessions(sessions: ReturnType<typeof createMcpSessions>) {
  return createServer(async (req, res) => {
    const body = req.method === 'POST' ? await bodyOf(req) : undefined;
    try {
      const transport = await sessions.transportFor({
        method: req.method as 'GET' | 'POST' | 'DELETE',
        sessionId: req.headers['mcp-session-id'] as string | undefined,
        owner: String(req.headers['x-owner']),
        body,
        open: () => new McpServer({ name: 'sessions-test', version: '1.0.0' }),
      });
      await transport.handleRequest(req, res, body);
    } catch (error) {
      const known = error instanceof ServiceError ? error : null;
      const status = known ? ({ too_many_sessions: 429, capacity: 503, not_found: 404 } as Record<string, number>)[known.code] ?? 400 : 500;
      res.writeHead(status, known?.extra.retryAfterS === undefined ? {} : { 'retry-after': String(known.extra.retryAfterS) }).end(JSON.stringify({ code: known?.code }));
    }
  });
}

describe('MCP HTTP sessions: bounded, closed when idle', () => {
  let now = 0;
  // Each client opens its session's event stream (GET) on its own after connecting; tests wait for it.
  let streams = 0;
  let streamOpened: () => void = () => undefined;
  const streamsOpened = async (count: number) => {
    while (streams < count) await new Promise<void>((resolve) => (streamOpened = resolve));
  };
  const sessions = createMcpSessions({ maxSessions: 2, maxSessionsPerOwner: 10, idleMs: IDLE_MS, logger: silentLogger, now: () => now });
  const server = createServer(async (req, res) => {
    const body = req.method === 'POST' ? await bodyOf(req) : undefined;
    if (req.method === 'GET') {
      streams++;
      streamOpened();
    }
    try {
      const transport = await sessions.transportFor({
        method: req.method as 'GET' | 'POST' | 'DELETE',
        sessionId: req.headers['mcp-session-id'] as string | undefined,
        owner: String(req.headers['x-owner']),
        body,
        open: () => new McpServer({ name: 'sessions-test', version: '1.0.0' }),
      });
      await transport.handleRequest(req, res, body);
    } catch (error) {
      res.writeHead(error instanceof ServiceError ? { not_found: 404, capacity: 503 }[error.code as string] ?? 400 : 500).end((error as Error).message);
    }
  });
  let url: URL;
  const clients: Client[] = [];
  const connect = async (owner: string) => {
    const client = new Client({ name: 't', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { 'x-owner': owner } } }));
    clients.push(client);
    return client;
  };

  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`);
  });
  after(async () => {
    await sessions.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  test('refuses a session beyond the bound, and frees the idle one for a new client', async () => {
    const idle = await connect('a');
    const active = await connect('a');
    await streamsOpened(2);
    assert.equal(sessions.size, 2);
    await assert.rejects(connect('a'), /503|Too many open MCP sessions/);

    now += IDLE_MS;
    await active.ping();
    // The first session has had no request for IDLE_MS: the next initialize closes it and takes its place.
    await connect('b');
    assert.equal(sessions.size, 2);
    await assert.rejects(idle.ping(), /404|No such MCP session/);
    await active.ping();
  });
});

describe('MCP HTTP sessions: bounded per owner, so one owner cannot take the others\' sessions', () => {
  let now = 1_000_000;
  const GLOBAL = 10;
  const PER_OWNER = 3;
  const sessions = createMcpSessions({ maxSessions: GLOBAL, maxSessionsPerOwner: PER_OWNER, idleMs: IDLE_MS, logger: silentLogger, now: () => now });
  const initialize = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
  const server = serveSessions(sessions);
  let url: string;
  const open = (owner: string) =>
    fetch(url, { method: 'POST', headers: { 'x-owner': owner, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: initialize }).then(async (response) => ({
      status: response.status,
      retryAfter: response.headers.get('retry-after'),
      sessionId: response.headers.get('mcp-session-id'),
      body: await response.text(),
    }));
  const end = (owner: string, sessionId: string) => fetch(url, { method: 'DELETE', headers: { 'x-owner': owner, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' } });

  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  });
  after(async () => {
    await sessions.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  test('40 concurrent initializes of one owner: exactly its bound open, the rest get 429 too_many_sessions with Retry-After; another owner still opens', async () => {
    const answers = await Promise.all(Array.from({ length: 40 }, () => open('a')));
    const opened = answers.filter((answer) => answer.status === 200);
    const refused = answers.filter((answer) => answer.status === 429);
    assert.equal(opened.length, PER_OWNER, JSON.stringify(answers.map((answer) => answer.status)));
    assert.equal(refused.length, 40 - PER_OWNER);
    for (const answer of refused) {
      assert.equal(JSON.parse(answer.body).code, 'too_many_sessions');
      // The owner's sessions free up when the least recently used idles out: IDLE_MS from now.
      assert.equal(answer.retryAfter, String(IDLE_MS / 1000));
    }
    assert.equal(sessions.size, PER_OWNER);

    const other = await open('b');
    assert.equal(other.status, 200, other.body);
    assert.equal(sessions.size, PER_OWNER + 1);

    // Ending one of its sessions gives the owner one back.
    assert.equal((await end('a', opened[0]!.sessionId!)).status, 200);
    assert.equal((await open('a')).status, 200);
    assert.equal((await open('a')).status, 429);
  });

  test('the global bound still holds over all owners together (503 capacity)', async () => {
    // a holds 3, b holds 1: six more owners of one session each reach the bound of 10.
    for (let owner = 0; owner < GLOBAL - PER_OWNER - 1; owner++) assert.equal((await open(`o${owner}`)).status, 200);
    assert.equal(sessions.size, GLOBAL);
    const beyond = await open('late');
    assert.equal(beyond.status, 503);
    assert.equal(JSON.parse(beyond.body).code, 'capacity');
  });
});

describe('MCP HTTP sessions: idle event streams kept alive by one timer', () => {
  const KEEP_ALIVE_MS = 100;
  const sessions = createMcpSessions({ maxSessions: 10, maxSessionsPerOwner: 10, idleMs: IDLE_MS, keepAliveMs: KEEP_ALIVE_MS, logger: silentLogger });
  const server = serveSessions(sessions);
  let url: string;
  const version = '2025-06-18';
  const post = (body: unknown, sessionId?: string) =>
    fetch(url, {
      method: 'POST',
      headers: { 'x-owner': 'a', 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': version, ...(sessionId ? { 'mcp-session-id': sessionId } : {}) },
      body: JSON.stringify(body),
    });
  /** A session (initialized) and its standing event stream, read as text as it arrives. */
  async function openStream() {
    const initialized = await post({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 't', version: '1' } } });
    await initialized.text();
    const sessionId = initialized.headers.get('mcp-session-id')!;
    await (await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, sessionId)).text();
    const aborted = new AbortController();
    const stream = await fetch(url, { headers: { 'x-owner': 'a', accept: 'text/event-stream', 'mcp-session-id': sessionId, 'mcp-protocol-version': version }, signal: aborted.signal });
    assert.equal(stream.status, 200);
    assert.match(stream.headers.get('content-type')!, /^text\/event-stream/);
    let text = '';
    const reading = (async () => {
      const decoder = new TextDecoder();
      try {
        for await (const chunk of stream.body!) text += decoder.decode(chunk as Uint8Array, { stream: true });
      } catch {
        // aborted by the test
      }
    })();
    return { read: () => text, stop: async () => (aborted.abort(), await reading) };
  }
  const comments = (text: string) => text.split(': keepalive\n\n').length - 1;

  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  });
  after(async () => {
    await sessions.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  test('every open stream gets a keep-alive comment each interval, and a closed one stops counting', async () => {
    const first = await openStream();
    const second = await openStream();
    while (comments(first.read()) < 3 || comments(second.read()) < 3) await new Promise((resolve) => setTimeout(resolve, KEEP_ALIVE_MS / 2));
    // Comments only, between events: an SSE client sees nothing.
    assert.match(first.read(), /^(: keepalive\n\n)+$/);
    assert.equal(sessions.openStreams, 2);
    await first.stop();
    while (sessions.openStreams > 1) await new Promise((resolve) => setTimeout(resolve, 10));
    const before = comments(second.read());
    while (comments(second.read()) < before + 2) await new Promise((resolve) => setTimeout(resolve, KEEP_ALIVE_MS / 2));
    await second.stop();
    while (sessions.openStreams > 0) await new Promise((resolve) => setTimeout(resolve, 10));
  });
});
