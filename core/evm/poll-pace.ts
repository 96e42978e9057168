/**
 * How long an EVM watcher waits before its next pass. A payment can only change state when a block
 * comes, so there is no point asking before the next block is due; but once it is due, the watcher
 * asks at its old pace until it comes, so a block is never seen later than with plain polling on a
 * chain whose blocks come no sooner than `blockTimeMs` apart (Ethereum's 12 s slots, Base's 2 s).
 */
export interface PaceInput {
  now: number;
  /** When the watcher first saw the head it last read; null before it read one. */
  headSeenAt: number | null;
  /** The chain's block time; 0 for a node that mines on demand (poll at `pollIntervalMs`). */
  blockTimeMs: number;
  /** The pace once a block is due, after a failure, and while a transfer waits for a second source. */
  pollIntervalMs: number;
  /** A live newHeads subscription wakes the watcher at each block: the head is still read this often. */
  headsCheckMs: number;
  headsLive: boolean;
  /** The last pass left something to retry without a new block (a failure, a transfer awaiting its second source). */
  retryPending: boolean;
}

export function nextPassInMs(input: PaceInput): number {
  const { now, headSeenAt, blockTimeMs, pollIntervalMs } = input;
  if (input.retryPending) return pollIntervalMs;
  if (input.headsLive) return input.headsCheckMs;
  if (headSeenAt === null || blockTimeMs <= pollIntervalMs) return pollIntervalMs;
  return Math.max(pollIntervalMs, Math.min(blockTimeMs, headSeenAt + blockTimeMs - now));
}
