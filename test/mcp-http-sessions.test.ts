import assert from 'node:assert/strict';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ServiceError } from '../core/errors.ts';
import { silentLogger } from '../core/log.ts';
import { createMcpSessions } from '../mcp/http-sessions.ts';

const IDLE_MS = 60_000;

async function bodyOf(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
}

describe('MCP HTTP sessions: bounded, closed when idle', () => {
  let now = 0;
  // Each client opens its session's event stream (GET) on its own after connecting; tests wait for it.
  let streams = 0;
  let streamOpened: () => void = () => undefined;
  const streamsOpened = async (count: number) => {
    while (streams < count) await new Promise<void>((resolve) => (streamOpened = resolve));
  };
  const sessions = createMcpSessions({ maxSessions: 2, idleMs: IDLE_MS, logger: silentLogger, now: () => now });
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
