import { manualClock } from '../../core/clock.ts';
import type { Timers } from '../../core/webhooks/timers.ts';

/** A clock and timers moved together by hand: `advance` fires every wait that falls due. */
export function manualTime(start?: number) {
  const clock = manualClock(start);
  const waits = new Set<{ due: number; resolve(elapsed: boolean): void }>();
  const timers: Timers = {
    delay: (ms, signal) =>
      new Promise((resolve) => {
        if (signal.aborted) return resolve(false);
        const wait = { due: clock.now() + ms, resolve };
        waits.add(wait);
        signal.addEventListener('abort', () => (waits.delete(wait), resolve(false)), { once: true });
      }),
  };
  return {
    clock,
    timers,
    advance(ms: number) {
      clock.advance(ms);
      for (const wait of [...waits]) {
        if (wait.due <= clock.now()) (waits.delete(wait), wait.resolve(true));
      }
    },
    pendingWaits: () => waits.size,
  };
}
