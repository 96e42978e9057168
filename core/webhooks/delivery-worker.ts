import type { Kysely } from 'kysely';
import { WEBHOOK_ACK_TIMEOUT_MS } from '../../shared/webhooks.ts';
import { claimDueAttempts, recordAttemptOutcomes, verdictOf, type AttemptOutcome, type ClaimedAttempt, type ClaimScope, type Verdict } from './delivery-store.ts';
import type { ServiceMetrics } from '../metrics.ts';
import type { CoreTables } from '../schema.ts';
import type { WebhookRequest, WebhookSender } from './http-sender.ts';
import { webhookDeliveryHeaders } from './signature.ts';
import type { Timers } from './timers.ts';

import type { Clock } from '../clock.ts';
import type { Logger } from '../log.ts';

/** Where one attempt goes, with which secret; `lookup` pins the connection to a checked address. */
export type DeliveryTarget = { url: URL; secret: string; lookup?: WebhookRequest['lookup'] } | { error: string };

export interface DeliveryWorkerOptions {
  db: Kysely<CoreTables>;
  /** Whose events to deliver: one merchant (listener) or the merchants an edition selects (Cloud). */
  scope: ClaimScope;
  /** The listener's one receiver... */
  url?: URL;
  secret?: string;
  /** ...or (Cloud) a target resolved before every attempt, so a changed URL or secret applies to the next one. */
  target?: (merchantId: string) => Promise<DeliveryTarget>;
  clock: Clock;
  timers: Timers;
  send: WebhookSender;
  logger: Logger;
  /** Attempts in flight at once; each is independent, so one slow receiver answer holds one slot only. */
  concurrency: number;
  /** How often due events are looked for; retries and newly stored events start within this. */
  pollIntervalMs: number;
  metrics?: ServiceMetrics;
}

export interface DeliveryWorker {
  start(): void;
  /**
   * Stops claiming; attempts in flight get `graceMs` to finish and be recorded, then the rest are
   * aborted: their claims expire and they are retried after a restart.
   */
  stop(graceMs?: number): Promise<void>;
  /** Delivers everything due now (and whatever falls due meanwhile); resolves once every started attempt is recorded. */
  deliverDue(): Promise<number>;
  /** Something was stored that may be due: look now rather than at the end of the poll interval (at most every WAKE_GAP_MS). */
  wake(): void;
}

/** The shortest time between two looks when wake-ups keep coming (a block confirming many invoices): the poll interval still bounds the longest. */
export const WAKE_GAP_MS = 20;

const ATTEMPT_FINISHED = Object.freeze(new Error('the attempt finished'));

function describeError(error: unknown): string {
  const err = error as { code?: string; message?: string; cause?: { code?: string } };
  const code = err.code ?? err.cause?.code;
  return `network error: ${code ? `${code} ` : ''}${err.message ?? String(error)}`.slice(0, 300);
}

/** A signal that aborts once every promise has settled. */
function settled(promises: Iterable<Promise<void>>): AbortSignal {
  const all = new AbortController();
  void Promise.allSettled(promises).then(() => all.abort());
  return all.signal;
}

function observe(metrics: ServiceMetrics, claim: ClaimedAttempt, outcome: AttemptOutcome, verdict: Verdict): void {
  metrics.webhookAttempts.inc({ outcome: verdict });
  metrics.webhookAttemptSeconds.observe({ outcome: verdict }, (outcome.finishedAt - claim.startedAt) / 1000);
  if (verdict === 'delivered') metrics.webhookDeliverySeconds.observe(Math.max(0, outcome.finishedAt - claim.createdAt) / 1000);
}

/**
 * One attempt: the target resolved, the signed request sent, its answer (or why there was none)
 * as the outcome to record. The attempt's request sits in `requests` while it runs, so stopping
 * can abort it.
 */
function attemptSender(options: Pick<DeliveryWorkerOptions, 'clock' | 'timers' | 'send'> & { targetOf(merchantId: string): Promise<DeliveryTarget> }) {
  const { clock, timers, targetOf } = options;
  return async function attempt(claim: ClaimedAttempt, requests: Set<AbortController>): Promise<AttemptOutcome> {
    const request = new AbortController();
    requests.add(request);
    let timedOut = false;
    void timers.delay(WEBHOOK_ACK_TIMEOUT_MS, request.signal).then((elapsed) => {
      if (elapsed) (timedOut = true), request.abort();
    });
    try {
      const target = await targetOf(claim.merchantId);
      if ('error' in target) return { finishedAt: clock.now(), httpStatus: null, error: target.error, responseExcerpt: null };
      const response = await options.send({
        url: target.url,
        lookup: target.lookup,
        body: claim.body,
        signal: request.signal,
        headers: webhookDeliveryHeaders({ eventId: claim.eventId, attempt: claim.attempt, body: claim.body, secret: target.secret, now: clock.now() }),
      });
      const ok = response.status >= 200 && response.status < 300;
      return { finishedAt: clock.now(), httpStatus: response.status, error: ok ? null : `HTTP ${response.status}`, responseExcerpt: response.excerpt };
    } catch (error) {
      const reason = timedOut ? `timeout: no answer within ${WEBHOOK_ACK_TIMEOUT_MS} ms` : describeError(error);
      return { finishedAt: clock.now(), httpStatus: null, error: reason, responseExcerpt: null };
    } finally {
      // Cancels the timeout wait. A shared reason: abort() without one builds a DOMException with a
      // stack trace on every attempt, a cost the profile showed in the delivery loop.
      request.abort(ATTEMPT_FINISHED);
      requests.delete(request);
    }
  };
}

/** Records outcomes in batches: those that finish while a batch is being written wait for the next one, one commit for many. */
function batchedOutcomeWriter(db: Kysely<CoreTables>) {
  let pending: { claim: ClaimedAttempt; outcome: AttemptOutcome; done(error?: unknown): void }[] = [];
  let writing = false;
  async function writeBatches() {
    writing = true;
    while (pending.length > 0) {
      const batch = pending;
      pending = [];
      try {
        await recordAttemptOutcomes(db, batch);
        batch.forEach((item) => item.done());
      } catch (error) {
        batch.forEach((item) => item.done(error));
      }
    }
    writing = false;
  }
  return {
    /** Resolves once the batch holding this outcome is committed. */
    record(claim: ClaimedAttempt, outcome: AttemptOutcome): Promise<void> {
      return new Promise((resolve, reject) => {
        pending.push({ claim, outcome, done: (error) => (error ? reject(error) : resolve()) });
        if (!writing) void writeBatches();
      });
    },
  };
}

/** Counts a recorded outcome in the metrics and logs an attempt that did not deliver. */
function outcomeReporter(logger: Logger, metrics: ServiceMetrics | undefined) {
  return (claim: ClaimedAttempt, outcome: AttemptOutcome): void => {
    const verdict = verdictOf(claim, outcome);
    if (metrics) observe(metrics, claim, outcome, verdict);
    if (verdict === 'delivered') return;
    const fields = { event_id: claim.eventId, attempt: claim.attempt, error: outcome.error };
    if (verdict === 'failed') logger.warn('webhook delivery gave up', fields);
    else logger.info('webhook delivery failed, will retry', fields);
  };
}

export function createDeliveryWorker(options: DeliveryWorkerOptions): DeliveryWorker {
  const { db, clock, timers, logger } = options;
  const fixedTarget: DeliveryTarget = { url: options.url!, secret: options.secret! };
  const attempt = attemptSender({ ...options, targetOf: options.target ?? (async () => fixedTarget) });
  const outcomes = batchedOutcomeWriter(db);
  const report = outcomeReporter(logger, options.metrics);
  const inFlight = new Map<string, Promise<void>>();
  const stopping = new AbortController();
  const abandoned = new AbortController();
  const requests = new Set<AbortController>();
  let claiming: Promise<number> | undefined;
  // Refill slots half the pool at a time: a claim transaction (and its commit) per finished attempt
  // would cost more than the attempt, and the profile showed claims at a fifth of the pool still
  // costly; the poll loop still picks up any remainder within its interval.
  const claimBatch = Math.max(1, Math.floor(options.concurrency / 2));
  const freeSlots = () => options.concurrency - inFlight.size;
  let loop: Promise<void> | undefined;
  // A wake-up during a look is kept, so an event stored just after the claim read is looked for next.
  let woken = false;
  let napping: AbortController | null = null;

  async function deliver(claim: ClaimedAttempt): Promise<void> {
    const outcome = await attempt(claim, requests);
    // Stopping aborted the request: its outcome is unknown, so the stored claim stands and the
    // attempt is found interrupted after the restart.
    if (abandoned.signal.aborted) return;
    await outcomes.record(claim, outcome);
    report(claim, outcome);
  }

  function claimAndStart(): Promise<number> {
    // One claim at a time: concurrent claims would race for the same free slots.
    claiming ??= (async () => {
      try {
        const claims = await claimDueAttempts(db, {
          scope: options.scope,
          now: clock.now(),
          limit: freeSlots(),
          exclude: new Set(inFlight.keys()),
        });
        for (const claim of claims) {
          const running = deliver(claim)
            .catch((error) => logger.warn('webhook outcome not recorded; the claim expires and the attempt is retried', { event_id: claim.eventId, error: String(error) }))
            .finally(() => {
              inFlight.delete(claim.eventId);
              if (loop && !stopping.signal.aborted && freeSlots() >= claimBatch) void claimAndStart().catch((error) => logger.warn('webhook claim failed', { error: String(error) }));
            });
          inFlight.set(claim.eventId, running);
        }
        return claims.length;
      } finally {
        claiming = undefined;
      }
    })();
    return claiming;
  }

  return {
    start() {
      loop ??= (async () => {
        while (!stopping.signal.aborted) {
          woken = false;
          await claimAndStart().catch((error) => logger.warn('webhook claim failed', { error: String(error) }));
          if (woken) {
            await timers.delay(WAKE_GAP_MS, stopping.signal);
            continue;
          }
          napping = new AbortController();
          await timers.delay(options.pollIntervalMs, AbortSignal.any([stopping.signal, napping.signal]));
          napping = null;
        }
      })();
    },
    async stop(graceMs = 0) {
      stopping.abort();
      await loop;
      await claiming?.catch(() => undefined);
      if (graceMs > 0 && inFlight.size > 0) await timers.delay(graceMs, settled(inFlight.values()));
      abandoned.abort();
      for (const request of requests) request.abort();
      await Promise.all(inFlight.values());
    },
    wake() {
      woken = true;
      napping?.abort();
    },
    async deliverDue() {
      let total = 0;
      for (;;) {
        const claimed = await claimAndStart();
        total += claimed;
        if (claimed === 0 && inFlight.size === 0) return total;
        do await Promise.race(inFlight.values());
        while (inFlight.size > 0 && freeSlots() < claimBatch);
      }
    },
  };
}
