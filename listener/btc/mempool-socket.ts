import WebSocket from 'ws';
import type { Clock } from '../clock.ts';
import type { Logger } from '../log.ts';
import { parseEsploraTx, type AddressTx } from './address-source.ts';

/**
 * What mempool.space's own backend allows per connection when its operator sets nothing
 * (`MEMPOOL.MAX_TRACKED_ADDRESSES`) is 1; packaged self-hosted instances commonly raise it to 100,
 * and mempool.space does not publish its value. The socket starts from this and adopts the limit a
 * server states in its `track-addresses-error`.
 */
export const DEFAULT_MAX_TRACKED_ADDRESSES = 100;

/** One watcher's share of a socket: the addresses it wants tracked, and what it hears back. */
export interface SocketSubscriber {
  /** Newly seen unconfirmed transactions of its addresses (and ones the server says left the mempool). */
  onTransactions(added: AddressTx[], removed: string[]): void;
  /** A new block was announced (its height when the server says): read the chain now rather than at the next poll. */
  onBlock(height: number | null): void;
  /** Addresses just subscribed (after a connect or a change): anything they received before is not pushed. */
  onSubscribed(addresses: string[]): void;
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
 * One mempool.space WebSocket (`/api/v1/ws`) shared by every watcher of a source: it asks for
 * blocks (`want`) and tracks the union of the subscribers' addresses (`track-addresses`), up to the
 * server's limit, taking each subscriber's most important addresses in turn so one merchant with
 * many invoices cannot crowd out another. It reconnects with exponential backoff and jitter and
 * subscribes again; what was pushed while it was down is not replayed, so subscribers poll the
 * addresses `onSubscribed` names once.
 */
export function createMempoolSocket(options: MempoolSocketOptions) {
  const { clock, logger } = options;
  const log = logger.child({ component: 'mempool-socket' });
  const random = options.random ?? Math.random;
  const maxBackoffMs = options.maxBackoffMs ?? 60_000;
  const idleTimeoutMs = options.idleTimeoutMs ?? 90_000;
  const connect = options.connect ?? ((url: string) => new WebSocket(url, { handshakeTimeout: 15_000 }));
  let maxAddresses = options.maxAddresses ?? DEFAULT_MAX_TRACKED_ADDRESSES;

  interface Member {
    subscriber: SocketSubscriber;
    wanted: readonly string[];
    tracked: Set<string>;
  }
  const members = new Set<Member>();
  let socket: WebSocket | null = null;
  let open = false;
  let closed = true;
  let failures = 0;
  let retryTimer: NodeJS.Timeout | undefined;
  let pingTimer: NodeJS.Timeout | undefined;
  let lastHeardAt = 0;
  let sentKey = '';
  let lastError: string | null = null;

  function chooseTracked(): Map<Member, Set<string>> {
    const chosen = new Map<Member, Set<string>>([...members].map((m) => [m, new Set<string>()]));
    const taken = new Set<string>();
    for (let rank = 0; taken.size < maxAddresses; rank++) {
      let any = false;
      for (const member of members) {
        const address = member.wanted[rank];
        if (address === undefined) continue;
        any = true;
        if (taken.size >= maxAddresses) break;
        taken.add(address);
        chosen.get(member)!.add(address);
      }
      if (!any) break;
    }
    return chosen;
  }

  function subscribe(): void {
    if (!open || !socket) return;
    const chosen = chooseTracked();
    const all = new Set<string>();
    for (const addresses of chosen.values()) for (const a of addresses) all.add(a);
    const key = [...all].sort().join(',');
    if (key !== sentKey) {
      socket.send(JSON.stringify({ 'track-addresses': [...all] }));
      sentKey = key;
    }
    for (const [member, addresses] of chosen) {
      const fresh = [...addresses].filter((a) => !member.tracked.has(a));
      member.tracked = addresses;
      if (fresh.length) member.subscriber.onSubscribed(fresh);
    }
  }

  function dropTracked(): void {
    for (const member of members) member.tracked = new Set();
    sentKey = '';
  }

  function onMessage(data: WebSocket.RawData): void {
    lastHeardAt = clock.now();
    let message: Record<string, unknown>;
    try {
      message = JSON.parse(data.toString());
    } catch {
      return;
    }
    if (message.block) {
      const height = (message.block as { height?: unknown }).height;
      for (const member of members) member.subscriber.onBlock(Number.isSafeInteger(height) ? (height as number) : null);
    }
    const error = message['track-addresses-error'];
    if (typeof error === 'string') {
      const stated = Number(/maximum of (\d+)/.exec(error)?.[1]);
      const next = Number.isSafeInteger(stated) && stated > 0 ? stated : Math.max(1, Math.floor(maxAddresses / 2));
      log.warn('mempool socket refused the tracked addresses; tracking fewer', { error, max_addresses: next });
      maxAddresses = next;
      dropTracked();
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

  function scheduleReconnect(): void {
    if (closed) return;
    failures++;
    const base = Math.min(maxBackoffMs, 1_000 * 2 ** (failures - 1));
    const wait = Math.round(base / 2 + (random() * base) / 2);
    retryTimer = setTimeout(start, wait);
  }

  function start(): void {
    if (closed) return;
    let ws: WebSocket;
    try {
      ws = connect(options.url);
    } catch (error) {
      lastError = error instanceof Error ? error.message : String(error);
      scheduleReconnect();
      return;
    }
    socket = ws;
    ws.on('open', () => {
      if (socket !== ws) return;
      open = true;
      failures = 0;
      lastError = null;
      lastHeardAt = clock.now();
      log.info('mempool socket connected', { url: options.url });
      ws.send(JSON.stringify({ action: 'want', data: ['blocks'] }));
      subscribe();
      // A block mined while we were away: let the watchers look now.
      for (const member of members) member.subscriber.onBlock(null);
      pingTimer = setInterval(() => {
        if (clock.now() - lastHeardAt > idleTimeoutMs) ws.terminate();
        else ws.send(JSON.stringify({ action: 'ping' }));
      }, Math.max(1_000, Math.floor(idleTimeoutMs / 3)));
    });
    ws.on('message', onMessage);
    ws.on('error', (error) => {
      lastError = error.message;
    });
    ws.on('close', () => {
      if (socket !== ws) return;
      clearInterval(pingTimer);
      const wasOpen = open;
      open = false;
      socket = null;
      dropTracked();
      if (wasOpen) log.warn('mempool socket closed; reconnecting', { url: options.url });
      scheduleReconnect();
    });
  }

  return {
    get connected() {
      return open;
    },
    get maxAddresses() {
      return maxAddresses;
    },
    get lastError() {
      return lastError;
    },
    subscribe(subscriber: SocketSubscriber): SocketSubscription {
      const member: Member = { subscriber, wanted: [], tracked: new Set() };
      members.add(member);
      if (closed) {
        closed = false;
        start();
      }
      return {
        update(addresses) {
          const changed = addresses.length !== member.wanted.length || addresses.some((a, i) => member.wanted[i] !== a);
          member.wanted = [...addresses];
          if (changed) subscribe();
        },
        tracked: () => (open ? member.tracked : new Set<string>()),
        close() {
          members.delete(member);
          if (members.size === 0) shutdown();
          else subscribe();
        },
      };
    },
    close: shutdown,
  };

  function shutdown(): void {
    closed = true;
    clearTimeout(retryTimer);
    clearInterval(pingTimer);
    const ws = socket;
    socket = null;
    open = false;
    dropTracked();
    ws?.removeAllListeners('close');
    ws?.on('error', () => {});
    ws?.terminate();
  }
}

export type MempoolSocket = ReturnType<typeof createMempoolSocket>;
