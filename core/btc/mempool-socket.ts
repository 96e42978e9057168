import WebSocket from 'ws';
import { oversizedFrames } from '../net/bounded-body.ts';
import { sourceLabel } from '../net/request-budget.ts';
import { MAX_ADDRESS_PAGE_BYTES } from './answer-caps.ts';
import type { Clock } from '../clock.ts';
import type { Logger } from '../log.ts';
import type { AddressTx } from './address-source.ts';
import {
  chooseTracked,
  connectionsNeeded,
  isSilent,
  maxAddressesAfterRefusal,
  pingIntervalMs,
  readSocketMessage,
  reconnectDelayMs,
  shareOf,
  trackingChange,
  transactionsOf,
} from './mempool-socket-decisions.ts';

/**
 * What mempool.space's own backend allows per connection when its operator sets nothing
 * (`MEMPOOL.MAX_TRACKED_ADDRESSES`) is 1; packaged self-hosted instances commonly raise it to 100,
 * and mempool.space does not publish its value. The socket starts from this and adopts the limit a
 * server states in its `track-addresses-error`.
 */
export const DEFAULT_MAX_TRACKED_ADDRESSES = 100;
/** Connections per source at most: 1,000 open invoices tracked at mempool's usual limit of 100. */
export const DEFAULT_MAX_CONNECTIONS = 10;
/** A frame's largest size: a push carries the tracked addresses' transactions in the JSON of an address page. */
export const MAX_SOCKET_FRAME_BYTES = MAX_ADDRESS_PAGE_BYTES;

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
  const state = initialState(options);
  return {
    /** The first connection, which announces blocks, is open. */
    get connected() {
      return state.connections[0]?.open ?? false;
    },
    get maxAddresses() {
      return state.maxAddresses;
    },
    get lastError() {
      return state.lastError;
    },
    subscribe: (subscriber: SocketSubscriber): SocketSubscription => join(state, subscriber),
    close: () => shutdown(state),
  };
}

export type MempoolSocket = ReturnType<typeof createMempoolSocket>;

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
  /** Frames over the cap in a row: each lengthens the reconnect wait as a failed connection does. */
  frames: ReturnType<typeof oversizedFrames>;
  /** The addresses this connection should track, and what it last sent. */
  share: string[];
  sentKey: string;
  retryTimer?: NodeJS.Timeout;
  pingTimer?: NodeJS.Timeout;
  lastHeardAt: number;
}

interface SocketState {
  url: string;
  clock: Clock;
  log: Logger;
  random: () => number;
  maxBackoffMs: number;
  idleTimeoutMs: number;
  maxConnections: number;
  connect: (url: string) => WebSocket;
  /** Lowered when a server states a smaller limit. */
  maxAddresses: number;
  members: Set<Member>;
  connections: Connection[];
  /** No subscriber: nothing is connected or reconnected. */
  closed: boolean;
  lastError: string | null;
}

function initialState(options: MempoolSocketOptions): SocketState {
  return {
    url: options.url,
    clock: options.clock,
    log: options.logger.child({ component: 'mempool-socket' }),
    random: options.random ?? Math.random,
    maxBackoffMs: options.maxBackoffMs ?? 60_000,
    idleTimeoutMs: options.idleTimeoutMs ?? 90_000,
    maxConnections: options.maxConnections ?? DEFAULT_MAX_CONNECTIONS,
    // ws's own default would take frames of 100 MB: a push holds an address page's worth of transactions at most.
    connect: options.connect ?? ((url: string) => new WebSocket(url, { handshakeTimeout: 15_000, maxPayload: MAX_SOCKET_FRAME_BYTES })),
    maxAddresses: options.maxAddresses ?? DEFAULT_MAX_TRACKED_ADDRESSES,
    members: new Set(),
    connections: [],
    closed: true,
    lastError: null,
  };
}

function join(state: SocketState, subscriber: SocketSubscriber): SocketSubscription {
  const member: Member = { subscriber, wanted: [], tracked: new Set(), everTracked: new Set() };
  state.members.add(member);
  state.closed = false;
  resubscribe(state);
  return {
    update(addresses) {
      const changed = addresses.length !== member.wanted.length || addresses.some((a, i) => member.wanted[i] !== a);
      member.wanted = [...addresses];
      if (changed) resubscribe(state);
    },
    tracked: () => member.tracked,
    close() {
      state.members.delete(member);
      if (state.members.size === 0) shutdown(state);
      else resubscribe(state);
    },
  };
}

/** Brings connections, what each tracks and what each member is told in line with what the members want. */
function resubscribe(state: SocketState): void {
  if (state.closed) return;
  const wantedLists = [...state.members].map((member) => member.wanted);
  const chosen = chooseTracked(wantedLists, state.maxAddresses * state.maxConnections);
  const needed = connectionsNeeded(chosen.length, state.maxAddresses, state.maxConnections, state.connections[0]?.open ?? false);
  while (state.connections.length < needed) {
    const connection: Connection = { index: state.connections.length, ws: null, open: false, failures: 0, frames: oversizedFrames(sourceLabel(state.url), MAX_SOCKET_FRAME_BYTES), share: [], sentKey: '', lastHeardAt: 0 };
    state.connections.push(connection);
    start(state, connection);
  }
  const live = sendShares(state, chosen);
  for (const member of state.members) {
    const change = trackingChange(member.wanted, member.tracked, member.everTracked, live);
    member.tracked = change.tracked;
    member.everTracked = change.everTracked;
    if (change.resumed.length) member.subscriber.onSubscribed(change.resumed, true);
    if (change.first.length) member.subscriber.onSubscribed(change.first, false);
  }
}

/** Sends each open connection its share when it changed; returns the addresses open connections track. */
function sendShares(state: SocketState, chosen: readonly string[]): Set<string> {
  const live = new Set<string>();
  for (const connection of state.connections) {
    connection.share = shareOf(chosen, connection.index, state.maxAddresses);
    if (!connection.open || !connection.ws) continue;
    const key = connection.share.join(',');
    if (key !== connection.sentKey) {
      connection.ws.send(JSON.stringify({ 'track-addresses': connection.share }));
      connection.sentKey = key;
    }
    for (const address of connection.share) live.add(address);
  }
  return live;
}

function announce(state: SocketState, height: number | null): void {
  for (const member of state.members) member.subscriber.onBlock(height);
}

function onMessage(state: SocketState, connection: Connection, data: WebSocket.RawData): void {
  connection.lastHeardAt = state.clock.now();
  connection.frames.reset();
  const message = readSocketMessage(data.toString());
  if (!message) return;
  for (const height of message.announcements) announce(state, height);
  if (message.refusal !== null) {
    const next = maxAddressesAfterRefusal(message.refusal, state.maxAddresses);
    state.log.warn('mempool socket refused the tracked addresses; tracking fewer per connection', { error: message.refusal, max_addresses: next });
    state.maxAddresses = next;
    for (const c of state.connections) c.sentKey = '';
    resubscribe(state);
  }
  if (message.addressPush) {
    for (const member of state.members) {
      const { added, removed } = transactionsOf(message.addressPush, member.tracked);
      if (added.length || removed.length) member.subscriber.onTransactions(added, removed);
    }
  }
}

function scheduleReconnect(state: SocketState, connection: Connection): void {
  if (state.closed) return;
  connection.failures++;
  const delay = reconnectDelayMs(connection.failures + connection.frames.count, state.maxBackoffMs, state.random());
  connection.retryTimer = setTimeout(() => start(state, connection), delay);
}

function start(state: SocketState, connection: Connection): void {
  if (state.closed) return;
  let ws: WebSocket;
  try {
    ws = state.connect(state.url);
  } catch (error) {
    state.lastError = error instanceof Error ? error.message : String(error);
    scheduleReconnect(state, connection);
    return;
  }
  connection.ws = ws;
  ws.on('open', () => onOpen(state, connection, ws));
  ws.on('message', (data) => onMessage(state, connection, data));
  ws.on('error', (error) => {
    state.lastError = connection.frames.told(error);
  });
  ws.on('close', () => onClose(state, connection, ws));
}

function onOpen(state: SocketState, connection: Connection, ws: WebSocket): void {
  if (connection.ws !== ws) return;
  connection.open = true;
  connection.failures = 0;
  connection.lastHeardAt = state.clock.now();
  state.lastError = null;
  state.log.info('mempool socket connected', { url: state.url, connection: connection.index });
  if (connection.index === 0) ws.send(JSON.stringify({ action: 'want', data: ['blocks'] }));
  resubscribe(state);
  // A block mined while we were away: let the watchers look now.
  if (connection.index === 0) announce(state, null);
  connection.pingTimer = setInterval(() => {
    if (isSilent(state.clock.now(), connection.lastHeardAt, state.idleTimeoutMs)) ws.terminate();
    else ws.send(JSON.stringify({ action: 'ping' }));
  }, pingIntervalMs(state.idleTimeoutMs));
}

function onClose(state: SocketState, connection: Connection, ws: WebSocket): void {
  if (connection.ws !== ws) return;
  clearInterval(connection.pingTimer);
  const wasOpen = connection.open;
  connection.open = false;
  connection.ws = null;
  connection.sentKey = '';
  if (wasOpen) state.log.warn('mempool socket closed; reconnecting', { url: state.url, connection: connection.index });
  resubscribe(state);
  scheduleReconnect(state, connection);
}

function shutdown(state: SocketState): void {
  state.closed = true;
  for (const connection of state.connections.splice(0)) {
    clearTimeout(connection.retryTimer);
    clearInterval(connection.pingTimer);
    const ws = connection.ws;
    connection.ws = null;
    connection.open = false;
    ws?.removeAllListeners('close');
    ws?.on('error', () => {});
    ws?.terminate();
  }
  for (const member of state.members) member.tracked = new Set();
}
