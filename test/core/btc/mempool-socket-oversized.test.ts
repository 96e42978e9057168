import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { WebSocketServer } from 'ws';
import { createMempoolSocket, MAX_SOCKET_FRAME_BYTES } from '../../../core/btc/mempool-socket.ts';
import { systemClock } from '../../../core/clock.ts';
import { silentLogger } from '../../../core/log.ts';
import { HUGE_BYTES } from '../../helpers/flood.ts';

/**
 * A mempool WebSocket that answers each connection with one frame declaring 100 MB and streams its
 * bytes until the client hangs up: the client must close on the frame's header, not buffer it.
 */
async function startFloodingSocket() {
  const connections: Array<{ at: number; sent: number }> = [];
  const http = createServer();
  const wss = new WebSocketServer({ noServer: true });
  http.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    wss.handleUpgrade(req, socket, head, () => {
      const record = { at: Date.now(), sent: 0 };
      connections.push(record);
      // An unmasked binary frame (FIN, opcode 2) with a 64-bit length of 100 MB.
      const header = Buffer.alloc(10);
      header[0] = 0x82;
      header[1] = 127;
      header.writeBigUInt64BE(BigInt(HUGE_BYTES), 2);
      socket.write(header);
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      const pump = () => {
        while (!socket.destroyed && record.sent < HUGE_BYTES) {
          record.sent += chunk.length;
          if (!socket.write(chunk)) return void socket.once('drain', pump);
        }
      };
      socket.on('error', () => {});
      pump();
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `ws://127.0.0.1:${(http.address() as AddressInfo).port}/api/v1/ws`,
    connections,
    close: () => new Promise<void>((resolve) => (http.closeAllConnections(), wss.close(), http.close(() => resolve()))),
  };
}

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
