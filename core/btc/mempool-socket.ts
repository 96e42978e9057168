import WebSocket from 'ws';
import type { Clock } from '../clock.ts';
import type { Logger } from '../log.ts';
import { exponentialBackoffMs } from '../net/backoff.ts';
import { parseEsploraTx, type AddressTx } from './address-source.ts';

/**
 * What mempool.space's own backend allows per connection when its operator sets nothing
 * (`MEMPOOL.MAX_TRACKED_ADDRESSES`) is 1; packaged self-hosted instances commonly raise it to 100,
 * and mempool.space does not publish its value. The socket starts from this and adopts the limit a
 * server states in its `track-addresses-error`.
 */
export const DEFAULT_MAX_TRACKED_ADDRESSES = 100;
/** Connections per source at most: 1,000 open invoices tracked at mempool's usual limit of 100. */
export const DEFAULT_MAX_CONNECTIONS = 10;

/** One watcher's share of a socket: the addresses it wants tracked, and what it hears back. */
export interface SocketSubscriber {
  /** Newly seen unconfirmed transactions of its addresses (and ones the server says left the mempool). */
  onTransactions(added: AddressTx[], removed: string[]): void;
  /** A new block was announced (its height when the server says): read the chain now rather than at the next poll. */
  onBlock(height: number | null): void;
  /**
   * Addresses just tracked: anything they received before was not pushed (the server does not
   * acknowledge a subscription either). `resumed`: tracked before, then lost with a connection.
   */
  onSubscribed(addresses: string[], resumed: boolean): void;
}

export interface SocketSubscription {
  /** The addresses this subscriber wants tracked, most important first. */
  update(addresses: readonly string[]): void;
  /** The subscriber's addresses the server tracks now (empty while disconnected). */
  tracked(): ReadonlySet<string>;
  close(): void;
}

export interface MempoolSocketOptions {
  url: string;
  clock: Clock;
  logger: Logger;
  maxAddresses?: number;
  /** Connections at most, each tracking up to `maxAddresses`. */
  maxConnections?: number;
  /** Longest wait between reconnect attempts. */
  maxBackoffMs?: number;
  /** Seconds of silence (no message, no pong) after which the connection is presumed dead. */
  idleTimeoutMs?: number;
  random?: () => number;
  /** Opens a connection; tests may point it elsewhere. */
  connect?: (url: string) => WebSocket;
}

/** The WebSocket of an Esplora URL on a mempool instance: https://host/api → wss://host/api/v1/ws. */
export function mempoolSocketUrl(esploraUrl: string): string {
  const url = new URL(esploraUrl.replace(/\/+$/, '') + '/v1/ws');
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  return url.toString();
}

/**
 * mempool.space WebSockets (`/api/v1/ws`) shared by every watcher of a source. The first connection
 * asks for blocks (`want`); together the connections track the union of the subscribers' addresses
 * (`track-addresses`), the server's limit per connection, up to `maxConnections` connections (the
 * limit is per connection, so 1,000 open invoices at mempool's usual 100 take 10). Addresses are
 * taken from each subscriber's most important in turn, so one merchant with many invoices cannot
 * crowd out another. Each connection reconnects with exponential backoff and jitter and subscribes
 * again; what was pushed while it was down is not replayed, so subscribers poll the addresses
 * `onSubscribed` names once.
 */
export function createMempoolSocket(options: MempoolSocketOptions) {
  const { clock, logger } = options;
  const log = logger.child({ component: 'mempool-socket' });
  const random = options.random ?? Math.random;
  const maxBackoffMs = options.maxBackoffMs ?? 60_000;
  const idleTimeoutMs = options.idleTimeoutMs ?? 90_000;
  const maxConnections = options.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
  const connect = options.connect ?? ((url: string) => new WebSocket(url, { handshakeTimeout: 15_000 }));
  let maxAddresses = options.maxAddresses ?? DEFAULT_MAX_TRACKED_ADDRESSES;

  interface Member {
    subscriber: SocketSubscriber;
    wanted: readonly string[];
    tracked: Set<string>;
    /** Tracked at some point: losing and regaining one leaves a gap nothing was pushed in. */
    everTracked: Set<string>;
  }
  interface Connection {
    index: number;
    ws: WebSocket | null;
    open: boolean;
    failures: number;
    /** The addresses this connection should track, and what it last sent. */
    share: string[];
    sentKey: string;
    retryTimer?: NodeJS.Timeout;
    pingTimer?: NodeJS.Timeout;
    lastHeardAt: number;
  }
  const members = new Set<Member>();
  const connections: Connection[] = [];
  let closed = true;
  let lastError: string | null = null;

  /** The union of the members' wanted addresses, one from each in turn, as many as the connections can hold. */
  function chooseTracked(): string[] {
    const chosen: string[] = [];
    const taken = new Set<string>();
    const room = maxAddresses * maxConnections;
    for (let rank = 0; chosen.length < room; rank++) {
      let any = false;
      for (const member of members) {
        const address = member.wanted[rank];
        if (address === undefined) continue;
        any = true;
        if (chosen.length >= room) break;
        if (taken.has(address)) continue;
        taken.add(address);
        chosen.push(address);
      }
      if (!any) break;
    }
    return chosen;
  }

  function subscribe(): void {
    if (closed) return;
    const chosen = chooseTracked();
    // More connections only once the first is up: a server refusing sockets is retried by one, not ten.
    const needed = connections[0]?.open ? Math.min(maxConnections, Math.max(1, Math.ceil(chosen.length / maxAddresses))) : 1;
    while (connections.length < needed) {
      const connection: Connection = { index: connections.length, ws: null, open: false, failures: 0, share: [], sentKey: '', lastHeardAt: 0 };
      connections.push(connection);
      start(connection);
    }
    const live = new Set<string>();
    connections.forEach((connection, i) => {
      connection.share = chosen.slice(i * maxAddresses, (i + 1) * maxAddresses);
      if (!connection.open || !connection.ws) return;
      const key = connection.share.join(',');
      if (key !== connection.sentKey) {
        connection.ws.send(JSON.stringify({ 'track-addresses': connection.share }));
        connection.sentKey = key;
      }
      for (const address of connection.share) live.add(address);
    });
    for (const member of members) {
      const now = new Set(member.wanted.filter((a) => live.has(a)));
      const fresh = [...now].filter((a) => !member.tracked.has(a));
      member.tracked = now;
      const wanted = new Set(member.wanted);
      for (const address of member.everTracked) if (!wanted.has(address)) member.everTracked.delete(address);
      const resumed = fresh.filter((a) => member.everTracked.has(a));
      const first = fresh.filter((a) => !member.everTracked.has(a));
      for (const address of first) member.everTracked.add(address);
      if (resumed.length) member.subscriber.onSubscribed(resumed, true);
      if (first.length) member.subscriber.onSubscribed(first, false);
    }
  }

  function announce(height: number | null): void {
    for (const member of members) member.subscriber.onBlock(height);
  }

  function onMessage(connection: Connection, data: WebSocket.RawData): void {
    connection.lastHeardAt = clock.now();
    let message: Record<string, unknown>;
    try {
      message = JSON.parse(data.toString());
    } catch {
      return;
    }
    if (message.block) announce(heightOf(message.block));
    // The answer to `want`: blocks are pushed from here on, and this is the tip the server had then.
    // A block mined between the connection and this answer was never pushed.
    if (Array.isArray(message.blocks)) {
      const heights = message.blocks.map(heightOf).filter((height) => height !== null);
      announce(heights.length ? Math.max(...heights) : null);
    }
    const error = message['track-addresses-error'];
    if (typeof error === 'string') {
      const stated = Number(/maximum of (\d+)/.exec(error)?.[1]);
      const next = Number.isSafeInteger(stated) && stated > 0 ? stated : Math.max(1, Math.floor(maxAddresses / 2));
      log.warn('mempool socket refused the tracked addresses; tracking fewer per connection', { error, max_addresses: next });
      maxAddresses = next;
      for (const c of connections) c.sentKey = '';
      subscribe();
    }
    const byAddress = message['multi-address-transactions'];
    if (byAddress && typeof byAddress === 'object') {
      for (const member of members) {
        const added: AddressTx[] = [];
        const removed: string[] = [];
        for (const address of member.tracked) {
          const entry = (byAddress as Record<string, { mempool?: unknown[]; confirmed?: unknown[]; removed?: unknown[] }>)[address];
          if (!entry) continue;
          for (const tx of [...(entry.mempool ?? []), ...(entry.confirmed ?? [])]) {
            try {
              added.push(parseEsploraTx(tx));
            } catch {
              // A malformed push is ignored: the block (or a poll) still finds the payment.
            }
          }
          for (const tx of entry.removed ?? []) {
            const txid = (tx as { txid?: unknown })?.txid;
            if (typeof txid === 'string') removed.push(txid);
          }
        }
        if (added.length || removed.length) member.subscriber.onTransactions(added, removed);
      }
    }
  }

  function scheduleReconnect(connection: Connection): void {
    if (closed) return;
    connection.failures++;
    const base = exponentialBackoffMs(connection.failures, 1_000, maxBackoffMs);
    connection.retryTimer = setTimeout(() => start(connection), Math.round(base / 2 + (random() * base) / 2));
  }

  function start(connection: Connection): void {
    if (closed) return;
    let ws: WebSocket;
    try {
      ws = connect(options.url);
    } catch (error) {
      lastError = error instanceof Error ? error.message : String(error);
      scheduleReconnect(connection);
      return;
    }
    connection.ws = ws;
    ws.on('open', () => {
      if (connection.ws !== ws) return;
      connection.open = true;
      connection.failures = 0;
      connection.lastHeardAt = clock.now();
      lastError = null;
      log.info('mempool socket connected', { url: options.url, connection: connection.index });
      if (connection.index === 0) ws.send(JSON.stringify({ action: 'want', data: ['blocks'] }));
      subscribe();
      // A block mined while we were away: let the watchers look now.
      if (connection.index === 0) announce(null);
      connection.pingTimer = setInterval(() => {
        if (clock.now() - connection.lastHeardAt > idleTimeoutMs) ws.terminate();
        else ws.send(JSON.stringify({ action: 'ping' }));
      }, Math.max(1_000, Math.floor(idleTimeoutMs / 3)));
    });
    ws.on('message', (data) => onMessage(connection, data));
    ws.on('error', (error) => {
      lastError = error.message;
    });
    ws.on('close', () => {
      if (connection.ws !== ws) return;
      clearInterval(connection.pingTimer);
      const wasOpen = connection.open;
      connection.open = false;
      connection.ws = null;
      connection.sentKey = '';
      if (wasOpen) log.warn('mempool socket closed; reconnecting', { url: options.url, connection: connection.index });
      subscribe();
      scheduleReconnect(connection);
    });
  }

  function shutdown(): void {
    closed = true;
    for (const connection of connections.splice(0)) {
      clearTimeout(connection.retryTimer);
      clearInterval(connection.pingTimer);
      const ws = connection.ws;
      connection.ws = null;
      connection.open = false;
      ws?.removeAllListeners('close');
      ws?.on('error', () => {});
      ws?.terminate();
    }
    for (const member of members) member.tracked = new Set();
  }

  return {
    /** The first connection, which announces blocks, is open. */
    get connected() {
      return connections[0]?.open ?? false;
    },
    get maxAddresses() {
      return maxAddresses;
    },
    get lastError() {
      return lastError;
    },
    subscribe(subscriber: SocketSubscriber): SocketSubscription {
      const member: Member = { subscriber, wanted: [], tracked: new Set(), everTracked: new Set() };
      members.add(member);
      closed = false;
      subscribe();
      return {
        update(addresses) {
          const changed = addresses.length !== member.wanted.length || addresses.some((a, i) => member.wanted[i] !== a);
          member.wanted = [...addresses];
          if (changed) subscribe();
        },
        tracked: () => member.tracked,
        close() {
          members.delete(member);
          if (members.size === 0) shutdown();
          else subscribe();
        },
      };
    },
    close: shutdown,
  };
}

export type MempoolSocket = ReturnType<typeof createMempoolSocket>;

function heightOf(block: unknown): number | null {
  const height = (block as { height?: unknown } | null)?.height;
  return Number.isSafeInteger(height) ? (height as number) : null;
}
