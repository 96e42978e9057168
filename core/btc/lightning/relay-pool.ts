import WebSocket from 'ws';
import { validateEvent, type Event, type VerifiedEvent } from 'nostr-tools/pure';
import { verifyNostrEvent } from '../../nostr/event-signature.ts';
import type { Clock } from '../../clock.ts';
import type { Logger } from '../../log.ts';
import { exponentialBackoffMs } from '../../net/backoff.ts';
import { publicOnlyLookup, refuseNonPublicIpLiteral } from '../../net/public-lookup.ts';
import type { Resolver } from '../../net/webhook-target.ts';

/** A party listening on the pool: the events one wallet sends one client (Nostr Wallet Connect). */
export interface RelayListener {
  walletPubkey: string;
  clientPubkey: string;
  kinds: readonly number[];
  /** Called once per event id, with events whose id and signature checked, from `walletPubkey`, tagged to `clientPubkey`. */
  onEvent(event: VerifiedEvent): void;
}

export interface RelayPoolLimits {
  /** Listeners folded into one REQ (its filter lists their keys). */
  listenersPerSubscription: number;
  /** REQs open on one relay socket; a listener beyond them is refused. */
  subscriptionsPerRelay: number;
  /** Frames a relay may send in one second before it is cut off as a flood. */
  framesPerSecond: number;
  /** Unreadable frames (bad JSON, bad signature, unknown shape) a relay may send in a minute before it is cut off. */
  garbagePerMinute: number;
  /** Largest frame taken; a larger one closes the socket. */
  maxFrameBytes: number;
}

export const DEFAULT_RELAY_LIMITS: RelayPoolLimits = {
  listenersPerSubscription: 100,
  subscriptionsPerRelay: 50,
  framesPerSecond: 500,
  garbagePerMinute: 20,
  maxFrameBytes: 256 * 1024,
};

export interface RelayPoolOptions {
  clock: Clock;
  logger: Logger;
  limits?: Partial<RelayPoolLimits>;
  /** Reconnect waits: baseMs, doubling, at most maxMs; a relay cut off for garbage waits the most. */
  retry?: { baseMs: number; maxMs: number };
  /** Opens a socket (tests pass their own; publicOnlyConnect for relays merchants name). May throw to refuse the relay, which is retried later. */
  connect?: RelayConnect;
}

export type RelayConnect = (url: string, maxFrameBytes: number) => WebSocket;

export interface RelayHealth {
  relay: string;
  connected: boolean;
  listeners: number;
  subscriptions: number;
  /** Why the relay is not serving now (down, cut off for garbage or a flood); null while it serves. */
  problem: string | null;
  cut_offs: number;
}

export class RelayCapacityError extends Error {}

interface Group {
  subId: string;
  listeners: Set<RelayListener>;
}

interface OneShot {
  filter: Record<string, unknown>;
  events: VerifiedEvent[];
  done(events: VerifiedEvent[]): void;
}

interface PendingPublish {
  event: Event;
  settle(accepted: boolean, message: string): void;
}

/** How many recent event ids are remembered, so an event relayed by several relays (or replayed) is delivered once. */
const SEEN_EVENT_IDS = 10_000;

const socketOptions = (maxFrameBytes: number): WebSocket.ClientOptions => ({ maxPayload: maxFrameBytes, handshakeTimeout: 10_000 });

const defaultConnect: RelayConnect = (url, maxFrameBytes) => new WebSocket(url, socketOptions(maxFrameBytes));

/**
 * Connects only to public addresses, on every dial: the relay's host is resolved and checked by the
 * socket's own lookup (ws hands `lookup` to http/https.request), so the address checked is the one
 * connected to and a name that rebinds to 127.0.0.1 or 169.254.169.254 later is refused then. A
 * private IP literal, which node dials without a lookup, is refused here.
 */
export function publicOnlyConnect(resolve?: Resolver): RelayConnect {
  const lookup = publicOnlyLookup(resolve);
  return (url, maxFrameBytes) => {
    refuseNonPublicIpLiteral(new URL(url).hostname);
    return new WebSocket(url, { ...socketOptions(maxFrameBytes), lookup });
  };
}

/** What a relay's problem reads before its first socket opens or fails. */
const CONNECTING = 'connecting';

/** What every relay connection of one pool shares. */
interface PoolContext {
  limits: RelayPoolLimits;
  retry: { baseMs: number; maxMs: number };
  connect: RelayConnect;
  clock: Clock;
  logger: Logger;
  isClosed(): boolean;
  /** True the first time an event id is seen: an event relayed by several relays (or replayed) is delivered once. */
  firstTime(id: string): boolean;
  nextId(prefix: string): string;
}

/** One relay socket of the pool: its subscriptions, one-shot queries and publishes, reconnects and cut-offs. */
class RelayConnection {
  ws: WebSocket | null = null;
  open = false;
  failures = 0;
  cutOffs = 0;
  problem: string | null = CONNECTING;
  timer: NodeJS.Timeout | null = null;
  groups: Group[] = [];
  oneShots = new Map<string, OneShot>();
  publishes = new Map<string, PendingPublish[]>();
  frameWindow = { start: 0, count: 0 };
  garbageWindow = { start: 0, count: 0 };
  dirty = new Set<Group>();

  constructor(
    readonly url: string,
    private readonly pool: PoolContext,
  ) {
    this.dial();
  }

  dial() {
    if (this.pool.isClosed()) return;
    let ws: WebSocket;
    try {
      ws = this.pool.connect(this.url, this.pool.limits.maxFrameBytes);
    } catch (error) {
      // Refused before any socket exists (a private IP literal, a bad URL): waits and retries like a drop.
      this.failed(error as Error);
      this.retryLater();
      return;
    }
    this.ws = ws;
    ws.on('open', () => {
      this.open = true;
      this.failures = 0;
      this.problem = null;
      for (const group of this.groups) this.sendReq(group);
      for (const [subId, shot] of this.oneShots) this.send(['REQ', subId, shot.filter]);
      for (const pending of this.publishes.values()) for (const p of pending) this.send(['EVENT', p.event]);
    });
    ws.on('message', (data, isBinary) => this.receive(isBinary ? null : data.toString()));
    ws.on('error', (error) => this.failed(error));
    ws.on('close', () => this.dropped());
  }

  /** The latest error is the relay's problem: a refused lookup reads as such, not as a bare disconnection. */
  failed(error: Error) {
    this.problem = `relay error: ${error.message}`;
  }

  dropped() {
    if (this.ws === null) return;
    this.ws = null;
    this.open = false;
    this.retryLater();
  }

  /** Dials again after the backoff of one more failure. */
  retryLater() {
    if (this.pool.isClosed()) return;
    this.failures += 1;
    this.problem = this.problem && this.problem !== CONNECTING ? this.problem : 'relay disconnected; reconnecting';
    const wait = exponentialBackoffMs(this.failures, this.pool.retry.baseMs, this.pool.retry.maxMs);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.dial();
    }, wait);
    this.timer.unref?.();
  }

  cutOff(why: string) {
    this.cutOffs += 1;
    this.failures = Math.max(this.failures, 6);
    this.problem = `cut off: ${why}`;
    this.pool.logger.warn('nostr relay cut off', { relay: this.url, reason: why });
    this.ws?.terminate();
  }

  send(message: unknown[]) {
    if (this.open && this.ws?.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(message));
  }

  sendReq(group: Group) {
    if (group.listeners.size === 0) {
      this.send(['CLOSE', group.subId]);
      return;
    }
    const listeners = [...group.listeners];
    this.send([
      'REQ',
      group.subId,
      {
        kinds: [...new Set(listeners.flatMap((l) => l.kinds))],
        authors: [...new Set(listeners.map((l) => l.walletPubkey))],
        '#p': [...new Set(listeners.map((l) => l.clientPubkey))],
        // Wallet events are ephemeral: nothing older is stored; a short look back covers a reconnect.
        since: Math.floor(this.pool.clock.now() / 1000) - 60,
      },
    ]);
  }

  /** Folds the REQ changes of one tick into one frame per group. */
  changed(group: Group) {
    if (this.dirty.size === 0) {
      queueMicrotask(() => {
        for (const g of this.dirty) this.sendReq(g);
        this.dirty.clear();
      });
    }
    this.dirty.add(group);
  }

  add(listener: RelayListener) {
    let group = this.groups.find((g) => g.listeners.size < this.pool.limits.listenersPerSubscription);
    if (!group) {
      if (this.groups.length >= this.pool.limits.subscriptionsPerRelay) {
        throw new RelayCapacityError(`relay ${this.url} already carries ${this.groups.length * this.pool.limits.listenersPerSubscription} wallet connections`);
      }
      group = { subId: this.pool.nextId('nwc'), listeners: new Set() };
      this.groups.push(group);
    }
    group.listeners.add(listener);
    this.changed(group);
    return group;
  }

  remove(group: Group, listener: RelayListener) {
    if (!group.listeners.delete(listener)) return;
    this.changed(group);
  }

  tally(window: { start: number; count: number }, spanMs: number): number {
    const now = this.pool.clock.now();
    if (now - window.start >= spanMs) {
      window.start = now;
      window.count = 0;
    }
    window.count += 1;
    return window.count;
  }

  garbage(why: string) {
    if (this.tally(this.garbageWindow, 60_000) > this.pool.limits.garbagePerMinute) this.cutOff(`sent garbage (${why})`);
  }

  receive(text: string | null) {
    if (this.tally(this.frameWindow, 1_000) > this.pool.limits.framesPerSecond) {
      this.cutOff(`flooded: more than ${this.pool.limits.framesPerSecond} frames in a second`);
      return;
    }
    let message: unknown;
    try {
      message = text === null ? null : JSON.parse(text);
    } catch {
      message = null;
    }
    if (!Array.isArray(message) || typeof message[0] !== 'string') return this.garbage('not a NIP-01 message');
    const [verb, first, second, third] = message as [string, unknown, unknown, unknown];
    if (verb === 'EVENT' && typeof first === 'string') return this.event(first, second);
    if (verb === 'EOSE' && typeof first === 'string') return this.endOfStored(first);
    if (verb === 'OK' && typeof first === 'string') return this.accepted(first, second === true, typeof third === 'string' ? third : '');
    if (verb === 'CLOSED' && typeof first === 'string') {
      this.problem = `relay closed subscription: ${String(second ?? '')}`.slice(0, 200);
      return;
    }
    if (verb === 'NOTICE' || verb === 'AUTH') return;
    this.garbage(`unknown verb ${verb.slice(0, 20)}`);
  }

  event(subId: string, raw: unknown) {
    if (!validateEvent(raw) || !verifyNostrEvent(raw as Event)) return this.garbage('an event whose id or signature does not check');
    const event = raw as VerifiedEvent;
    const shot = this.oneShots.get(subId);
    if (shot) {
      shot.events.push(event);
      return;
    }
    const group = this.groups.find((g) => g.subId === subId);
    if (!group) return;
    const tagged = new Set(event.tags.filter((t) => t[0] === 'p').map((t) => t[1]));
    const listeners = [...group.listeners].filter((l) => l.walletPubkey === event.pubkey && tagged.has(l.clientPubkey) && l.kinds.includes(event.kind));
    if (listeners.length === 0 || !this.pool.firstTime(event.id)) return;
    for (const listener of listeners) listener.onEvent(event);
  }

  endOfStored(subId: string) {
    const shot = this.oneShots.get(subId);
    if (!shot) return;
    this.oneShots.delete(subId);
    this.send(['CLOSE', subId]);
    shot.done(shot.events);
  }

  accepted(eventId: string, ok: boolean, message: string) {
    const pending = this.publishes.get(eventId);
    if (!pending) return;
    this.publishes.delete(eventId);
    for (const p of pending) p.settle(ok, message);
  }

  close() {
    if (this.timer) clearTimeout(this.timer);
    const ws = this.ws;
    this.ws = null;
    this.open = false;
    ws?.terminate();
    for (const shot of this.oneShots.values()) shot.done(shot.events);
    this.oneShots.clear();
    for (const pending of this.publishes.values()) for (const p of pending) p.settle(false, 'pool closed');
    this.publishes.clear();
  }
}


/**
 * Nostr relays shared by every Nostr Wallet Connect connection of the process: one socket per relay
 * URL whichever merchants use it, the listeners folded into a bounded number of REQs. Nothing a relay
 * says is believed without the author's signature: events are checked here (id and signature) and
 * delivered only to the listener whose wallet signed them and whose client they are tagged to. A relay
 * that floods or sends garbage is cut off and retried later; one that drops is reconnected with backoff.
 */
export function createRelayPool(options: RelayPoolOptions) {
  const limits = { ...DEFAULT_RELAY_LIMITS, ...options.limits };
  const retry = options.retry ?? { baseMs: 1_000, maxMs: 60_000 };
  const connect = options.connect ?? defaultConnect;
  const relays = new Map<string, RelayConnection>();
  const seen = new Set<string>();
  let closed = false;
  let nextId = 0;
  const context: PoolContext = {
    limits,
    retry,
    connect,
    clock: options.clock,
    logger: options.logger,
    isClosed: () => closed,
    firstTime(id) {
      if (seen.has(id)) return false;
      seen.add(id);
      if (seen.size > SEEN_EVENT_IDS) seen.delete(seen.values().next().value!);
      return true;
    },
    nextId: (prefix) => `${prefix}${nextId++}`,
  };

  const relayOf = (url: string) => {
    if (closed) throw new Error('relay pool closed');
    let relay = relays.get(url);
    if (!relay) {
      relay = new RelayConnection(url, context);
      relays.set(url, relay);
    }
    return relay;
  };

  return {
    /** Starts delivering `listener`'s events from each of `urls`; refused (RelayCapacityError) on a relay that carries its maximum. */
    listen(urls: readonly string[], listener: RelayListener): { close(): void } {
      const joined: Array<[RelayConnection, Group]> = [];
      try {
        for (const url of urls) {
          const relay = relayOf(url);
          joined.push([relay, relay.add(listener)]);
        }
      } catch (error) {
        for (const [relay, group] of joined) relay.remove(group, listener);
        throw error;
      }
      return { close: () => joined.forEach(([relay, group]) => relay.remove(group, listener)) };
    },

    /** Sends `event` to every relay of `urls`; resolves once one accepts it, rejects when none does within `timeoutMs`. */
    publish: (urls: readonly string[], event: Event, timeoutMs: number): Promise<void> => publishOn(urls.map(relayOf), event, timeoutMs),

    /** The stored events matching `filter` on `urls` (a replaceable event: the wallet's info), checked like any event. */
    query: (urls: readonly string[], filter: Record<string, unknown>, timeoutMs: number): Promise<VerifiedEvent[]> =>
      Promise.all(urls.map((url) => queryOn(relayOf(url), context.nextId('q'), filter, timeoutMs))).then((lists) => lists.flat()),

    health(): RelayHealth[] {
      return [...relays.values()].map((relay) => ({
        relay: relay.url,
        connected: relay.open,
        listeners: relay.groups.reduce((sum, g) => sum + g.listeners.size, 0),
        subscriptions: relay.groups.filter((g) => g.listeners.size > 0).length,
        problem: relay.open ? null : relay.problem,
        cut_offs: relay.cutOffs,
      }));
    },

    close() {
      closed = true;
      for (const relay of relays.values()) relay.close();
      relays.clear();
    },
  };
}

export type RelayPool = ReturnType<typeof createRelayPool>;

function publishOn(relays: RelayConnection[], event: Event, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let refusals = 0;
    let settled = false;
    const finish = (error: Error | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error) reject(error);
      else resolve();
    };
    const timer = setTimeout(() => finish(new Error(`no relay accepted the request within ${timeoutMs} ms`)), timeoutMs);
    for (const relay of relays) {
      const pending = relay.publishes.get(event.id) ?? [];
      pending.push({
        event,
        settle: (accepted, message) => {
          if (accepted) return finish(null);
          refusals += 1;
          if (refusals === relays.length) finish(new Error(`every relay refused the request: ${message}`));
        },
      });
      relay.publishes.set(event.id, pending);
      relay.send(['EVENT', event]);
    }
  });
}

function queryOn(relay: RelayConnection, subId: string, filter: Record<string, unknown>, timeoutMs: number): Promise<VerifiedEvent[]> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => relay.endOfStored(subId), timeoutMs);
    relay.oneShots.set(subId, {
      filter,
      events: [],
      done: (events) => {
        clearTimeout(timer);
        resolve(events);
      },
    });
    relay.send(['REQ', subId, filter]);
  });
}
