/** Prints a benchmark's readable lines, then its one-line JSON summary last on stdout. */
export function report(lines: string[], summary: { bench: string; value: number; unit: string; baseline: number; ratio: number; target: unknown } & Record<string, unknown>) {
  for (const line of lines) process.stdout.write(`${line}\n`);
  process.stdout.write(`${JSON.stringify(summary)}\n`);
}

export const progress = (text: string) => process.stderr.write(`${text}\n`);

export const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;

/** The p-th percentile (nearest rank) of ascending samples; NaN when there are none. */
export const percentile = (sorted: readonly number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;

/** Reports how far long work has come and, from its pace so far, about how long the rest takes. */
export function progressOf(label: string, done: number, total: number, startedMs: number): void {
  const elapsedS = (performance.now() - startedMs) / 1000;
  const leftS = done > 0 ? (elapsedS / done) * (total - done) : NaN;
  progress(`${label}: ${done.toLocaleString('en')}/${total.toLocaleString('en')} in ${elapsedS.toFixed(1)} s, about ${leftS.toFixed(0)} s left`);
}
