import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

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
