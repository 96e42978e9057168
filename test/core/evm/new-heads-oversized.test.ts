import { test } from 'node:test';
import assert from 'node:assert/strict';
import { systemClock } from '../../../core/clock.ts';
import { silentLogger } from '../../../core/log.ts';
import { createHeadSubscription, MAX_FRAME_BYTES } from '../../../core/evm/new-heads.ts';
import { startFloodingSocket } from '../../helpers/flood.ts';

test('an EVM node that confirms newHeads and then sends a 100 MB frame: cut off on the header, named with the cap, and each reconnect waits longer', async () => {
  const server = await startFloodingSocket((message) => JSON.stringify({ jsonrpc: '2.0', id: JSON.parse(message).id, result: '0x1' }));
  const heads = createHeadSubscription({ url: server.url, clock: systemClock, logger: silentLogger });
  heads.start(() => {});
  try {
    const deadline = Date.now() + 20_000;
    while (server.connections.length < 3 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.ok(server.connections.length >= 3, `only ${server.connections.length} connections`);
    for (const c of server.connections.slice(0, 2)) assert.ok(c.sent < 4 * MAX_FRAME_BYTES + 8 * 1024 * 1024, `server sent ${c.sent} bytes before the client hung up`);
    const [a, b, c] = server.connections.map((x) => x.at);
    // Waits of 1 to 2 s, then 2 to 4 s (jittered); were the subscription's confirmation to reset the count, both would be under 1 s.
    assert.ok(c - b > 1_500, `reconnect waits: ${b - a} ms, then ${c - b} ms`);
    const named = `${new URL(server.url).protocol}//${new URL(server.url).host} sent a WebSocket frame over ${MAX_FRAME_BYTES} bytes`;
    while (heads.lastError !== named && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(heads.lastError, named);
  } finally {
    heads.close();
    await server.close();
  }
});
