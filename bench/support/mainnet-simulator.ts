/**
 * Serves a chain the way a public Esplora service with mempool.space's WebSocket does, behind a
 * public service's rate limit: a token bucket (10 requests/s, bursts of 20 by default) over every
 * HTTP request and WebSocket upgrade, answering 429 with `Retry-After` in turns as delta-seconds, as
 * an HTTP-date and absent. It counts requests and bytes per route, 429s, and the requests that
 * arrive while a `Retry-After` it gave is still open. The protocol code is the sandbox's own.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { esploraRequest, type EsploraChain } from '../../sandbox/esplora-api.ts';
import { closeChainServer, MEMPOOL_SOCKET_PATH, refuseUpgrade, routeOf, send } from '../../sandbox/local-chain-server.ts';
import { createMempoolSocket, type MempoolSocket } from '../../sandbox/mempool-socket.ts';

export interface SimulatorOptions {
  /** Infinity: no limit at all. */
  ratePerSecond?: number;
  burst?: number;
  maxTrackedAddresses?: number;
}

export interface RouteCount {
  requests: number;
  bytes: number;
}

export interface SimulatorStats {
  requests: number;
  /** Response bodies over HTTP plus messages pushed over the WebSocket. */
  bytes: number;
  socketBytes: number;
  socketMessages: number;
  tooManyRequests: number;
  insideRetryAfter: number;
  byRoute: Map<string, RouteCount>;
}

export interface MainnetSimulator {
  readonly esploraUrl: string;
  readonly socketClients: number;
  stats(): SimulatorStats;
  resetStats(): void;
  /** While refused, WebSocket upgrades answer 503 (a proxy without WebSocket support). */
  refuseSockets(refused: boolean): void;
  close(): Promise<void>;
}

type RetryAfterForm = 'seconds' | 'http-date' | 'absent';
const RETRY_AFTER_FORMS: RetryAfterForm[] = ['seconds', 'http-date', 'absent'];

export async function startMainnetSimulator(chain: EsploraChain, options: SimulatorOptions = {}): Promise<MainnetSimulator> {
  const socket = createMempoolSocket(chain, { maxTrackedAddresses: options.maxTrackedAddresses });
  const limit = createRateLimit(options.ratePerSecond ?? 10, options.burst ?? 20);
  let socketsRefused = false;
  const counts = createTrafficCounts(socket);

  function admit(now: number): { ok: true } | { ok: false; waitMs: number } {
    if (limit.insideRetryAfter(now)) counts.insideRetryAfter();
    return limit.admit(now);
  }

  function tooMany(res: ServerResponse | null, stream: Duplex | null, route: string, now: number, waitMs: number): void {
    counts.tooManyRequests();
    const headers = limit.retryAfterHeaders(now, waitMs);
    const body = 'Too Many Requests';
    counts.count(route, body.length);
    if (res) {
      for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
      return send(res, 429, 'text/plain', body);
    }
    const extra = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('');
    stream!.end(`HTTP/1.1 429 Too Many Requests\r\n${extra}Connection: close\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
  }

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://local').pathname;
    const route = `${req.method} ${routeOf(path)}`;
    const now = Date.now();
    const admitted = admit(now);
    if (!admitted.ok) return tooMany(res, null, route, now, admitted.waitMs);
    if (req.method !== 'GET' || !path.startsWith('/api/')) {
      counts.count(route, 9);
      return send(res, 404, 'text/plain', 'Not found');
    }
    const reply = esploraRequest(chain, 'GET', path.slice(4), '');
    const body = typeof reply.body === 'string' ? Buffer.from(reply.body) : reply.body;
    counts.count(route, body.length);
    send(res, reply.status, reply.type, body);
  });

  server.on('upgrade', (req: IncomingMessage, stream: Duplex, head: Buffer) => {
    const path = new URL(req.url ?? '/', 'http://local').pathname;
    const route = `UPGRADE ${path}`;
    const now = Date.now();
    const admitted = admit(now);
    if (!admitted.ok) return tooMany(null, stream, route, now, admitted.waitMs);
    counts.count(route, 0);
    if (path !== MEMPOOL_SOCKET_PATH) return refuseUpgrade(stream, 404, 'Not Found');
    if (socketsRefused) return refuseUpgrade(stream, 503, 'Service Unavailable');
    socket.handleUpgrade(req, stream, head);
  });

  const { address, port } = await listenAsPublicService(server);
  return {
    esploraUrl: `http://${address}:${port}/api`,
    get socketClients() {
      return socket.clientCount;
    },
    stats: counts.stats,
    resetStats: counts.reset,
    refuseSockets(refused) {
      socketsRefused = refused;
      if (refused) socket.dropAll();
    },
    close: () => closeChainServer(server, socket),
  };
}

/** Requests, bytes and 429s over HTTP, and what the WebSocket pushed, since the start or the last reset. */
function createTrafficCounts(socket: MempoolSocket) {
  const fresh = () => ({ requests: 0, httpBytes: 0, tooManyRequests: 0, insideRetryAfter: 0, byRoute: new Map<string, RouteCount>() });
  let current = fresh();
  let socketBaseline = { ...socket.sent };
  return {
    /** A request came while a `Retry-After` given was still open. */
    insideRetryAfter(): void {
      current.insideRetryAfter++;
    },
    tooManyRequests(): void {
      current.tooManyRequests++;
    },
    count(route: string, bytes: number): void {
      current.requests++;
      current.httpBytes += bytes;
      const entry = current.byRoute.get(route) ?? { requests: 0, bytes: 0 };
      entry.requests++;
      entry.bytes += bytes;
      current.byRoute.set(route, entry);
    },
    stats(): SimulatorStats {
      const socketBytes = socket.sent.bytes - socketBaseline.bytes;
      return {
        requests: current.requests,
        bytes: current.httpBytes + socketBytes,
        socketBytes,
        socketMessages: socket.sent.messages - socketBaseline.messages,
        tooManyRequests: current.tooManyRequests,
        insideRetryAfter: current.insideRetryAfter,
        byRoute: new Map([...current.byRoute].map(([route, count]) => [route, { ...count }])),
      };
    },
    reset(): void {
      current = fresh();
      socketBaseline = { ...socket.sent };
    },
  };
}

/** The service's rate limit: a token bucket, and the `Retry-After` windows its 429s gave clients to keep. */
function createRateLimit(rate: number, burst: number) {
  let tokens = burst;
  let refilledAt = Date.now();
  let retryAfterUntil = 0;
  let turn = 0;
  return {
    /** Takes a token, or answers how long until one is there. */
    admit(now: number): { ok: true } | { ok: false; waitMs: number } {
      if (rate === Infinity) return { ok: true };
      tokens = Math.min(burst, tokens + ((now - refilledAt) / 1000) * rate);
      refilledAt = now;
      if (tokens >= 1) {
        tokens -= 1;
        return { ok: true };
      }
      return { ok: false, waitMs: ((1 - tokens) / rate) * 1000 };
    },
    /** A request now comes while a `Retry-After` given is still open. */
    insideRetryAfter: (now: number): boolean => rate !== Infinity && now < retryAfterUntil,
    /** The 429 headers, in turns of the three forms; remembers the window a client was told to keep. */
    retryAfterHeaders(now: number, waitMs: number): Record<string, string> {
      const form = RETRY_AFTER_FORMS[turn++ % RETRY_AFTER_FORMS.length];
      const seconds = Math.max(1, Math.ceil(waitMs / 1000)) + (turn % 3);
      if (form === 'absent') return {};
      const until = now + seconds * 1000;
      if (form === 'seconds') {
        retryAfterUntil = Math.max(retryAfterUntil, until);
        return { 'Retry-After': String(seconds) };
      }
      // HTTP-date has whole seconds: round up, so the date is never earlier than the wait.
      const date = new Date(Math.ceil(until / 1000) * 1000);
      retryAfterUntil = Math.max(retryAfterUntil, date.getTime());
      return { 'Retry-After': date.toUTCString() };
    },
  };
}

async function listenAsPublicService(server: Server): Promise<AddressInfo> {
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    // A loopback address other than 127.0.0.1, so the listener takes it for a public service (whose
    // request budget and watching mode it then uses) rather than a node of its own.
    server.listen(0, '127.0.0.2', () => resolve());
  });
  return server.address() as AddressInfo;
}
