import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { WebSocketServer } from 'ws';

/**
 * Answers no honest source gives: a 100 MB body (declared or not), a chunked stream without end, or
 * headers and then silence. Each is really written to the socket, with backpressure, so a client
 * that stops reading stops the flood, and the bytes it let through are counted.
 */
export type Flood = 'huge' | 'huge-declared' | 'endless' | 'silent';

export const HUGE_BYTES = 100 * 1024 * 1024;
const CHUNK = Buffer.alloc(64 * 1024, 0x30);

/** Writes `flood` to `res` until it is done or the client hangs up; calls `sent` with the bytes written so far. */
export async function writeFlood(res: ServerResponse, flood: Flood, sent: (bytes: number) => void, contentType = 'application/json'): Promise<void> {
  const headers: Record<string, string | number> = { 'content-type': contentType };
  if (flood === 'huge-declared') headers['content-length'] = HUGE_BYTES;
  res.writeHead(200, headers);
  res.flushHeaders();
  if (flood === 'silent') return;
  const limit = flood === 'endless' ? Number.POSITIVE_INFINITY : HUGE_BYTES;
  let written = 0;
  // JSON that never closes: a client reading it whole would find nothing wrong until the end.
  const opening = Buffer.from('["');
  res.write(opening);
  written += opening.length;
  while (written < limit && !res.destroyed) {
    const ok = res.write(CHUNK);
    written += CHUNK.length;
    sent(written);
    if (!ok) {
      await new Promise<void>((resolve) => {
        const done = () => (res.off('drain', done), res.off('close', done), resolve());
        res.on('drain', done).on('close', done);
      });
    }
  }
  if (!res.destroyed) res.end();
}

export interface FloodServer {
  url: string;
  /** What every request gets; null: `honest` answers. */
  flood: Flood | null;
  /** Bytes written to the last flooded request before the client hung up (or it ended). */
  readonly sentBytes: number;
  /** When the last flooded request's connection closed (ms since epoch), or null while open. */
  readonly closedAt: number | null;
  /** Resolves once the last flooded request's connection has closed. */
  hungUp(): Promise<void>;
  close(): Promise<void>;
}

/** A server that floods every request, or hands it to `honest` (a real source's answers) while `flood` is null. */
export async function startFloodServer(honest?: (req: IncomingMessage, res: ServerResponse) => void): Promise<FloodServer> {
  let sentBytes = 0;
  let closedAt: number | null = null;
  let closed: Promise<void> = Promise.resolve();
  const server = createServer(async (req, res) => {
    for await (const _ of req);
    if (!state.flood) {
      if (honest) honest(req, res);
      else res.writeHead(404).end();
      return;
    }
    sentBytes = 0;
    closedAt = null;
    closed = new Promise<void>((resolve) => res.on('close', () => ((closedAt = Date.now()), resolve())));
    await writeFlood(res, state.flood, (bytes) => (sentBytes = bytes));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const state: FloodServer = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    flood: 'huge',
    get sentBytes() {
      return sentBytes;
    },
    get closedAt() {
      return closedAt;
    },
    hungUp: () => closed,
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
  return state;
}

/**
 * A WebSocket server that answers each connection with one frame declaring 100 MB and streams its
 * bytes until the client hangs up: the client must close on the frame's header, not buffer it.
 * `reply`: an answer to the client's first message, sent as a normal frame before the flood (a
 * node confirming a subscription, then flooding).
 */
export async function startFloodingSocket(reply?: (message: string) => string) {
  const connections: Array<{ at: number; sent: number }> = [];
  const http = createServer();
  const wss = new WebSocketServer({ noServer: true });
  http.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    wss.handleUpgrade(req, socket, head, (ws) => {
      const record = { at: Date.now(), sent: 0 };
      connections.push(record);
      socket.on('error', () => {});
      if (!reply) return floodFrame(socket, record);
      ws.once('message', (data) => ws.send(reply(data.toString()), () => floodFrame(socket, record)));
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `ws://127.0.0.1:${(http.address() as AddressInfo).port}/api/v1/ws`,
    connections,
    close: () => new Promise<void>((resolve) => (http.closeAllConnections(), wss.close(), http.close(() => resolve()))),
  };
}

/** Writes an unmasked binary frame header (FIN, opcode 2, 64-bit length of 100 MB), then its bytes while the socket takes them. */
function floodFrame(socket: Socket, record: { sent: number }): void {
  const header = Buffer.alloc(10);
  header[0] = 0x82;
  header[1] = 127;
  header.writeBigUInt64BE(BigInt(HUGE_BYTES), 2);
  socket.write(header);
  const pump = () => {
    while (!socket.destroyed && record.sent < HUGE_BYTES) {
      record.sent += CHUNK.length;
      if (!socket.write(CHUNK)) return void socket.once('drain', pump);
    }
  };
  pump();
}
