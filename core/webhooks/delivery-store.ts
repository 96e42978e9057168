import { isDeepStrictEqual } from 'node:util';
import { CompiledQuery, type Kysely, type SelectQueryBuilder } from 'kysely';
import type { CoreTables } from '../schema.ts';
import { claimExpiry, isFinalFailure, retryDelayAfter } from './schedule.ts';

type Db = Kysely<CoreTables>;

/** An attempt this process now owns: the claim (its number and expiry) is already stored. */
export interface ClaimedAttempt {
  eventId: string;
  merchantId: string;
  type: string;
  /** The payload text exactly as stored with the event: the bytes that are signed and sent. */
  body: string;
  attempt: number;
  maxAttempts: number;
  startedAt: number;
  /** When the event was stored. */
  createdAt: number;
}

export interface AttemptOutcome {
  finishedAt: number;
  httpStatus: number | null;
  /** null when the receiver acknowledged with a 2xx. */
  error: string | null;
  responseExcerpt: string | null;
}

/**
 * Whose events are claimed: one merchant's (the listener), or those of every merchant an edition's
 * query selects, from tables the edition owns (Cloud: merchants that saved a webhook URL).
 */
export type ClaimScope = { merchantId: string } | { merchantsSelectedBy: (db: Kysely<any>) => SelectQueryBuilder<any, any, { merchant_id: string }> };

export const INTERRUPTED_ERROR = 'interrupted: the listener stopped before the answer was recorded';

/**
 * Claims up to `limit` due events in the scope in one transaction: each gets its next attempt
 * number and an expiry (see `claimExpiry`) before any request goes out, so a crash mid-request
 * leaves the right number and wait behind. An attempt found claimed but never recorded is written
 * down as interrupted. Rows someone else claimed meanwhile are skipped (guarded update).
 */
export async function claimDueAttempts(
  db: Db,
  options: { scope: ClaimScope; now: number; limit: number; exclude: ReadonlySet<string> },
): Promise<ClaimedAttempt[]> {
  if (options.limit <= 0) return [];
  return db.transaction().execute(async (trx) => {
    const rows = await trx
      .selectFrom('events')
      .select(['event_id', 'merchant_id', 'type', 'payload', 'delivery_attempts', 'delivery_max_attempts', 'last_attempt_at', 'created_at'])
      .$call((query) =>
        'merchantId' in options.scope
          ? query.where('merchant_id', '=', options.scope.merchantId)
          : query.where('merchant_id', 'in', options.scope.merchantsSelectedBy(trx)),
      )
      .where('delivery_status', '=', 'pending')
      .where('next_attempt_at', '<=', options.now)
      // Index order (events_delivery_due): no sort over the whole backlog on each claim.
      .orderBy('next_attempt_at')
      .limit(options.limit + options.exclude.size)
      .execute();
    const due = rows.filter((row) => !options.exclude.has(row.event_id)).slice(0, options.limit);
    await recordInterruptedAttempts(trx, due);

    // One guarded update per group of rows with the same attempt count (usually one group): a row
    // another worker claimed meanwhile no longer matches and is not returned.
    const claimed: ClaimedAttempt[] = [];
    const groups = new Map<number, typeof due>();
    for (const row of due) {
      const previous = Number(row.delivery_attempts);
      groups.set(previous, [...(groups.get(previous) ?? []), row]);
    }
    for (const [previous, rows] of groups) {
      const attempt = previous + 1;
      const won = await trx
        .updateTable('events')
        .set({ delivery_attempts: attempt, next_attempt_at: claimExpiry(attempt, options.now), last_attempt_at: options.now })
        .where('event_id', 'in', rows.map((row) => row.event_id))
        .where('delivery_status', '=', 'pending')
        .where('delivery_attempts', '=', previous)
        .returning('event_id')
        .execute();
      const wonIds = new Set(won.map((row) => row.event_id));
      for (const row of rows.filter((r) => wonIds.has(r.event_id))) {
        claimed.push({
          eventId: row.event_id,
          merchantId: row.merchant_id,
          type: row.type,
          body: row.payload,
          attempt,
          maxAttempts: Number(row.delivery_max_attempts),
          startedAt: options.now,
          createdAt: Number(row.created_at),
        });
      }
    }
    return claimed;
  });
}

async function recordInterruptedAttempts(
  trx: Db,
  due: { event_id: string; merchant_id: string; delivery_attempts: number; last_attempt_at: number | null }[],
): Promise<void> {
  const retried = due.filter((row) => Number(row.delivery_attempts) > 0);
  if (retried.length === 0) return;
  const recorded = await trx
    .selectFrom('webhook_attempts')
    .select(['event_id', 'attempt'])
    .where('event_id', 'in', retried.map((row) => row.event_id))
    .execute();
  const seen = new Set(recorded.map((row) => `${row.event_id}#${Number(row.attempt)}`));
  const interrupted = retried.filter((row) => !seen.has(`${row.event_id}#${Number(row.delivery_attempts)}`));
  if (interrupted.length === 0) return;
  await trx
    .insertInto('webhook_attempts')
    .values(
      interrupted.map((row) => ({
        event_id: row.event_id,
        merchant_id: row.merchant_id,
        attempt: Number(row.delivery_attempts),
        started_at: Number(row.last_attempt_at),
        duration_ms: null,
        http_status: null,
        error: INTERRUPTED_ERROR,
        response_excerpt: null,
      })),
    )
    .execute();
}

export type Verdict = 'delivered' | 'retry' | 'failed';

export function verdictOf(claim: ClaimedAttempt, outcome: AttemptOutcome): Verdict {
  if (outcome.error === null) return 'delivered';
  return isFinalFailure(claim.attempt, claim.maxAttempts) ? 'failed' : 'retry';
}

/**
 * Stores finished attempts and each event's next state (delivered, retry at a time, or failed for
 * good) in one transaction: one commit for a batch keeps the outbox off the critical path.
 */
export async function recordAttemptOutcomes(db: Db, finished: { claim: ClaimedAttempt; outcome: AttemptOutcome }[]): Promise<void> {
  if (finished.length === 0) return;
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('webhook_attempts')
      .values(
        finished.map(({ claim, outcome }) => ({
          event_id: claim.eventId,
          merchant_id: claim.merchantId,
          attempt: claim.attempt,
          started_at: claim.startedAt,
          duration_ms: outcome.finishedAt - claim.startedAt,
          http_status: outcome.httpStatus,
          error: outcome.error,
          response_excerpt: outcome.responseExcerpt,
        })),
      )
      .execute();
    // One statement text for every row: built by kysely once per batch, then run with each row's
    // values (building it per row was a good part of the delivery loop's time in the profile). The
    // first row checks that the values go in the order given here; if not, each row is built.
    const valuesOf = ({ claim, outcome }: (typeof finished)[number]) => {
      const verdict = verdictOf(claim, outcome);
      const set = {
        delivery_status: verdict === 'retry' ? ('pending' as const) : verdict,
        next_attempt_at: verdict === 'retry' ? outcome.finishedAt + retryDelayAfter(claim.attempt) : outcome.finishedAt,
        last_http_status: outcome.httpStatus,
        last_error: outcome.error,
        delivered_at: verdict === 'delivered' ? outcome.finishedAt : null,
      };
      return { set, parameters: [...Object.values(set), claim.eventId, claim.merchantId, claim.attempt] };
    };
    const statement = (row: (typeof finished)[number]) =>
      trx
        .updateTable('events')
        .set(valuesOf(row).set)
        .where('event_id', '=', row.claim.eventId)
        .where('merchant_id', '=', row.claim.merchantId)
        .where('delivery_attempts', '=', row.claim.attempt)
        .compile();
    const first = statement(finished[0]);
    const reusable = isDeepStrictEqual(first.parameters, valuesOf(finished[0]).parameters);
    for (const row of finished) {
      await trx.executeQuery(row === finished[0] ? first : reusable ? CompiledQuery.raw(first.sql, valuesOf(row).parameters) : statement(row));
    }
  });
}

export interface DeliverySummary {
  eventId: string;
  type: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  nextAttemptAt: number | null;
  lastAttemptAt: number | null;
  lastHttpStatus: number | null;
  lastError: string | null;
  createdAt: number;
}

/** Pending and failed deliveries (or the given statuses), oldest first; with `newest`, only that many of the latest, newest first. */
export async function listDeliveries(
  db: Db,
  merchantId: string,
  statuses: DeliverySummary['status'][] = ['pending', 'failed'],
  options: { newest?: number } = {},
): Promise<DeliverySummary[]> {
  const order = options.newest === undefined ? 'asc' : 'desc';
  const rows = await db
    .selectFrom('events')
    .select(['event_id', 'type', 'delivery_status', 'delivery_attempts', 'next_attempt_at', 'last_attempt_at', 'last_http_status', 'last_error', 'created_at'])
    .where('merchant_id', '=', merchantId)
    .where('delivery_status', 'in', statuses)
    .orderBy('created_at', order)
    .orderBy('event_id', order)
    .$if(options.newest !== undefined, (query) => query.limit(options.newest!))
    .execute();
  const toNumber = (value: number | null) => (value === null ? null : Number(value));
  return rows.map((row) => ({
    eventId: row.event_id,
    type: row.type,
    status: row.delivery_status,
    attempts: Number(row.delivery_attempts),
    nextAttemptAt: row.delivery_status === 'pending' ? Number(row.next_attempt_at) : null,
    lastAttemptAt: toNumber(row.last_attempt_at),
    lastHttpStatus: toNumber(row.last_http_status),
    lastError: row.last_error,
    createdAt: Number(row.created_at),
  }));
}

export async function listAttempts(db: Db, merchantId: string, eventId: string) {
  return db
    .selectFrom('webhook_attempts')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('event_id', '=', eventId)
    .orderBy('attempt')
    .execute();
}

/**
 * Makes failed (or delivered) events due now for one more attempt, numbered after the last one,
 * with the same event id and stored body. Returns the ids re-queued.
 */
export async function resendDeliveries(
  db: Db,
  merchantId: string,
  target: { eventId: string } | { allFailed: true },
  now: number,
): Promise<string[]> {
  return db.transaction().execute(async (trx) => {
    let query = trx
      .selectFrom('events')
      .select(['event_id', 'delivery_attempts'])
      .where('merchant_id', '=', merchantId)
      .where('delivery_status', 'in', ['failed', 'delivered']);
    query = 'eventId' in target ? query.where('event_id', '=', target.eventId) : query.where('delivery_status', '=', 'failed');
    const rows = await query.execute();
    for (const row of rows) {
      await trx
        .updateTable('events')
        .set({ delivery_status: 'pending', delivery_max_attempts: Number(row.delivery_attempts) + 1, next_attempt_at: now })
        .where('event_id', '=', row.event_id)
        .where('merchant_id', '=', merchantId)
        .execute();
    }
    return rows.map((row) => row.event_id);
  });
}

export interface DeliveryCounts {
  /** Not yet acknowledged, no attempt started. */
  queued: number;
  /** Not yet acknowledged after at least one attempt; retries follow. */
  failing: number;
  /** Gave up after the last attempt; only a manual re-send delivers them. */
  failed: number;
}

export async function countDeliveries(db: Db, merchantId: string): Promise<DeliveryCounts> {
  const rows = await db
    .selectFrom('events')
    .select((eb) => [
      'delivery_status',
      eb.case().when('delivery_attempts', '>', 0).then(1).else(0).end().as('tried'),
      eb.fn.countAll<number>().as('n'),
    ])
    .where('merchant_id', '=', merchantId)
    .where('delivery_status', 'in', ['pending', 'failed'])
    .groupBy(['delivery_status', 'tried'])
    .execute();
  const counts: DeliveryCounts = { queued: 0, failing: 0, failed: 0 };
  for (const row of rows) {
    const key = row.delivery_status === 'failed' ? 'failed' : Number(row.tried) ? 'failing' : 'queued';
    counts[key] += Number(row.n);
  }
  return counts;
}
