/**
 * The wait after the n-th failure in a row: `baseMs`, then twice as long each time, never above
 * `maxMs`. Callers that many clients share add their own jitter under this ceiling.
 */
export function exponentialBackoffMs(failures: number, baseMs: number, maxMs: number): number {
  return Math.min(maxMs, baseMs * 2 ** (failures - 1));
}
