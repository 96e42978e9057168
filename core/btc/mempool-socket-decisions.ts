import { exponentialBackoffMs } from '../net/backoff.ts';
import { parseEsploraTx, type AddressTx } from './address-source.ts';

/**
 * The pure decisions of the mempool socket: which addresses go to which connection, what a
 * server message means, when to reconnect and after how long. The socket applies them.
 */

/** The union of the wanted lists, one address from each list in turn, at most `room` of them. */
export function chooseTracked(wantedLists: Iterable<readonly string[]>, room: number): string[] {
  const lists = [...wantedLists];
  const chosen: string[] = [];
  const taken = new Set<string>();
  for (let rank = 0; chosen.length < room; rank++) {
    let any = false;
    for (const wanted of lists) {
      const address = wanted[rank];
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

/**
 * How many connections `chosen` addresses need. More than one only once the first is up:
 * a server refusing sockets is retried by one, not ten.
 */
export function connectionsNeeded(chosen: number, maxAddresses: number, maxConnections: number, firstOpen: boolean): number {
  return firstOpen ? Math.min(maxConnections, Math.max(1, Math.ceil(chosen / maxAddresses))) : 1;
}

/** The slice of the chosen addresses connection `index` tracks. */
export function shareOf(chosen: readonly string[], index: number, maxAddresses: number): string[] {
  return chosen.slice(index * maxAddresses, (index + 1) * maxAddresses);
}

export interface TrackingChange {
  tracked: Set<string>;
  everTracked: Set<string>;
  /** Tracked before, lost with a connection, tracked again: a gap nothing was pushed in. */
  resumed: string[];
  /** Tracked for the first time. */
  first: string[];
}

/**
 * What one subscriber's tracking becomes once `live` is what the open connections track.
 * Addresses it no longer wants are forgotten, so wanting one again later counts as first.
 */
export function trackingChange(wanted: readonly string[], tracked: ReadonlySet<string>, everTracked: ReadonlySet<string>, live: ReadonlySet<string>): TrackingChange {
  const now = new Set(wanted.filter((a) => live.has(a)));
  const fresh = [...now].filter((a) => !tracked.has(a));
  const wantedSet = new Set(wanted);
  const remembered = new Set([...everTracked].filter((a) => wantedSet.has(a)));
  const resumed = fresh.filter((a) => remembered.has(a));
  const first = fresh.filter((a) => !remembered.has(a));
  for (const address of first) remembered.add(address);
  return { tracked: now, everTracked: remembered, resumed, first };
}

type AddressPush = Record<string, { mempool?: unknown[]; confirmed?: unknown[]; removed?: unknown[] }>;

export interface SocketMessage {
  /** Blocks to announce, in order (a height, or null when the server gives none). */
  announcements: Array<number | null>;
  /** The server refused the tracked addresses with this text. */
  refusal: string | null;
  /** Transactions pushed per address. */
  addressPush: AddressPush | null;
}

/** What a parsed server message means; null when the text is not a JSON object. */
export function readSocketMessage(text: string): SocketMessage | null {
  let message: Record<string, unknown>;
  try {
    message = JSON.parse(text);
  } catch {
    return null;
  }
  if (message === null || typeof message !== 'object') return null;
  const announcements: Array<number | null> = [];
  if (message.block) announcements.push(heightOf(message.block));
  // The answer to `want`: blocks are pushed from here on, and this is the tip the server had then.
  // A block mined between the connection and this answer was never pushed.
  if (Array.isArray(message.blocks)) {
    const heights = message.blocks.map(heightOf).filter((height) => height !== null);
    announcements.push(heights.length ? Math.max(...heights) : null);
  }
  const error = message['track-addresses-error'];
  const byAddress = message['multi-address-transactions'];
  return {
    announcements,
    refusal: typeof error === 'string' ? error : null,
    addressPush: byAddress && typeof byAddress === 'object' ? (byAddress as AddressPush) : null,
  };
}

/** The per-connection limit after a refusal: the one the server states, else half the current one. */
export function maxAddressesAfterRefusal(error: string, current: number): number {
  const stated = Number(/maximum of (\d+)/.exec(error)?.[1]);
  return Number.isSafeInteger(stated) && stated > 0 ? stated : Math.max(1, Math.floor(current / 2));
}

/** The pushed transactions of the `tracked` addresses. */
export function transactionsOf(push: AddressPush, tracked: Iterable<string>): { added: AddressTx[]; removed: string[] } {
  const added: AddressTx[] = [];
  const removed: string[] = [];
  for (const address of tracked) {
    const entry = push[address];
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
  return { added, removed };
}

/** The wait before reconnect attempt `failures`: exponential backoff, half of it jittered by `random` in [0, 1). */
export function reconnectDelayMs(failures: number, maxBackoffMs: number, random: number): number {
  const base = exponentialBackoffMs(failures, 1_000, maxBackoffMs);
  return Math.round(base / 2 + (random * base) / 2);
}

/** How often a connection is checked for silence. */
export function pingIntervalMs(idleTimeoutMs: number): number {
  return Math.max(1_000, Math.floor(idleTimeoutMs / 3));
}

/** Silent longer than the idle timeout: presumed dead. */
export function isSilent(now: number, lastHeardAt: number, idleTimeoutMs: number): boolean {
  return now - lastHeardAt > idleTimeoutMs;
}

function heightOf(block: unknown): number | null {
  const height = (block as { height?: unknown } | null)?.height;
  return Number.isSafeInteger(height) ? (height as number) : null;
}
