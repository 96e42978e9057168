import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { keepAliveFetch } from '../../mcp/keep-alive-fetch.ts';

describe('keepAliveFetch (the stdio MCP server to listener client)', () => {
  let server: Server;
  let base: string;
  const sockets = new Set<unknown>();
  const seen: { method: string; url: string; body: string; contentType: string | undefined }[] = [];

  before(async () => {
    server = createServer((req, res) => {
      sockets.add(req.socket);
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        seen.push({ method: req.method!, url: req.url!, body, contentType: req.headers['content-type'] });
        if (req.url === '/moved') return void res.writeHead(307, { location: '/echo' }).end();
        if (req.url === '/empty') return void res.writeHead(204).end();
        if (req.url === '/slow') return; // never answers
        res.writeHead(req.url === '/missing' ? 404 : 201, { 'content-type': 'application/json', 'retry-after': '7' }).end(JSON.stringify({ got: body, café: 'é' }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  test('sends method, headers and body, and answers status, headers and UTF-8 text like fetch, on one kept-alive connection', async () => {
    const fetch = keepAliveFetch();
    sockets.clear();
    for (const amount of [1, 2]) {
      const response = await fetch(`${base}/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ amount }) });
      assert.equal(response.status, 201);
      assert.equal(response.ok, true);
      assert.equal(response.headers.get('retry-after'), '7');
      assert.deepEqual(JSON.parse(await response.text()), { got: `{"amount":${amount}}`, café: 'é' });
    }
    assert.deepEqual(seen.slice(-2).map(({ method, contentType }) => [method, contentType]), [['POST', 'application/json'], ['POST', 'application/json']]);
    assert.equal(sockets.size, 1);
    const missing = await fetch(`${base}/missing`);
    assert.equal(missing.status, 404);
    assert.equal(missing.ok, false);
    assert.equal((await fetch(`${base}/empty`)).status, 204);
  });

  test('a redirect is handed whole to the fallback fetch, which follows it', async () => {
    const handed: string[] = [];
    const fetch = keepAliveFetch((input, init) => {
      handed.push(String(input));
      return globalThis.fetch(input, init);
    });
    const response = await fetch(`${base}/moved`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
    assert.deepEqual(handed, [`${base}/moved`]);
    assert.equal(response.status, 201);
    assert.deepEqual(JSON.parse(await response.text()), { got: '{"a":1}', café: 'é' });
  });

  test('fails as fetch does: the signal reason on timeout, a TypeError with the socket code when nobody listens', async () => {
    const fetch = keepAliveFetch();
    await assert.rejects(fetch(`${base}/slow`, { signal: AbortSignal.timeout(50) }), (error) => error instanceof DOMException && error.name === 'TimeoutError');
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    await assert.rejects(fetch(`http://127.0.0.1:${port}/echo`), (error) => error instanceof TypeError && (error.cause as { code?: string }).code === 'ECONNREFUSED');
  });
});
