import type { AddressInfo } from 'node:net';
import { matchFilter, type Filter } from 'nostr-tools/filter';
import { isAddressableKind, isEphemeralKind, isReplaceableKind } from 'nostr-tools/kinds';
import type { Event } from 'nostr-tools/pure';
import { verifyNostrEvent } from '../core/nostr/event-signature.ts';
import { WebSocket, WebSocketServer, type RawData } from 'ws';

export interface NostrRelayOptions {
  host?: string;
  /** 0 (the default) takes any free port. */
  port?: number;
  /** Open subscriptions one connection may hold; a REQ past it is CLOSED. */
  maxSubscriptionsPerConnection?: number;
  /** Largest message the relay reads; a longer one is answered with a NOTICE and ignored. */
  maxMessageBytes?: number;
  /**
   * Whether events must have a valid id and signature (the default). False models a relay that
   * forwards whatever it gets, so a client's own checks of the events it reads can be tested.
   */
  verifySignatures?: boolean;
  /** Events kept in memory (10,000 by default); past it the earliest arrived are forgotten, as a relay prunes its store. */
  maxStoredEvents?: number;
}

export interface NostrRelay {
  /** ws://host:port */
  readonly url: string;
  connectionCount(): number;
  subscriptionCount(): number;
  /** Sends a raw text frame to every connected client: tests use it for garbage and floods. */
  broadcastRaw(frame: string): void;
  /** Drops every connection, as a relay restart or a network cut would (clients must reconnect). */
  dropConnections(): void;
  close(): Promise<void>;
}

type Subscriptions = Map<string, Filter[]>;

// NIP-01: "subscription_id is an arbitrary, non-empty string of max length 64 chars".
const MAX_SUBSCRIPTION_ID_LENGTH = 64;
const FILTER_LIST_FIELDS = ['ids', 'authors'] as const;
const FILTER_NUMBER_FIELDS = ['since', 'until', 'limit'] as const;

/**
 * The sandbox's Nostr relay: NIP-01 over WebSocket, in memory, for testing Nostr Wallet Connect
 * without the internet. It checks each event's id and signature, keeps regular events (newest
 * `maxStoredEvents`), keeps only the latest replaceable (0, 3, 10000-19999) and addressable
 * (30000-39999, per `d` tag) event, and forwards ephemeral events (20000-29999) to live
 * subscriptions without storing them, as NIP-01 requires of a relay.
 */
export async function startNostrRelay(options: NostrRelayOptions = {}): Promise<NostrRelay> {
  const maxSubscriptions = options.maxSubscriptionsPerConnection ?? 64;
  const maxMessageBytes = options.maxMessageBytes ?? 256 * 1024;
  const verifySignatures = options.verifySignatures ?? true;
  const store = createEventStore(options.maxStoredEvents ?? 10_000);
  // ws reads up to this much before closing the connection (1009); between maxMessageBytes and
  // here, the relay reads the message only to say it is too large.
  const server = new WebSocketServer({ host: options.host ?? '127.0.0.1', port: options.port ?? 0, maxPayload: maxMessageBytes * 4 });
  const connections = new Map<WebSocket, Subscriptions>();

  const send = (client: WebSocket, message: unknown[]) => {
    if (client.readyState === WebSocket.OPEN) client.send(JSON.stringify(message));
  };

  function publish(client: WebSocket, event: unknown): void {
    if (!isEventShaped(event)) return send(client, ['NOTICE', 'invalid: EVENT needs an event object']);
    if (verifySignatures && !verifyNostrEvent(event)) return send(client, ['OK', event.id, false, 'invalid: bad event id or signature']);
    const outcome = store.add(event);
    send(client, ['OK', event.id, outcome.accepted, outcome.message]);
    if (!outcome.fresh) return;
    for (const [subscriber, subscriptions] of connections) {
      for (const [subscriptionId, filters] of subscriptions) {
        if (filters.some((filter) => matchFilter(filter, event))) send(subscriber, ['EVENT', subscriptionId, event]);
      }
    }
  }

  function subscribe(client: WebSocket, subscriptions: Subscriptions, subscriptionId: unknown, filters: unknown[]): void {
    if (!isSubscriptionId(subscriptionId)) return send(client, ['NOTICE', 'invalid: bad subscription id']);
    const problem = filters.map(filterProblem).find((found) => found !== null);
    if (problem) return send(client, ['CLOSED', subscriptionId, `invalid: ${problem}`]);
    if (!subscriptions.has(subscriptionId) && subscriptions.size >= maxSubscriptions) {
      return send(client, ['CLOSED', subscriptionId, 'error: too many subscriptions']);
    }
    subscriptions.set(subscriptionId, filters as Filter[]);
    for (const event of store.query(filters as Filter[])) send(client, ['EVENT', subscriptionId, event]);
    send(client, ['EOSE', subscriptionId]);
  }

  function onMessage(client: WebSocket, subscriptions: Subscriptions, data: RawData, isBinary: boolean): void {
    const bytes = rawLength(data);
    if (bytes > maxMessageBytes) return send(client, ['NOTICE', `error: message too large (${bytes} bytes, limit ${maxMessageBytes})`]);
    if (isBinary) return send(client, ['NOTICE', 'error: binary messages are not supported']);
    let message: unknown;
    try {
      message = JSON.parse(data.toString());
    } catch {
      return send(client, ['NOTICE', 'error: could not parse message as JSON']);
    }
    if (!Array.isArray(message) || typeof message[0] !== 'string') {
      return send(client, ['NOTICE', 'error: a message is a JSON array starting with a verb']);
    }
    const [verb, ...rest] = message;
    if (verb === 'EVENT') return publish(client, rest[0]);
    if (verb === 'REQ') return subscribe(client, subscriptions, rest[0], rest.slice(1));
    if (verb === 'CLOSE') {
      if (!isSubscriptionId(rest[0])) return send(client, ['NOTICE', 'invalid: bad subscription id']);
      subscriptions.delete(rest[0]);
      return;
    }
    send(client, ['NOTICE', `error: unknown message type ${JSON.stringify(verb).slice(0, 40)}`]);
  }

  server.on('connection', (client: WebSocket) => {
    const subscriptions: Subscriptions = new Map();
    connections.set(client, subscriptions);
    client.on('message', (data, isBinary) => onMessage(client, subscriptions, data, isBinary));
    client.on('close', () => connections.delete(client));
    client.on('error', () => client.terminate());
  });

  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;

  return {
    url: `ws://${host}:${address.port}`,
    connectionCount: () => connections.size,
    subscriptionCount: () => [...connections.values()].reduce((sum, subscriptions) => sum + subscriptions.size, 0),
    broadcastRaw(frame) {
      for (const client of connections.keys()) if (client.readyState === WebSocket.OPEN) client.send(frame);
    },
    dropConnections() {
      for (const client of connections.keys()) client.terminate();
      connections.clear();
    },
    close() {
      for (const client of connections.keys()) client.terminate();
      connections.clear();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

interface AddOutcome {
  accepted: boolean;
  /** NIP-01 OK message: empty, or a machine-readable prefix and a reason. */
  message: string;
  /** A new event subscribers have not seen: forwarded to live subscriptions. */
  fresh: boolean;
}

/** Stored events; replaceable and addressable ones by their slot, ephemeral ones never. */
function createEventStore(maxStoredEvents: number) {
  const byId = new Map<string, Event>();
  const bySlot = new Map<string, Event>();

  const slotOf = (event: Event): string | null => {
    if (isReplaceableKind(event.kind)) return `${event.pubkey}:${event.kind}`;
    if (isAddressableKind(event.kind)) return `${event.pubkey}:${event.kind}:${event.tags.find((tag) => tag[0] === 'd')?.[1] ?? ''}`;
    return null;
  };

  const forget = (event: Event) => {
    byId.delete(event.id);
    const slot = slotOf(event);
    if (slot && bySlot.get(slot)?.id === event.id) bySlot.delete(slot);
  };

  return {
    add(event: Event): AddOutcome {
      if (isEphemeralKind(event.kind)) return { accepted: true, message: '', fresh: true };
      if (byId.has(event.id)) return { accepted: true, message: 'duplicate: already have this event', fresh: false };
      const slot = slotOf(event);
      const current = slot ? bySlot.get(slot) : undefined;
      if (slot && current) {
        // NIP-01: the newer one wins; at equal created_at, the lowest id.
        if (newerFirst(current, event) < 0) return { accepted: true, message: 'duplicate: have a newer event', fresh: false };
        forget(current);
      }
      if (slot) bySlot.set(slot, event);
      byId.set(event.id, event);
      // Forgets the one that arrived first: a flood cannot make every add sort the whole store.
      if (byId.size > maxStoredEvents) forget(byId.values().next().value as Event);
      return { accepted: true, message: '', fresh: true };
    },
    /** Each filter's stored matches, newest first and cut at its limit, merged without repeats. */
    query(filters: Filter[]): Event[] {
      const found = new Map<string, Event>();
      const newestFirst = [...byId.values()].sort(newerFirst);
      for (const filter of filters) {
        const matches = newestFirst.filter((event) => matchFilter(filter, event));
        for (const event of matches.slice(0, filter.limit ?? matches.length)) found.set(event.id, event);
      }
      return [...found.values()].sort(newerFirst);
    },
  };
}

function newerFirst(a: Event, b: Event): number {
  return b.created_at - a.created_at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

function isEventShaped(value: unknown): value is Event {
  if (typeof value !== 'object' || value === null) return false;
  const event = value as Record<string, unknown>;
  return (
    typeof event.id === 'string' &&
    typeof event.pubkey === 'string' &&
    typeof event.sig === 'string' &&
    typeof event.content === 'string' &&
    Number.isInteger(event.kind) &&
    Number.isInteger(event.created_at) &&
    Array.isArray(event.tags) &&
    event.tags.every((tag) => Array.isArray(tag) && tag.every((item) => typeof item === 'string'))
  );
}

function isSubscriptionId(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= MAX_SUBSCRIPTION_ID_LENGTH;
}

/** Why a REQ filter is unusable, or null: NIP-01 fields only, each of its type. */
function filterProblem(value: unknown): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'a filter is a JSON object';
  const filter = value as Record<string, unknown>;
  const isStringList = (field: unknown) => Array.isArray(field) && field.every((item) => typeof item === 'string');
  for (const [key, field] of Object.entries(filter)) {
    if ((FILTER_LIST_FIELDS as readonly string[]).includes(key) || /^#[a-zA-Z]$/.test(key)) {
      if (!isStringList(field)) return `${key} must be a list of strings`;
    } else if (key === 'kinds') {
      if (!Array.isArray(field) || !field.every((kind) => Number.isInteger(kind))) return 'kinds must be a list of integers';
    } else if ((FILTER_NUMBER_FIELDS as readonly string[]).includes(key)) {
      if (!Number.isInteger(field) || (field as number) < 0) return `${key} must be a non-negative integer`;
    } else {
      return `unsupported filter field ${JSON.stringify(key).slice(0, 40)}`;
    }
  }
  return null;
}

function rawLength(data: RawData): number {
  if (Array.isArray(data)) return data.reduce((sum, chunk) => sum + chunk.length, 0);
  return data instanceof ArrayBuffer ? data.byteLength : data.length;
}
