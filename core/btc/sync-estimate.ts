import type { Clock } from '../clock.ts';

interface Mark {
  at: number;
  height: number;
}

/**
 * The time a header sync has left, from the pace since it began: headers verified per second over
 * the passes so far, against the headers still between the chain's height and the target.
 */
export function createSyncEstimate(clock: Clock) {
  let began: Mark | null = null;
  let last: (Mark & { target: number }) | null = null;
  const madeAt = clock.now();

  return {
    /** Before a pass of a sync: where the chain stands (the first such call starts the pace). */
    start(height: number): void {
      began ??= { at: clock.now(), height };
    },
    /** After each pass: where the chain is and the target; `synced` ends this sync. */
    note(height: number, target: number | null, synced: boolean): void {
      if (synced) began = last = null;
      else if (target !== null) last = { at: clock.now(), height, target };
    },
    secondsLeft(): number | null {
      if (!began || !last || last.height <= began.height || last.at <= began.at) return null;
      const perSecond = (last.height - began.height) / ((last.at - began.at) / 1000);
      return Math.max(0, Math.round((last.target - last.height) / perSecond));
    },
    /** When the sync under way began (else when this estimate was made, at start). */
    since: (): number => began?.at ?? madeAt,
  };
}
