import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AnswerTooLarge, AnswerTooSlow, readBoundedBytes, readBoundedJson } from '../../../core/net/bounded-body.ts';
import { HUGE_BYTES, startFloodServer, type Flood } from '../../helpers/flood.ts';

const CAP = 1024 * 1024;
// Loopback socket buffers let a few MB through before the server sees the client stop reading.
const SLACK = 16 * 1024 * 1024;

async function read(url: string, timeoutMs: number) {
  const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  return readBoundedBytes(res, { source: 'http://127.0.0.1', what: 'GET /', maxBytes: CAP, timeoutMs });
}

for (const flood of ['huge', 'huge-declared', 'endless'] as Flood[]) {
  test(`a ${flood} body stops at the cap: the error names the source and the cap, the server is cut off, memory stays flat`, async () => {
    const server = await startFloodServer();
    server.flood = flood;
    try {
      const heapBefore = process.memoryUsage().heapUsed;
      const error = await read(server.url, 10_000).catch((e: unknown) => e);
      assert.ok(error instanceof AnswerTooLarge, String(error));
      assert.equal(error.message, `http://127.0.0.1 answered more than ${CAP} bytes to GET /; reading stopped at the cap`);
      assert.ok(process.memoryUsage().heapUsed - heapBefore < 32 * 1024 * 1024, 'nothing near the body size was kept');
      // The connection is dropped: the server stops writing long before the 100 MB (or never, endless).
      await server.hungUp();
      console.log(`${flood}: the server wrote ${server.sentBytes} bytes before the client hung up (cap ${CAP})`);
      assert.ok(server.sentBytes < CAP + SLACK, `server sent ${server.sentBytes} bytes`);
      assert.ok(server.sentBytes < HUGE_BYTES / 4);
    } finally {
      await server.close();
    }
  });
}

test('headers then silence: the read fails at the time cap, naming the source and the cap', async () => {
  const server = await startFloodServer();
  server.flood = 'silent';
  try {
    const started = Date.now();
    const error = await read(server.url, 500).catch((e: unknown) => e);
    assert.ok(error instanceof AnswerTooSlow, String(error));
    assert.equal(error.message, 'http://127.0.0.1 did not complete its answer to GET / within 0.5 s');
    assert.ok(Date.now() - started < 3_000, `failed after ${Date.now() - started} ms`);
  } finally {
    await server.close();
  }
});

test('a fetch that ignores its signal still cannot hold the read past the time cap', async () => {
  const server = await startFloodServer();
  server.flood = 'silent';
  try {
    const res = await fetch(server.url);
    const started = Date.now();
    await assert.rejects(readBoundedBytes(res, { source: 'http://127.0.0.1', what: 'GET /', maxBytes: CAP, timeoutMs: 300 }), AnswerTooSlow);
    assert.ok(Date.now() - started < 2_000);
  } finally {
    await server.close();
  }
});

test('an answer within its cap is read whole, up to the last byte the cap allows', async () => {
  const body = JSON.stringify({ result: 'x'.repeat(CAP - 20) });
  const server = await startFloodServer((_req, res) => res.writeHead(200).end(body));
  server.flood = null;
  try {
    const res = await fetch(server.url);
    assert.deepEqual(await readBoundedJson(res, { source: 'http://127.0.0.1', what: 'GET /', maxBytes: Buffer.byteLength(body), timeoutMs: 5_000 }), JSON.parse(body));
  } finally {
    await server.close();
  }
});
