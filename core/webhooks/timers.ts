/** Waiting, injected so tests drive the acknowledgement timeout and the poll loop with a fake clock. */
export interface Timers {
  /** Resolves true after `ms`, or false as soon as `signal` aborts (the wait is then cancelled). */
  delay(ms: number, signal: AbortSignal): Promise<boolean>;
}

export const realTimers: Timers = {
  delay: (ms, signal) =>
    new Promise((resolve) => {
      if (signal.aborted) return resolve(false);
      const onAbort = () => (clearTimeout(timer), resolve(false));
      const timer = setTimeout(() => (signal.removeEventListener('abort', onAbort), resolve(true)), ms);
      signal.addEventListener('abort', onAbort, { once: true });
    }),
};
