import type { Clock } from './clock.ts';

/** What one chain watcher is doing, as /health reports it. */
export interface WatcherProgress {
  /** When the last pass over the chain finished without error; null before the first. */
  last_success_at: string | null;
  /** The step under way (a pass's step, or `waiting` between passes), and since when. */
  step: string;
  step_since: string;
  /** The last pass's error; null once a pass succeeds again. */
  last_error: string | null;
  /** Since when every pass has failed; null while passes succeed. */
  failing_since: string | null;
}

/**
 * A watcher that makes no progress, told apart by why: `stalled` when one step (a request, a
 * database call, the wait between passes) has been under way too long, so the watcher is stuck
 * and will not recover by itself; `failing` when it keeps trying and every pass fails, as against
 * a source that is down (it catches up once the source returns); `invalid-source` at once when a
 * source served data that failed verification (a header without proof of work, a block not
 * matching its header), named in `reason`. A source that is slow or rate limited but answers in
 * the end is none of these: its passes still succeed.
 */
export interface WatcherProblem {
  component: string;
  /**
   * `disagreeing`: a source reported what the chain's other sources do not; `invalid-source`: a
   * source served data that failed verification; `unproven-tip`: a source claims a tip it cannot
   * prove; `syncing`: the header chain is still syncing (see shared/health.ts).
   */
  kind: 'stalled' | 'failing' | 'disagreeing' | 'invalid-source' | 'unproven-tip' | 'syncing';
  reason: string;
  since: string;
}

/** What a chain watcher tells the metrics: its steps and passes as they end, and its distance to the tip. */
export interface WatchObserver {
  step(name: string, seconds: number): void;
  pass(outcome: 'ok' | 'error', seconds: number): void;
  lag(blocks: number): void;
  /** An invoice of `asset` moved to `status` (paid, partial, confirmed, expired, ...). */
  transition(asset: string, status: string): void;
  /** An invoice confirmed, `seconds` after its payment was first seen. */
  settled(seconds: number): void;
  /** An invoice confirmed, `seconds` after the watcher took in the block its confirmations were counted against. */
  confirmedAfterBlock(seconds: number): void;
  /** A source (its label) reported what the chain's other sources do not. */
  sourceDisagreed?(source: string): void;
  /** A payment claim (a sighting, a source's JSON) was overruled by what its bytes or its block prove. */
  claimOverruled?(kind: 'raw-tx-mismatch' | 'json-differs' | 'block-differs'): void;
}

/** Progress of one watcher, reported step by step by the watcher itself (and to `observer`, the metrics). */
export function createWatchProgress(clock: Clock, observer?: WatchObserver) {
  let lastSuccessAt: number | null = null;
  let step = 'starting';
  let stepSince = clock.now();
  let lastError: string | null = null;
  let failingSince: number | null = null;
  const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

  return {
    step(name: string) {
      const now = clock.now();
      observer?.step(step, (now - stepSince) / 1000);
      step = name;
      stepSince = now;
    },
    /** Runs one pass and records how it ended: a success, or a failure (rethrown). */
    async track<T>(pass: () => Promise<T>): Promise<T> {
      const started = clock.now();
      try {
        const result = await pass();
        observer?.pass('ok', (clock.now() - started) / 1000);
        lastSuccessAt = clock.now();
        lastError = null;
        failingSince = null;
        return result;
      } catch (error) {
        observer?.pass('error', (clock.now() - started) / 1000);
        lastError = error instanceof Error ? error.message : String(error);
        failingSince ??= clock.now();
        throw error;
      }
    },
    current(): WatcherProgress {
      return { last_success_at: iso(lastSuccessAt), step, step_since: iso(stepSince)!, last_error: lastError, failing_since: iso(failingSince) };
    },
  };
}

export type WatchProgress = ReturnType<typeof createWatchProgress>;

/**
 * How long a watcher may go without progress before /health reports it: several poll intervals,
 * and never less than two minutes, since one request to a slow source may take its timeout
 * several times over with retries before the pass fails and counts.
 */
export function stallAfterMs(pollIntervalMs: number, maxBackoffMs = 0): number {
  return Math.max(5 * pollIntervalMs, 2 * maxBackoffMs, 120_000);
}

/** The watcher's problem at `now`, if it has one: a step under way too long, or failing too long. */
export function watcherProblem(component: string, progress: WatcherProgress, now: number, limitMs: number): WatcherProblem | null {
  const stepMs = now - Date.parse(progress.step_since);
  if (stepMs > limitMs) {
    return { component, kind: 'stalled', reason: `step "${progress.step}" under way for ${Math.round(stepMs / 1000)} s`, since: progress.step_since };
  }
  if (progress.failing_since !== null && now - Date.parse(progress.failing_since) > limitMs) {
    return { component, kind: 'failing', reason: `every pass fails: ${progress.last_error}`, since: progress.failing_since };
  }
  return null;
}
