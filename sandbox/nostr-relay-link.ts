import type { Filter } from 'nostr-tools/filter';
import type { Event } from 'nostr-tools/pure';
import { WebSocket } from 'ws';

export interface RelayLinkOptions {
  /** What the link subscribes to on every (re)connection. */
  filters: Filter[];
  onEvent(event: unknown): void;
  /** Events to publish first on every (re)connection, before the subscription (e.g. a replaceable info event). */
  announce(): Event[];
}

export interface RelayLink {
  /** Resolves at the first EOSE: subscribed, and the announcement is on the relay. */
  readonly ready: Promise<void>;
  /** Sends now, or on reconnection if the socket is down (bounded, oldest dropped first). */
  publish(event: Event): void;
  close(): void;
}

const SUBSCRIPTION_ID = 'sandbox-wallet';
const FIRST_RETRY_MS = 100;
const MAX_RETRY_MS = 5_000;
const MAX_QUEUED = 256;

/**
 * One client connection to a relay that comes back: after a drop it reconnects with exponential
 * backoff, re-announces and re-subscribes, and sends what was published while it was away.
 */
export function openRelayLink(url: string, options: RelayLinkOptions): RelayLink {
  let socket: WebSocket | null = null;
  let retries = 0;
  let retryTimer: NodeJS.Timeout | undefined;
  let closed = false;
  const queued: Event[] = [];
  let markReady!: () => void;
  const ready = new Promise<void>((resolve) => (markReady = resolve));

  const send = (target: WebSocket, message: unknown[]) => target.send(JSON.stringify(message));

  function onMessage(data: string): void {
    let message: unknown;
    try {
      message = JSON.parse(data);
    } catch {
      return; // a relay's garbage is not ours to answer
    }
    if (!Array.isArray(message)) return;
    if (message[0] === 'EVENT' && message[1] === SUBSCRIPTION_ID) options.onEvent(message[2]);
    else if (message[0] === 'EOSE' && message[1] === SUBSCRIPTION_ID) markReady();
  }

  function connect(): void {
    const current = new WebSocket(url);
    socket = current;
    current.on('open', () => {
      retries = 0;
      for (const event of options.announce()) send(current, ['EVENT', event]);
      send(current, ['REQ', SUBSCRIPTION_ID, ...options.filters]);
      for (const event of queued.splice(0)) send(current, ['EVENT', event]);
    });
    current.on('message', (data) => onMessage(data.toString()));
    current.on('error', () => current.terminate());
    current.on('close', () => {
      if (socket === current) socket = null;
      if (closed) return;
      const delay = Math.min(FIRST_RETRY_MS * 2 ** retries++, MAX_RETRY_MS);
      retryTimer = setTimeout(connect, delay);
    });
  }

  connect();
  return {
    ready,
    publish(event) {
      if (socket?.readyState === WebSocket.OPEN) return send(socket, ['EVENT', event]);
      queued.push(event);
      if (queued.length > MAX_QUEUED) queued.shift();
    },
    close() {
      closed = true;
      clearTimeout(retryTimer);
      socket?.terminate();
    },
  };
}
