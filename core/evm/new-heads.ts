import WebSocket from 'ws';
import type { Clock } from '../clock.ts';
import type { Logger } from '../log.ts';
import { exponentialBackoffMs } from '../net/backoff.ts';
import { oversizedFrames } from '../net/bounded-body.ts';
import { sourceLabel } from '../net/request-budget.ts';

export interface HeadSubscriptionOptions {
  /** The node's WebSocket endpoint (ws:// or wss://); anvil and geth serve it on their HTTP port. */
  url: string;
  clock: Clock;
  logger: Logger;
  /** Longest wait between reconnect attempts. */
  maxBackoffMs?: number;
  /** Silence (no message, no pong) after which the connection is presumed dead and dropped. */
  idleTimeoutMs?: number;
  /** Opens a connection; tests may point it elsewhere. */
  connect?: (url: string) => WebSocket;
}

export interface HeadSubscription {
  /** Subscribed: the node confirmed `eth_subscribe("newHeads")` on an open connection. */
  readonly live: boolean;
  readonly lastError: string | null;
  /**
   * Connects and calls `onHead` for each new head the node announces, and with null after each
   * (re)subscription: a block may have come while nothing listened.
   */
  start(onHead: (height: number | null) => void): void;
  /** Drops the connection and subscribes again on a new one (after the usual backoff): for a subscription that went quiet while its socket stayed up. */
  reconnect(): void;
  close(): void;
}

const SUBSCRIBE_ID = 1;
export const MAX_FRAME_BYTES = 1 << 20;

/** What a frame from the node says: the subscription confirmed or refused, or a new head (its height, when readable); null: none of these. */
type HeadMessage = { kind: 'subscribed' } | { kind: 'refused'; reason: string } | { kind: 'head'; height: number | null } | null;

function headMessageOf(text: string): HeadMessage {
  let message: { id?: unknown; result?: unknown; error?: { message?: string }; method?: string; params?: { result?: { number?: unknown } } };
  try {
    message = JSON.parse(text);
  } catch {
    return null;
  }
  // JSON that is no object (`null`, a number) is no message either; reading it as one would throw in the socket's handler.
  if (message === null || typeof message !== 'object') return null;
  if (message.id === SUBSCRIBE_ID) {
    if (typeof message.result !== 'string') return { kind: 'refused', reason: message.error?.message ?? 'no subscription id' };
    return { kind: 'subscribed' };
  }
  if (message.method !== 'eth_subscription') return null;
  const number = message.params?.result?.number;
  return { kind: 'head', height: typeof number === 'string' && /^0x[0-9a-f]+$/i.test(number) ? Number(number) : null };
}

function openHeadSocket(url: string): WebSocket {
  // A header announcement is about 1 KB: a node sending megabytes is not announcing heads.
  return new WebSocket(url, { handshakeTimeout: 15_000, maxPayload: MAX_FRAME_BYTES });
}

/** Pings the socket; one silent (no message, no pong) past `idleTimeoutMs` is terminated. */
function keepAlive(socket: WebSocket, idleTimeoutMs: number, silentForMs: () => number): NodeJS.Timeout {
  // A ping a third of the way into the allowed silence: a live node answers long before the limit.
  return setInterval(() => {
    if (silentForMs() > idleTimeoutMs) socket.terminate();
    else socket.ping();
  }, Math.max(1_000, Math.floor(idleTimeoutMs / 3)));
}

/** Closes a socket for good: no reconnect on its close, and its late errors ignored. */
function drop(socket: WebSocket): void {
  socket.removeAllListeners('close');
  socket.on('error', () => {});
  socket.terminate();
}

/**
 * New heads from an EVM node's `eth_subscribe("newHeads")`, so a watcher reads the chain when a block
 * comes instead of asking for the head every few seconds. Reconnects with exponential backoff and
 * pings the connection: a socket that goes quiet past `idleTimeoutMs` is dropped and made again.
 * While it is not live the watcher polls at its own pace; the socket only ever makes a pass sooner.
 */
export function createHeadSubscription(options: HeadSubscriptionOptions): HeadSubscription {
  // Scheme, host and port only: hosted providers put an API key in the path.
  const log = options.logger.child({ component: 'evm-heads', source: sourceLabel(options.url) });
  const maxBackoffMs = options.maxBackoffMs ?? 60_000;
  const idleTimeoutMs = options.idleTimeoutMs ?? 90_000;
  const connect = options.connect ?? openHeadSocket;
  let onHead: ((height: number | null) => void) | null = null;
  let ws: WebSocket | null = null;
  let live = false;
  let failures = 0;
  // A node that confirms the subscription and then floods still waits longer each time.
  const frames = oversizedFrames(sourceLabel(options.url), MAX_FRAME_BYTES);
  let lastError: string | null = null;
  let lastHeardAt = 0;
  let retryTimer: NodeJS.Timeout | undefined;
  let pingTimer: NodeJS.Timeout | undefined;

  function open(): void {
    if (!onHead) return;
    let socket: WebSocket;
    try {
      socket = connect(options.url);
    } catch (error) {
      lastError = (error as Error).message;
      retry();
      return;
    }
    ws = socket;
    socket.on('open', () => {
      lastHeardAt = options.clock.now();
      socket.send(JSON.stringify({ jsonrpc: '2.0', id: SUBSCRIBE_ID, method: 'eth_subscribe', params: ['newHeads'] }));
      pingTimer = keepAlive(socket, idleTimeoutMs, () => options.clock.now() - lastHeardAt);
    });
    socket.on('pong', () => (lastHeardAt = options.clock.now()));
    socket.on('message', (data) => {
      lastHeardAt = options.clock.now();
      read(socket, data.toString());
    });
    socket.on('error', (error) => (lastError = frames.told(error)));
    socket.on('close', () => {
      if (ws !== socket) return;
      clearInterval(pingTimer);
      if (live) log.warn('EVM head subscription closed; polling until it is back');
      live = false;
      ws = null;
      retry();
    });
  }

  function read(socket: WebSocket, text: string): void {
    const message = headMessageOf(text);
    if (message?.kind === 'refused') {
      // A node without subscriptions (an HTTP-only provider behind a WebSocket) refuses: poll instead.
      lastError = `eth_subscribe refused: ${message.reason}`;
      socket.terminate();
    } else if (message?.kind === 'subscribed') {
      live = true;
      failures = 0;
      lastError = null;
      log.info('EVM head subscription live');
      onHead?.(null);
    } else if (message?.kind === 'head' && live) {
      frames.reset();
      onHead?.(message.height);
    }
  }

  function retry(): void {
    if (!onHead) return;
    failures++;
    retryTimer = setTimeout(open, exponentialBackoffMs(failures + frames.count, 1_000, maxBackoffMs) * (0.5 + Math.random() / 2));
  }

  return {
    get live() {
      return live;
    },
    get lastError() {
      return lastError;
    },
    start(callback) {
      if (onHead) return;
      onHead = callback;
      open();
    },
    reconnect() {
      ws?.terminate();
    },
    close() {
      onHead = null;
      live = false;
      clearTimeout(retryTimer);
      clearInterval(pingTimer);
      const socket = ws;
      ws = null;
      if (socket) drop(socket);
    },
  };
}
