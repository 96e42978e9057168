import type { Logger } from '../log.ts';
import type { HeadSubscription } from './new-heads.ts';

/**
 * The heads a node's subscription announced, held against the heads the watcher's passes read: a
 * head announced during a pass has the next pass start at once, and a head read well past the newest
 * announced one means the announcements stopped.
 */
export function createHeadAnnouncements(heads: HeadSubscription | null, logger: Logger, chain: string) {
  /** When the head the watcher last read was first seen: the next block is due a block time later. */
  let headSeen: { height: number; at: number } | null = null;
  /** Heads announced so far, and as a pass began: one announced during a pass is read by the next pass at once. */
  let announced = 0;
  let announcedAtPassStart = 0;
  let announcedAtLastPassEnd = 0;
  /** The newest head the subscription announced; null until a pass after (re)subscribing sets the mark. */
  let announcedHead: number | null = null;

  /**
   * Some providers drop a subscription behind a socket that still answers pings: a pass the timer
   * started (no announcement since the last pass) that reads a head more than one block past the
   * newest announced one means announcements stopped, so the subscription is made again rather
   * than leaving the chain to the once-a-minute check.
   */
  function checkAnnouncements(head: number | null, startedByTimer: boolean): void {
    if (!heads?.live || head === null) return;
    if (announcedHead === null) announcedHead = head;
    else if (startedByTimer && head > announcedHead + 1) {
      logger.warn(`${chain}: the head subscription stopped announcing blocks; subscribing again`, { head, announced: announcedHead });
      announcedHead = null;
      heads.reconnect();
    }
  }

  return {
    /** A pass begins; whether the timer started it (no announcement since the last pass ended). */
    passStarted(): boolean {
      announcedAtPassStart = announced;
      return announced === announcedAtLastPassEnd;
    },
    /** A pass that began at `startedAt` read `head`. */
    passEnded(head: number | null, startedAt: number, startedByTimer: boolean): void {
      if (head !== null && head !== headSeen?.height) headSeen = { height: head, at: startedAt };
      checkAnnouncements(head, startedByTimer);
      announcedAtLastPassEnd = announced;
    },
    /** The subscription announced a head (null: a new block of unknown height). */
    announce(height: number | null): void {
      announced++;
      announcedHead = height === null ? null : Math.max(announcedHead ?? height, height);
    },
    announcedDuringPass: (): boolean => announced > announcedAtPassStart,
    /** When the head last read was first seen; null before the first. */
    headSeenAt: (): number | null => headSeen?.at ?? null,
    /** A head read older than the one announced (a source behind the announcing node, a shared answer still fresh). */
    behindAnnounced: (head: number | null): boolean => announcedHead !== null && (head ?? -1) < announcedHead,
  };
}
