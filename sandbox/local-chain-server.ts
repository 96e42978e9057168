import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { timingSafeEqual } from 'node:crypto';
import { coreRpcRequest } from './core-rpc-api.ts';
import { esploraRequest } from './esplora-api.ts';
import type { LocalBtcChain } from './local-btc-chain.ts';
import { createMempoolSocket, type MempoolSocket } from './mempool-socket.ts';

export interface LocalChainServer {
  readonly chain: LocalBtcChain;
  /** Base URL of the Esplora API, like https://mempool.space/api. */
  readonly esploraUrl: string;
  /** The mempool.space WebSocket API, like wss://mempool.space/api/v1/ws: `${esploraUrl}/v1/ws` as ws://. */
  readonly websocketUrl: string;
  /** The WebSocket side: open connections, messages pushed, and `dropAll()` to cut them. */
  readonly socket: MempoolSocket;
  /** Bitcoin Core JSON-RPC URL with its credentials, as BTC_RPC_URL takes it. */
  readonly rpcUrl: string;
  /** Base URL of the HTML explorer pages (address/…, tx/…), when the server has them. */
  readonly explorerUrl: string;
  /** Base URL of the control endpoints (pay, mine, reorg, outage). */
  readonly controlUrl: string;
  /** JSON-RPC relayed to the sandbox's EVM nodes (`evmRpc`), at `<evmRpcUrl>/<chain>`: a second source over the same node. */
  readonly evmRpcUrl: string;
  /** Esplora and RPC requests answered so far (control calls not counted). */
  readonly requestCount: number;
  /**
   * Those requests by route, ids elided: `GET /api/block/:hash/raw`, `GET /api/block-height/:n`,
   * `rpc getblock`. Bounded by the number of routes however long the server runs.
   */
  requestsByRoute(): Map<string, number>;
  /** While down, the Esplora and RPC endpoints answer 503 as an unreachable backend would, and the WebSocket is refused. */
  setDown(down: boolean): void;
  /** While refused, WebSocket upgrades answer 503 (a proxy without WebSocket support); HTTP is unaffected. */
  refuseSockets(refused: boolean): void;
  close(): Promise<void>;
}

export interface LocalChainServerOptions {
  host?: string;
  port?: number;
  rpcUser?: string;
  rpcPassword?: string;
  /** More POST control actions by name (the sandbox's Base node); a rejection answers 400 with its message. */
  extraControl?: Record<string, (input: Record<string, unknown>) => Promise<unknown>>;
  /** Answers JSON-RPC posted to /evm-rpc/<chain> (the sandbox's relay to that chain's EVM node); absent: 404. */
  evmRpc?: (chain: string, body: string) => Promise<string>;
  /** HTML block-explorer pages under /explorer (the sandbox's); the path after /explorer is passed. */
  explorer?: (path: string) => Promise<{ status: number; html: string }>;
  /** `track-addresses` limit per WebSocket connection (see createMempoolSocket). */
  maxTrackedAddresses?: number;
  /** Blocks the WebSocket answers `want` with (0: a mempool instance that has not loaded its blocks yet). */
  initialBlocks?: number;
}

const MAX_BODY = 4 * 1024 * 1024;
export const MEMPOOL_SOCKET_PATH = '/api/v1/ws';
const EVM_RPC_PATH = '/evm-rpc';

/**
 * Serves a LocalBtcChain over HTTP: Esplora under /api, the mempool.space WebSocket API at
 * /api/v1/ws, Bitcoin Core JSON-RPC at POST / (basic auth), and JSON control endpoints under
 * /control for tests and the sandbox CLI.
 */
export async function startLocalChainServer(chain: LocalBtcChain, options: LocalChainServerOptions = {}): Promise<LocalChainServer> {
  const rpcUser = options.rpcUser ?? 'sandbox';
  const rpcPassword = options.rpcPassword ?? 'sandbox';
  const expectedAuth = Buffer.from(`Basic ${Buffer.from(`${rpcUser}:${rpcPassword}`).toString('base64')}`);
  let down = false;
  let socketsRefused = false;
  const socket = createMempoolSocket(chain, { maxTrackedAddresses: options.maxTrackedAddresses, initialBlocks: options.initialBlocks });
  const requests = createRequestCounter();
  const setDown = (value: boolean) => {
    down = value;
    if (down) socket.dropAll();
  };

  const server = createServer((req, res) => {
    readBody(req)
      .then((body) => route(req, res, body))
      .catch((error: unknown) => send(res, 500, 'text/plain', error instanceof Error ? error.message : 'internal error'));
  });

  function route(req: IncomingMessage, res: ServerResponse, body: string): void {
    const path = new URL(req.url ?? '/', 'http://local').pathname;
    if (path.startsWith('/control/')) return control(chain, options.extraControl, setDown, { method: req.method ?? 'GET', action: path.slice('/control/'.length), body }, res);
    if (options.explorer && req.method === 'GET' && path.startsWith('/explorer/')) {
      const page = options.explorer(path.slice('/explorer'.length)).then(({ status, html }) => ({ status, body: html }));
      return relay(res, page, 'text/html; charset=utf-8', 'explorer failed');
    }
    if (options.evmRpc && req.method === 'POST' && path.startsWith(`${EVM_RPC_PATH}/`)) {
      const answer = options.evmRpc(path.slice(EVM_RPC_PATH.length + 1), body).then((json) => ({ status: 200, body: json }));
      return relay(res, answer, 'application/json', 'EVM node unreachable');
    }
    if (down) return send(res, 503, 'text/plain', 'Service Unavailable');
    if (path === '/api' || path.startsWith('/api/')) {
      requests.count(`${req.method} ${routeOf(path)}`);
      const reply = esploraRequest(chain, req.method ?? 'GET', path.slice(4), body);
      return send(res, reply.status, reply.type, reply.body);
    }
    if (path === '/' && req.method === 'POST') {
      requests.count(`rpc ${rpcMethods(body)}`);
      if (!authorized(req, expectedAuth)) {
        res.setHeader('WWW-Authenticate', 'Basic realm="jsonrpc"');
        return send(res, 401, 'text/plain', '');
      }
      const reply = coreRpcRequest(chain, body);
      return send(res, reply.status, 'application/json', reply.body);
    }
    send(res, 404, 'text/plain', 'Not found');
  }

  server.on('upgrade', (req: IncomingMessage, stream: Duplex, head: Buffer) => {
    const path = new URL(req.url ?? '/', 'http://local').pathname;
    if (path !== MEMPOOL_SOCKET_PATH) return refuseUpgrade(stream, 404, 'Not Found');
    if (down || socketsRefused) return refuseUpgrade(stream, 503, 'Service Unavailable');
    socket.handleUpgrade(req, stream, head);
  });

  // Outlive clients' idle sockets, so a pooled connection is never closed just as it is reused.
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const { address, port } = server.address() as AddressInfo;
  const base = `http://${address}:${port}`;
  return {
    chain,
    esploraUrl: `${base}/api`,
    websocketUrl: `ws://${address}:${port}${MEMPOOL_SOCKET_PATH}`,
    socket,
    rpcUrl: `http://${encodeURIComponent(rpcUser)}:${encodeURIComponent(rpcPassword)}@${address}:${port}/`,
    controlUrl: `${base}/control`,
    evmRpcUrl: `${base}${EVM_RPC_PATH}`,
    explorerUrl: `${base}/explorer`,
    get requestCount() {
      return requests.total();
    },
    requestsByRoute: requests.byRoute,
    setDown,
    refuseSockets(refused: boolean) {
      socketsRefused = refused;
      if (refused) socket.dropAll();
    },
    close: () => closeChainServer(server, socket),
  };
}

/**
 * The control endpoints: the wallet (GET), and POST pay, mine, reorg, outage and the sandbox's own
 * actions (`extraControl`); `setDown` takes an outage on and off.
 */
function control(chain: LocalBtcChain, extraControl: LocalChainServerOptions['extraControl'], setDown: (down: boolean) => void, request: { method: string; action: string; body: string }, res: ServerResponse): void {
  const { method, action, body } = request;
  const input = body ? (JSON.parse(body) as Record<string, unknown>) : {};
  const ok = (value: unknown) => send(res, 200, 'application/json', JSON.stringify(value));
  if (method === 'GET' && action === 'wallet') {
    return ok({ address: chain.wallet.address, balance_sats: String(chain.balance()), height: chain.tip.height });
  }
  if (method !== 'POST') return send(res, 404, 'text/plain', 'Not found');
  // The action comes from the URL: only the table's own entries, never an inherited `constructor`.
  const extra = extraControl && Object.hasOwn(extraControl, action) ? extraControl[action] : undefined;
  if (extra) {
    extra(input).then(ok, (error: unknown) => send(res, 400, 'text/plain', error instanceof Error ? error.message : 'refused'));
    return;
  }
  switch (action) {
    case 'pay': {
      const amount = BigInt(String(input.amount_sats));
      const txid = chain.pay([{ address: String(input.address), value: amount }]);
      return ok({ txid });
    }
    case 'mine': {
      const blocks = chain.mine(Number(input.blocks ?? 1));
      return ok({ hashes: blocks.map((b) => b.hash), height: chain.tip.height });
    }
    case 'reorg': {
      const blocks = chain.reorg(Number(input.depth), {
        blocks: input.blocks === undefined ? undefined : Number(input.blocks),
        drop: Array.isArray(input.drop) ? input.drop.map(String) : [],
        includeMempool: input.include_mempool === undefined ? undefined : Boolean(input.include_mempool),
      });
      return ok({ hashes: blocks.map((b) => b.hash), height: chain.tip.height });
    }
    case 'outage': {
      const down = Boolean(input.down);
      setDown(down);
      return ok({ down });
    }
    default:
      return send(res, 404, 'text/plain', 'Not found');
  }
}

/** Sends what another server answers (a 502 with its error when it fails; `failed` when the error has no message). */
function relay(res: ServerResponse, answer: Promise<{ status: number; body: string }>, type: string, failed: string): void {
  answer.then(
    (reply) => send(res, reply.status, type, reply.body),
    (error: unknown) => send(res, 502, 'text/plain', error instanceof Error ? error.message : failed),
  );
}

/** Requests answered, in all and by route. */
function createRequestCounter() {
  let total = 0;
  const byRoute = new Map<string, number>();
  return {
    count(route: string): void {
      total++;
      byRoute.set(route, (byRoute.get(route) ?? 0) + 1);
    },
    total: () => total,
    byRoute: () => new Map(byRoute),
  };
}

/** Whether the request carries the RPC credentials (compared in constant time). */
function authorized(req: IncomingMessage, expectedAuth: Buffer): boolean {
  const given = Buffer.from(req.headers.authorization ?? '');
  return given.length === expectedAuth.length && timingSafeEqual(given, expectedAuth);
}

/** Stops the WebSocket side and the HTTP server, cutting kept-alive connections. */
export function closeChainServer(server: Server, socket: MempoolSocket): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    socket.close();
    server.close((error) => (error ? reject(error) : resolve()));
    server.closeAllConnections();
  });
}

/** A path with its ids elided, for counting requests by route. */
export function routeOf(path: string): string {
  return path
    .replace(/\/address\/[^/]+/, '/address/:address')
    .replace(/\/[0-9a-f]{64}(?=\/|$)/g, '/:hash').replace(/\/\d+(?=\/|$)/g, '/:n');
}

function rpcMethods(body: string): string {
  try {
    const parsed = JSON.parse(body) as { method?: unknown } | { method?: unknown }[];
    return (Array.isArray(parsed) ? parsed : [parsed]).map((call) => String(call.method)).join(',');
  } catch {
    return 'unparsable';
  }
}

/** Answers an upgrade request with a plain HTTP status, as a server or proxy refusing WebSockets does. */
export function refuseUpgrade(stream: Duplex, status: number, reason: string): void {
  stream.end(`HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) req.destroy(new Error('body too large'));
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export function send(res: ServerResponse, status: number, type: string, body: string | Uint8Array): void {
  res.writeHead(status, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}
