import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import type { Kysely } from 'kysely';
import { createLogger, type Logger } from '../../core/log.ts';
import { CONNECT_TIMEOUT_MS } from '../../core/db/database.ts';
import type { CoreTables } from '../../core/schema.ts';
import { errorCodes, webhookHeaders } from '../../shared/index.ts';
import type { PrivatePostgres } from './private-postgres.ts';
import type { ReceivedRequest } from './scripted-receiver.ts';

/** Every answer during a fault comes within this: the connect timeout, plus room for a loaded machine. */
export const ANSWER_BOUND_MS = CONNECT_TIMEOUT_MS + 3_000;
/** The database back, requests succeed again (and watchers, delivery, leadership resume) within this. */
export const RECOVERY_MS = 15_000;

export type Fault = 'terminate' | 'restart' | 'stop 20 s';
export const faults: Fault[] = ['terminate', 'restart', 'stop 20 s'];

/**
 * Applies a fault to the private server; `during` runs while it lasts (for a stop: while the
 * server is down). Resolves with when the database was serving again.
 */
export async function applyFault(server: PrivatePostgres, fault: Fault, during: () => Promise<void> = async () => {}): Promise<number> {
  if (fault === 'terminate') {
    await server.terminateAll();
    await during();
    return Date.now();
  }
  if (fault === 'restart') {
    await server.stop();
    await during();
    await server.start();
    return Date.now();
  }
  await server.stop();
  const until = Date.now() + 20_000;
  await during();
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, until - Date.now())));
  await server.start();
  return Date.now();
}

export interface TimedAnswer {
  via: string;
  startedAt: number;
  ms: number;
  status: number;
  retryAfter: string | null;
  body: unknown;
  error?: string;
}

/** Creates invoices one after another (every `everyMs`) until stopped, timing and keeping every answer. */
export function startTraffic(via: string, create: (signal: AbortSignal) => Promise<Response>, everyMs = 250) {
  const answers: TimedAnswer[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const startedAt = Date.now();
      try {
        const response = await create(AbortSignal.timeout(60_000));
        const text = await response.text();
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          // kept as text: the assertions name it
        }
        answers.push({ via, startedAt, ms: Date.now() - startedAt, status: response.status, retryAfter: response.headers.get('retry-after'), body });
      } catch (error) {
        answers.push({ via, startedAt, ms: Date.now() - startedAt, status: 0, retryAfter: null, body: null, error: String(error) });
      }
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  return {
    answers,
    /** The invoice ids the service acknowledged (201). */
    acknowledged: () => answers.filter((a) => a.status === 201).map((a) => (a.body as { invoice_id: string }).invoice_id),
    async stop() {
      running = false;
      await loop;
    },
  };
}

const summary = (a: TimedAnswer) => `${a.via} at +${a.startedAt}: ${a.status} in ${a.ms} ms ${a.error ?? JSON.stringify(a.body)}`;

/**
 * Every answer came within the bound and is either the invoice (201) or the error envelope with a
 * catalogue code; the database's own failures are `database_unavailable` with Retry-After.
 */
export function assertAnswersBounded(answers: TimedAnswer[]): void {
  assert.ok(answers.length > 0, 'no request was made');
  for (const answer of answers) {
    assert.ok(answer.ms <= ANSWER_BOUND_MS, `answered within ${ANSWER_BOUND_MS} ms: ${summary(answer)}`);
    if (answer.status === 201) continue;
    const error = (answer.body as { error?: { code?: string; message?: string } } | null)?.error;
    assert.ok(error && errorCodes.includes(error.code as never) && typeof error.message === 'string', `an error envelope: ${summary(answer)}`);
    assert.equal(error.code, 'database_unavailable', summary(answer));
    assert.equal(answer.status, 503, summary(answer));
    assert.match(answer.retryAfter ?? '', /^\d+$/, `Retry-After: ${summary(answer)}`);
  }
}

/** Requests succeed again within RECOVERY_MS of the database serving again: every one begun after that succeeded, and some were. */
export function assertRecovered(answers: TimedAnswer[], backAt: number): number {
  const firstOk = answers.find((a) => a.startedAt >= backAt && a.status === 201);
  assert.ok(firstOk, `a request succeeded after the database came back:\n${answers.slice(-10).map(summary).join('\n')}`);
  const recoveredMs = firstOk.startedAt + firstOk.ms - backAt;
  assert.ok(recoveredMs <= RECOVERY_MS, `requests succeed again within ${RECOVERY_MS} ms (took ${recoveredMs} ms)`);
  // Idle connections the fault broke are found and replaced at once: no failures after the first success.
  const failedLater = answers.filter((a) => a.startedAt >= firstOk.startedAt + 1_000 && a.status !== 201);
  assert.deepEqual(failedLater.map(summary), [], 'every request after recovery succeeded');
  return recoveredMs;
}

/** A JSON-lines logger that keeps its lines (with the time each was written), for failure messages and timelines. */
export function recordingLogger(fields: Record<string, unknown> = {}): { logger: Logger; lines: Array<{ at: number; record: Record<string, unknown> }>; tail(n?: number): string } {
  const lines: Array<{ at: number; record: Record<string, unknown> }> = [];
  const logger = createLogger({ fields, write: (line) => lines.push({ at: Date.now(), record: JSON.parse(line) }) });
  return { logger, lines, tail: (n = 30) => lines.slice(-n).map((l) => JSON.stringify(l.record)).join('\n') };
}

/**
 * After the fault: every acknowledged invoice is stored; the paid invoice is confirmed once (one
 * payment row, one invoice.confirmed event) and its webhook reached the receiver, signed with
 * `secret` (HMAC computed here, independently of the service).
 */
export async function assertNothingLost(
  db: Kysely<CoreTables>,
  options: { acknowledged: string[]; paidInvoiceId: string; received: ReceivedRequest[]; secret: string },
): Promise<void> {
  const { acknowledged, paidInvoiceId } = options;
  assert.ok(acknowledged.length > 0, 'some invoices were acknowledged');
  const stored = await db.selectFrom('invoices').select('invoice_id').where('invoice_id', 'in', acknowledged).execute();
  assert.equal(stored.length, new Set(acknowledged).size, 'every acknowledged invoice is stored');
  const payments = await db.selectFrom('btc_payments').selectAll().where('invoice_id', '=', paidInvoiceId).execute();
  assert.equal(payments.length, 1, `one payment row: ${JSON.stringify(payments)}`);
  const confirmed = (await db.selectFrom('events').select(['event_id', 'payload']).where('type', '=', 'invoice.confirmed').execute()).filter(
    (e) => JSON.parse(e.payload).invoice_id === paidInvoiceId,
  );
  assert.equal(confirmed.length, 1, 'credited once: one invoice.confirmed event');
  const deliveries = options.received.filter((r) => r.headers[webhookHeaders.eventId.toLowerCase()] === confirmed[0].event_id);
  assert.ok(deliveries.length >= 1, 'the invoice.confirmed webhook was delivered');
  for (const delivery of deliveries) {
    assert.equal(delivery.body.toString(), confirmed[0].payload, 'the stored body, byte for byte');
    assert.equal(delivery.headers[webhookHeaders.signature.toLowerCase()], createHmac('sha256', options.secret).update(delivery.body).digest('hex'));
  }
}
