import type { Clock } from '../clock.ts';

/**
 * The time a header sync has left, from the pace since it began: headers verified per second over
 * the passes so far, against the headers still between the chain's height and the target.
 */
export function createSyncEstimate(clock: Clock) {
  let began: { at: number; height: number } | null = null;
  let last: { at: number; height: number; target: number } | null = null;
  const startedAt = clock.now();

  return {
    /** After each pass: where the chain is, the target, and whether it is synced (which ends this sync). */
    note(height: number | null, target: number | null, synced: boolean): void {
      if (synced || height === null || target === null) {
        if (synced) began = last = null;
        return;
      }
      began ??= { at: clock.now(), height };
      last = { at: clock.now(), height, target };
    },
    secondsLeft(): number | null {
      if (!began || !last || last.height <= began.height || last.at <= began.at) return null;
      const perSecond = (last.height - began.height) / ((last.at - began.at) / 1000);
      return Math.round((last.target - last.height) / perSecond);
    },
    /** When the sync under way began (the first pass's end, else when this was made). */
    since: (): number => began?.at ?? startedAt,
  };
}
