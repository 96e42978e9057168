import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import { MAX_RPC_ANSWER_BYTES } from '../../../core/net/bounded-body.ts';
import { chainReader, facilitatorSettler } from '../../../core/x402/settlers.ts';
import { MAX_FACILITATOR_ANSWER_BYTES } from '../../../core/x402/facilitator-client.ts';
import { HUGE_BYTES, startFloodServer, type Flood } from '../../helpers/flood.ts';

// A facilitator answering 100 MB, a stream without end, or headers then silence: verify and settle
// fail within their caps (x402-settle.ts then answers settlement_unavailable and sends nothing).

const payload = { x402Version: 2, payload: {}, accepted: {} } as unknown as PaymentPayload;
const requirements = {} as PaymentRequirements;

for (const flood of ['huge', 'endless', 'silent'] as Flood[]) {
  test(`x402 facilitator (${flood}): verify and settle fail within their caps, naming the facilitator`, async () => {
    const server = await startFloodServer();
    server.flood = flood;
    const timeoutMs = flood === 'silent' ? 800 : 15_000;
    const settler = facilitatorSettler(server.url, timeoutMs, fetch);
    try {
      for (const operation of ['verify', 'settle'] as const) {
        const started = Date.now();
        const error = await settler[operation](payload, requirements).catch((e: unknown) => e);
        assert.ok(error instanceof Error);
        if (flood === 'silent') {
          assert.equal(error.message, `${server.url} did not complete its answer to POST /${operation} within 0.8 s`);
          assert.ok(Date.now() - started < timeoutMs + 2_000);
        } else {
          assert.equal(error.message, `${server.url} answered more than ${MAX_FACILITATOR_ANSWER_BYTES} bytes to POST /${operation}; reading stopped at the cap`);
          await server.hungUp();
          assert.ok(server.sentBytes < HUGE_BYTES / 4, `server sent ${server.sentBytes} bytes`);
        }
      }
    } finally {
      await server.close();
    }
  });
}

test('x402 facilitator: an answer within the cap is read as before', async () => {
  const server = await startFloodServer((req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(req.url === '/verify' ? { isValid: true, payer: '0x01' } : { success: true, transaction: '0xab', network: 'eip155:8453' })));
  server.flood = null;
  const settler = facilitatorSettler(`${server.url}/`, 5_000, fetch);
  try {
    assert.equal((await settler.verify(payload, requirements)).isValid, true);
    assert.equal((await settler.settle(payload, requirements)).transaction, '0xab');
  } finally {
    await server.close();
  }
});

test("x402's node reader (receipts, nonces, balances) reads each answer within a JSON-RPC source's caps (viem's own, at the same figure)", async () => {
  const server = await startFloodServer();
  try {
    for (const flood of ['huge', 'endless', 'silent'] as Flood[]) {
      server.flood = flood;
      const reader = chainReader(server.url, 8453, flood === 'silent' ? 800 : 15_000, fetch);
      const started = Date.now();
      const error = await reader.getBlockNumber({ cacheTime: 0 }).catch((e: unknown) => e);
      assert.ok(error instanceof Error);
      if (flood === 'silent') {
        assert.match(error.message, /took too long/, error.message);
        // Each attempt ends at 0.8 s; viem tries four times with a short backoff between.
        assert.ok(Date.now() - started < 10_000, `failed after ${Date.now() - started} ms`);
      } else {
        assert.match(error.message, new RegExp(`HTTP response body exceeded the size limit\\.\\s+Max: ${MAX_RPC_ANSWER_BYTES} bytes`), error.message);
        await server.hungUp();
        assert.ok(server.sentBytes < MAX_RPC_ANSWER_BYTES + 16 * 1024 * 1024, `server sent ${server.sentBytes} bytes`);
      }
    }
  } finally {
    await server.close();
  }
});
