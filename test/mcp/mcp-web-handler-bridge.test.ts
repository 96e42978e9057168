import assert from 'node:assert/strict';
import { createServer, get, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { answerWithWebHandler } from '../../mcp/web-handler-bridge.ts';

/** An event stream the test feeds by hand. */
function feed() {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c) });
  const encode = (text: string) => new TextEncoder().encode(text);
  return { body, push: (text: string) => controller.enqueue(encode(text)), close: () => controller.close() };
}

describe('answerWithWebHandler (the MCP endpoint to the SDK web-standard transport)', () => {
  let server: Server;
  let port: number;
  let handler: (request: Request) => Promise<Response>;

  before(async () => {
    server = createServer((req, res) => void answerWithWebHandler(req, res, (request) => handler(request)));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  test('a POST event stream: headers leave with the first event, the last event with the end of the stream', async () => {
    const stream = feed();
    let seen: Request | undefined;
    handler = async (request) => {
      seen = request;
      return new Response(stream.body, { status: 200, headers: { 'content-type': 'text/event-stream', 'mcp-session-id': 's1' } });
    };
    const socket = connect(port, '127.0.0.1');
    const reads: string[] = [];
    socket.on('data', (chunk) => reads.push(String(chunk)));
    socket.write('POST /mcp?x=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Probe: yes\r\nConnection: close\r\n\r\n');
    while (!seen) await new Promise((resolve) => setImmediate(resolve));
    assert.equal(seen.method, 'POST');
    assert.equal(new URL(seen.url).pathname + new URL(seen.url).search, '/mcp?x=1');
    assert.equal(seen.headers.get('x-probe'), 'yes');
    // Nothing, not even the headers, before the first event: the bridge is reading the stream by now,
    // and a few turns of the event loop let anything already written reach the socket.
    while (!stream.body.locked) await new Promise((resolve) => setImmediate(resolve));
    for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(reads, []);
    stream.push('event: message\ndata: {"progress":1}\n\n');
    while (reads.length < 1) await new Promise((resolve) => setImmediate(resolve));
    assert.match(reads[0]!, /^HTTP\/1\.1 200 OK\r\n[\s\S]*mcp-session-id: s1\r\n[\s\S]*\r\n\r\n[0-9a-f]+\r\nevent: message\ndata: \{"progress":1\}\n\n\r\n$/);
    stream.push('event: message\ndata: {"result":{}}\n\n');
    stream.close();
    await new Promise((resolve) => socket.once('end', resolve));
    assert.equal(reads.length, 2);
    assert.match(reads[1]!, /^[0-9a-f]+\r\nevent: message\ndata: \{"result":\{\}\}\n\n\r\n0\r\n\r\n$/);
  });

  test("a GET (the session's standing stream) sends its headers at once, before any event", async () => {
    const stream = feed();
    handler = async () => new Response(stream.body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
    const response = await new Promise<import('node:http').IncomingMessage>((resolve) => get(`http://127.0.0.1:${port}/mcp`, resolve));
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['content-type'], 'text/event-stream');
    let text = '';
    response.on('data', (chunk) => (text += chunk));
    const ended = new Promise((resolve) => response.on('end', resolve));
    stream.push('data: 1\n\n');
    stream.close();
    await ended;
    assert.equal(text, 'data: 1\n\n');
  });

  test('a handler that throws answers 500; a body-less answer keeps its status', async () => {
    const status = async () => {
      const response = await new Promise<import('node:http').IncomingMessage>((resolve) => get(`http://127.0.0.1:${port}/mcp`, resolve));
      response.resume();
      return response.statusCode;
    };
    handler = async () => {
      throw new Error('boom');
    };
    assert.equal(await status(), 500);
    handler = async () => new Response(null, { status: 202 });
    assert.equal(await status(), 202);
  });
});
