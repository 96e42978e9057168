import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createMempoolSocket, MAX_SOCKET_FRAME_BYTES } from '../../../core/btc/mempool-socket.ts';
import { systemClock } from '../../../core/clock.ts';
import { silentLogger } from '../../../core/log.ts';
import { startFloodingSocket } from '../../helpers/flood.ts';

test('a mempool WebSocket frame over the cap is refused on its header: the server is cut off, the error names the source and the cap, and each reconnect waits longer', async () => {
  const server = await startFloodingSocket();
  // random 0: each wait is exactly half its ceiling (500 ms, 1 s, 2 s, …).
  const socket = createMempoolSocket({ url: server.url, clock: systemClock, logger: silentLogger, random: () => 0 });
  const subscription = socket.subscribe({ onBlock() {}, onTransactions() {}, onSubscribed() {} });
  try {
    const deadline = Date.now() + 15_000;
    while (server.connections.length < 3 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.ok(server.connections.length >= 3, `only ${server.connections.length} connections`);
    assert.equal(socket.lastError, `${new URL(server.url).protocol}//${new URL(server.url).host} sent a WebSocket frame over ${MAX_SOCKET_FRAME_BYTES} bytes`);
    for (const c of server.connections.slice(0, 2)) assert.ok(c.sent < MAX_SOCKET_FRAME_BYTES, `server sent ${c.sent} bytes before the client hung up`);
    const [a, b, c] = server.connections.map((x) => x.at);
    assert.ok(c - b > 1.5 * (b - a), `reconnect waits grow: ${b - a} ms, then ${c - b} ms`);
  } finally {
    subscription.close();
    await server.close();
  }
});
