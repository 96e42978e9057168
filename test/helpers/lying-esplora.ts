import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFlood, type Flood } from './flood.ts';

/** What a lie may replace an honest answer with: the body (and its status), a flood (flood.ts), or null to pass it on. */
export type Lie = (path: string, honest: () => Promise<{ status: number; body: Buffer }>) => Promise<{ status: number; body: Buffer } | { flood: Flood } | null>;

export interface LyingEsplora {
  /** Its Esplora base URL, as BTC_ESPLORA_URL takes it. */
  readonly url: string;
  /** The honest Esplora it relays (set once known); unset, it answers 503. */
  target: string | null;
  /** Rewrites answers; null: an honest relay. */
  lie: Lie | null;
  /** Bytes written by floods, all requests together. */
  readonly floodedBytes: number;
  close(): Promise<void>;
}

/**
 * An Esplora in front of an honest one that lies on demand: what a compromised provider, a hijacked
 * DNS name or a buggy mirror would serve. Only GET is relayed (the listener only reads).
 */
export async function startLyingEsplora(): Promise<LyingEsplora> {
  const server = createServer(async (req, res) => {
    const path = req.url!.replace(/^\/api/, '');
    const target = proxy.target;
    if (!target || req.method !== 'GET') {
      res.writeHead(503).end();
      return;
    }
    const honest = async () => {
      const answer = await fetch(`${target}${path}`);
      return { status: answer.status, body: Buffer.from(await answer.arrayBuffer()) };
    };
    try {
      const answer = (await proxy.lie?.(path, honest)) ?? (await honest());
      if ('flood' in answer) {
        let sent = 0;
        await writeFlood(res, answer.flood, (bytes) => (sent = bytes));
        floodedBytes += sent;
      } else res.writeHead(answer.status).end(answer.body);
    } catch {
      res.writeHead(502).end();
    }
  });
  let floodedBytes = 0;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const proxy: LyingEsplora = {
    url: `http://127.0.0.1:${port}/api`,
    target: null,
    lie: null,
    get floodedBytes() {
      return floodedBytes;
    },
    // A silent answer holds its connection open: close it too.
    close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
  return proxy;
}
