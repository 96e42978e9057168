import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_RPC_ANSWER_BYTES } from '../../../core/net/bounded-body.ts';
import { createRpcSource, RpcUnavailableError } from '../../../core/evm/rpc.ts';
import { HUGE_BYTES, startFloodServer, type Flood } from '../../helpers/flood.ts';

// A JSON-RPC source answering 100 MB, a stream without end, or headers then silence: the call fails
// as an unavailable source (the watcher then leaves it out of the pass) within its caps.

// Silence is cut at 0.8 s; a flood gets time enough to reach the size cap first.
const TIMEOUT_MS = 800;
const FLOOD_TIMEOUT_MS = 15_000;
const SLACK = 16 * 1024 * 1024;

for (const flood of ['huge', 'endless', 'silent'] as Flood[]) {
  test(`JSON-RPC over HTTP (${flood}): the call fails within its caps, naming the source`, async () => {
    const server = await startFloodServer();
    server.flood = flood;
    let posts = 0;
    const counting: typeof fetch = (input, init) => (posts++, fetch(input, init));
    const source = createRpcSource(`${server.url}/v2/secret-api-key`, { fetch: counting, sleep: async () => {}, timeoutMs: flood === 'silent' ? TIMEOUT_MS : FLOOD_TIMEOUT_MS, attempts: 2 });
    try {
      const started = Date.now();
      const error = await source.call('eth_getLogs', [{}]).catch((e: unknown) => e);
      assert.ok(error instanceof RpcUnavailableError, String(error));
      assert.doesNotMatch(error.message, /secret-api-key/);
      if (flood === 'silent') {
        assert.match(error.message, new RegExp(`${server.url} did not complete its answer to eth_getLogs within ${TIMEOUT_MS / 1000} s`));
        assert.equal(posts, 2, 'a stalled answer is retried like a timeout');
        assert.ok(Date.now() - started < 2 * TIMEOUT_MS + 2_000, `failed after ${Date.now() - started} ms`);
      } else {
        assert.equal(error.message, `${server.url} answered more than ${MAX_RPC_ANSWER_BYTES} bytes to eth_getLogs; reading stopped at the cap`);
        assert.equal(posts, 1, 'an oversized answer is not asked for again');
        await server.hungUp();
        assert.ok(server.sentBytes < MAX_RPC_ANSWER_BYTES + SLACK && server.sentBytes < HUGE_BYTES / 2, `server sent ${server.sentBytes} bytes`);
      }
    } finally {
      await server.close();
    }
  });
}
