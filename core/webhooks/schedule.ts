import { WEBHOOK_ACK_TIMEOUT_MS, WEBHOOK_MAX_ATTEMPTS, webhookRetryDelaysMs } from '../../shared/webhooks.ts';

/**
 * Extra time past the 10 s acknowledgement timeout before a claimed attempt counts as interrupted:
 * covers recording the outcome after the timeout fires.
 */
export const CLAIM_GRACE_MS = 5_000;

/** Wait after the failure of `attempt` (1-based); the last delay repeats for attempts past the schedule. */
export function retryDelayAfter(attempt: number): number {
  return webhookRetryDelaysMs[Math.min(attempt, webhookRetryDelaysMs.length) - 1];
}

/**
 * When a claimed attempt's event becomes due again if the process dies mid-attempt: as if the
 * attempt had timed out, then the scheduled wait. Persisted before the request goes out.
 */
export function claimExpiry(attempt: number, claimedAt: number): number {
  return claimedAt + WEBHOOK_ACK_TIMEOUT_MS + CLAIM_GRACE_MS + retryDelayAfter(attempt);
}

/** An observed failure of the last allowed attempt is final; an interrupted attempt never is. */
export function isFinalFailure(attempt: number, maxAttempts: number = WEBHOOK_MAX_ATTEMPTS): boolean {
  return attempt >= maxAttempts;
}
