import { ServiceError } from '../../core/errors.ts';
import { shareLedger, takeShare, type FairShareBounds, type ShareTier } from '../../core/fair-shares.ts';

export interface ListenStreamLimits {
  /** Open listen streams at most per owner (a Cloud merchant, a listener credential): MCP_MAX_SESSIONS_PER_OWNER. */
  maxPerOwner: number;
  /** A stream is ended this long after it opened; its client listens again. */
  lifetimeMs: number;
  /** Cloud's fair shares of MCP_MAX_LISTEN_STREAMS (core/fair-shares.ts), for owners opened with a tier. */
  shares?: FairShareBounds;
  now?: () => number;
}

/** One open listen stream's slot: `signal` aborts at its lifetime; `close()` gives the slot back (once). */
export interface ListenStreamSlot {
  readonly signal: AbortSignal;
  close(): void;
}

interface Open {
  owner: string;
  endsAt: number;
  ending: AbortController;
  /** Its owner's plan was unpaid when it opened. */
  unpaid: boolean;
  releaseShare(): void;
}

const LISTEN_SHARE_NAMES = { what: 'open subscriptions/listen streams', capSetting: 'CLOUD_MCP_SESSIONS_PER_PLAN', code: 'too_many_sessions' } as const;

/**
 * The slots of a process's open `subscriptions/listen` streams: at most `maxPerOwner` per owner,
 * so one merchant can never take the streams every other needs (the SDK's `maxSubscriptions` caps
 * them all), and each ended at its lifetime. One timer for every stream, armed for the oldest one
 * only: streams open in the order they end, as they all live as long.
 */
export function createListenStreams(limits: ListenStreamLimits) {
  const now = limits.now ?? Date.now;
  const open = new Map<ListenStreamSlot, Open>();
  const perOwner = new Map<string, number>();
  const shares = shareLedger();
  let timer: NodeJS.Timeout | undefined;

  function arm(): void {
    if (timer) return;
    const oldest = open.values().next();
    if (oldest.done) return;
    timer = setTimeout(endExpired, Math.max(0, oldest.value.endsAt - now()));
    timer.unref();
  }

  function endExpired(): void {
    timer = undefined;
    const at = now();
    for (const [slot, stream] of open) {
      if (stream.endsAt > at) break;
      stream.ending.abort();
      slot.close();
    }
    arm();
  }

  function release(slot: ListenStreamSlot): void {
    const stream = open.get(slot);
    if (!stream) return;
    open.delete(slot);
    stream.releaseShare();
    const left = perOwner.get(stream.owner)! - 1;
    if (left > 0) perOwner.set(stream.owner, left);
    else perOwner.delete(stream.owner);
    if (open.size === 0) {
      clearTimeout(timer);
      timer = undefined;
    }
  }

  /** Seconds until the oldest open stream `counts` ends (a whole lifetime when none does): they end in the order they opened. */
  function retryAfterS(counts: (stream: Open) => boolean): number {
    let oldestEndsAt = now() + limits.lifetimeMs;
    for (const stream of open.values()) {
      if (!counts(stream)) continue;
      oldestEndsAt = stream.endsAt;
      break;
    }
    return Math.max(1, Math.ceil((oldestEndsAt - now()) / 1000));
  }

  /** The owner's fair-share slot when it has a tier, or the 429 naming the cap hit. */
  function takeStreamShare(owner: string, tier: ShareTier | undefined): () => void {
    if (!limits.shares || !tier) return () => undefined;
    return takeShare(shares, limits.shares, LISTEN_SHARE_NAMES, { id: owner, tier }, (refusal) => retryAfterS((stream) => (refusal === 'plan_cap' ? stream.owner === owner : stream.unpaid)));
  }

  return {
    /**
     * A slot for `owner`'s new stream (within its plan's share when `tier` is given), or
     * `too_many_sessions` (429) with the wait until its oldest one ends.
     */
    open(owner: string, tier?: ShareTier): ListenStreamSlot {
      const held = perOwner.get(owner) ?? 0;
      if (held >= limits.maxPerOwner) {
        const wait = retryAfterS((stream) => stream.owner === owner);
        throw new ServiceError('too_many_sessions', `This owner already holds ${limits.maxPerOwner} open subscriptions/listen streams (MCP_MAX_SESSIONS_PER_OWNER); close one, or retry in ${wait} s.`, { retryAfterS: wait });
      }
      const releaseShare = takeStreamShare(owner, tier);
      const ending = new AbortController();
      const slot: ListenStreamSlot = { signal: ending.signal, close: () => release(slot) };
      open.set(slot, { owner, endsAt: now() + limits.lifetimeMs, ending, unpaid: tier?.paying === false, releaseShare });
      perOwner.set(owner, held + 1);
      arm();
      return slot;
    },
    get size(): number {
      return open.size;
    },
    /** Ends every open stream (shutdown). */
    close(): void {
      for (const [slot, stream] of open) {
        stream.ending.abort();
        slot.close();
      }
    },
  };
}

export type ListenStreams = ReturnType<typeof createListenStreams>;
