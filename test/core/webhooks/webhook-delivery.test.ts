import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { WEBHOOK_ACK_TIMEOUT_MS, webhookRetryDelaysMs, type InvoiceConfirmedEvent, type WebhookEventContent } from '../../../shared/index.ts';
import type { CoreDatabase } from '../../../core/schema.ts';
import { enqueueEvent } from '../../../core/events/outbox.ts';
import { silentLogger } from '../../../core/log.ts';
import { countDeliveries, INTERRUPTED_ERROR, listAttempts, listDeliveries, resendDeliveries } from '../../../core/webhooks/delivery-store.ts';
import { createDeliveryWorker, type DeliveryWorker } from '../../../core/webhooks/delivery-worker.ts';
import { createHttpSender } from '../../../core/webhooks/http-sender.ts';
import { realTimers } from '../../../core/webhooks/timers.ts';
import { CLAIM_GRACE_MS } from '../../../core/webhooks/schedule.ts';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { systemClock } from '../../../core/clock.ts';
import { verifyWebhook } from '../../../core/webhooks/index.ts';
import { newWebhookSecret } from '../../../core/webhooks/signature.ts';
import { testDatabases } from '../../helpers/databases.ts';
import { manualTime } from '../../helpers/manual-time.ts';
import { startScriptedReceiver, type Answer, type ReceivedRequest } from '../../helpers/scripted-receiver.ts';

const secret = 'whsec_delivery_test_secret';
const merchantId = 'm_test';

const confirmed = (invoiceId: string): WebhookEventContent<InvoiceConfirmedEvent> => ({
  event: 'invoice.confirmed',
  invoice_id: invoiceId,
  merchant_id: merchantId,
  chain: 'btc',
  asset: 'BTC',
  amount: '0.00050000',
  address: 'bc1qexampleexampleexampleexampleexample0',
  tx_hash: 'cd'.repeat(32),
  confirmations: 1,
  confirmed_at: '2026-01-01T00:00:00.000Z',
});

for (const kind of testDatabases) describe(`webhook delivery worker (${kind.name})`, { skip: kind.skip }, () => {
  let database: CoreDatabase;
  let drop: () => Promise<void>;
  let time: ReturnType<typeof manualTime>;
  let receiver: Awaited<ReturnType<typeof startScriptedReceiver>>;
  let sender: ReturnType<typeof createHttpSender>;
  let worker: DeliveryWorker;
  let script: (req: ReceivedRequest, index: number) => Answer;

  beforeEach(async () => {
    const created = await kind.create();
    database = await created.open();
    drop = created.drop;
    time = manualTime();
    script = () => ({ status: 200, body: '{"ok":true}' });
    receiver = await startScriptedReceiver((req, index) => script(req, index));
    sender = createHttpSender({ maxSockets: 8 });
    worker = newWorker();
  });
  afterEach(async () => {
    await worker.stop();
    sender.close();
    await receiver.close();
    await database.close();
    await drop();
  });

  function newWorker(overrides: Partial<Parameters<typeof createDeliveryWorker>[0]> = {}) {
    return createDeliveryWorker({
      db: database.db,
      scope: { merchantId },
      url: new URL(receiver.url),
      secret,
      clock: time.clock,
      timers: time.timers,
      send: sender,
      logger: silentLogger,
      concurrency: 8,
      pollIntervalMs: 50,
      ...overrides,
    });
  }

  const enqueue = (invoiceId = 'inv_1') => enqueueEvent(database.db, { merchantId, payload: confirmed(invoiceId), createdAt: time.clock.now() });
  const storedPayload = async (eventId: string) =>
    (await database.db.selectFrom('events').select('payload').where('event_id', '=', eventId).executeTakeFirstOrThrow()).payload;
  /** An event whose receiver answered 500 to all ten scheduled attempts. */
  const enqueueAndExhaust = async () => {
    script = () => ({ status: 500 });
    const eventId = await enqueue();
    for (let i = 0; i < 10; i++) {
      await worker.deliverDue();
      time.advance(webhookRetryDelaysMs[i] ?? 0);
    }
    return eventId;
  };
  const delivery = async (eventId: string) => (await listDeliveries(database.db, merchantId, ['pending', 'delivered', 'failed'])).find((d) => d.eventId === eventId)!;

  it('every delivery carries the Standard Webhooks headers, verified by the standardwebhooks package and by verifyWebhook', async () => {
    const whsec = newWebhookSecret();
    worker = newWorker({ secret: whsec, clock: systemClock });
    const eventId = await enqueue();
    assert.equal(await worker.deliverDue(), 1);
    const [req] = receiver.requests;
    const headers = req.headers as Record<string, string>;
    assert.equal(headers['webhook-id'], eventId);
    assert.equal(headers['webhook-timestamp'], String(Math.floor(Number(headers['x-service-timestamp']) / 1000)));
    assert.deepEqual(new Webhook(whsec).verify(req.body, headers), JSON.parse(await storedPayload(eventId)));
    assert.throws(() => new Webhook(newWebhookSecret()).verify(req.body, headers), WebhookVerificationError, 'another secret fails');
    assert.deepEqual(verifyWebhook(req.body, headers, whsec), { ok: true, eventId, attempt: 1, timestamp: Number(headers['webhook-timestamp']) * 1000 });
    assert.equal(JSON.parse(req.body.toString()).event_id, eventId, 'the signed body carries the event id');
  });

  it('fails twice then succeeds: 3 attempts, same event id, attempts 1,2,3, waits 1 s then 5 s', async () => {
    script = (_req, index) => (index < 2 ? { status: index === 0 ? 500 : 503, body: `nope ${index}` } : { status: 204 });
    const eventId = await enqueue();
    const start = time.clock.now();

    assert.equal(await worker.deliverDue(), 1);
    time.advance(webhookRetryDelaysMs[0] - 1);
    assert.equal(await worker.deliverDue(), 0, 'not due 1 ms before the 1 s wait ends');
    time.advance(1);
    assert.equal(await worker.deliverDue(), 1);
    time.advance(webhookRetryDelaysMs[1] - 1);
    assert.equal(await worker.deliverDue(), 0, 'not due 1 ms before the 5 s wait ends');
    time.advance(1);
    assert.equal(await worker.deliverDue(), 1);
    assert.equal(await worker.deliverDue(), 0, 'delivered: nothing more to send');

    assert.equal(receiver.requests.length, 3);
    const body = await storedPayload(eventId);
    const expectedTimes = [start, start + 1_000, start + 6_000];
    receiver.requests.forEach((req, i) => {
      assert.equal(req.method, 'POST');
      assert.equal(req.headers['content-type'], 'application/json');
      assert.equal(req.headers['x-service-event-id'], eventId);
      assert.equal(req.headers['x-service-attempt'], String(i + 1));
      assert.equal(req.headers['x-service-timestamp'], String(expectedTimes[i]), 'fresh timestamp on each attempt');
      assert.equal(req.body.toString('utf8'), body, 'the stored bytes, unchanged');
      assert.equal(verifyWebhook(req.body, req.headers, secret, expectedTimes[i]).ok, true);
    });

    const attempts = await listAttempts(database.db, merchantId, eventId);
    assert.deepEqual(
      attempts.map((a) => [a.attempt, a.http_status, a.error, a.response_excerpt]),
      [
        [1, 500, 'HTTP 500', 'nope 0'],
        [2, 503, 'HTTP 503', 'nope 1'],
        [3, 204, null, ''],
      ],
    );
    const state = await delivery(eventId);
    assert.equal(state.status, 'delivered');
    assert.equal(state.attempts, 3);
  });

  it('gives up after the 10th failure, on the spec schedule, and leaves the invoice as it is', async () => {
    script = () => ({ status: 500 });
    await database.db
      .insertInto('invoices')
      .values({
        invoice_id: 'inv_1', merchant_id: merchantId, chain: 'btc', asset: 'BTC', network: 'regtest', receive_address: 'bcrt1qx',
        child_index: 0, derivation_path: null, key_id: 'k', amount_sats: 50_000, amount_units: null, memo: null, status: 'confirmed',
        tx_hash: 'cd'.repeat(32), paid_at: time.clock.now(), expires_at: time.clock.now() + 3_600_000, created_at: time.clock.now(), updated_at: time.clock.now(),
      })
      .execute();
    const invoiceBefore = await database.db.selectFrom('invoices').selectAll().execute();
    const eventId = await enqueue();

    assert.equal(await worker.deliverDue(), 1);
    for (const wait of webhookRetryDelaysMs) {
      time.advance(wait - 1);
      assert.equal(await worker.deliverDue(), 0);
      time.advance(1);
      assert.equal(await worker.deliverDue(), 1);
    }
    time.advance(7 * 24 * 3_600_000);
    assert.equal(await worker.deliverDue(), 0, 'no 11th attempt');

    assert.equal(receiver.requests.length, 10);
    assert.deepEqual(receiver.requests.map((r) => r.headers['x-service-attempt']), ['1', '2', '3', '4', '5', '6', '7', '8', '9', '10']);
    const state = await delivery(eventId);
    assert.equal(state.status, 'failed');
    assert.equal(state.lastHttpStatus, 500);
    assert.deepEqual(await database.db.selectFrom('invoices').selectAll().execute(), invoiceBefore);
    assert.deepEqual(await countDeliveries(database.db, merchantId), { queued: 0, failing: 0, failed: 1 });
  });

  it('times out an attempt at 10 s, aborts the request and schedules the retry', async () => {
    script = () => 'hang';
    const eventId = await enqueue();
    const start = time.clock.now();
    const run = worker.deliverDue();
    await receiver.waitForRequests(1);

    time.advance(WEBHOOK_ACK_TIMEOUT_MS - 1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.deepEqual(await listAttempts(database.db, merchantId, eventId), [], 'still waiting 1 ms before the timeout');

    time.advance(1);
    assert.equal(await run, 1);
    await receiver.requests[0].closed;
    const [attempt] = await listAttempts(database.db, merchantId, eventId);
    assert.equal(attempt.error, 'timeout: no answer within 10000 ms');
    assert.equal(attempt.duration_ms, WEBHOOK_ACK_TIMEOUT_MS);
    const state = await delivery(eventId);
    assert.equal(state.nextAttemptAt, start + WEBHOOK_ACK_TIMEOUT_MS + 1_000);
  });

  it('does not follow a redirect: a 3xx is a failed attempt', async () => {
    script = (req) => (req.path === '/webhook' ? { status: 307, headers: { location: '/elsewhere' } } : { status: 200 });
    const eventId = await enqueue();
    await worker.deliverDue();
    assert.deepEqual(receiver.requests.map((r) => r.path), ['/webhook']);
    assert.equal((await delivery(eventId)).lastHttpStatus, 307);
    assert.equal((await delivery(eventId)).status, 'pending');
  });

  it('records a network error when nothing listens', async () => {
    const eventId = await enqueue();
    const closed = await startScriptedReceiver(() => ({ status: 200 }));
    await closed.close();
    worker = newWorker({ url: new URL(closed.url) });
    await worker.deliverDue();
    const [attempt] = await listAttempts(database.db, merchantId, eventId);
    assert.match(attempt.error!, /^network error: ECONNREFUSED/);
    assert.equal(attempt.http_status, null);
  });

  it('persists the attempt number and retry time before the request goes out; a restart continues from them', async () => {
    script = () => 'hang';
    const eventId = await enqueue();
    const claimedAt = time.clock.now();
    void worker.deliverDue();
    await receiver.waitForRequests(1);

    // The request is in flight: the claim is already stored.
    const inFlight = await delivery(eventId);
    assert.equal(inFlight.attempts, 1);
    assert.equal(inFlight.nextAttemptAt, claimedAt + WEBHOOK_ACK_TIMEOUT_MS + CLAIM_GRACE_MS + 1_000);

    // A stop aborts the request without recording it, as a crash would.
    await worker.stop();
    script = () => ({ status: 200 });
    worker = newWorker();
    time.advance(WEBHOOK_ACK_TIMEOUT_MS + CLAIM_GRACE_MS + 1_000 - 1);
    assert.equal(await worker.deliverDue(), 0, 'not retried before the interrupted attempt would have timed out plus the 1 s wait');
    time.advance(1);
    assert.equal(await worker.deliverDue(), 1);

    assert.equal(receiver.requests[1].headers['x-service-attempt'], '2');
    assert.equal(receiver.requests[1].headers['x-service-event-id'], eventId);
    const attempts = await listAttempts(database.db, merchantId, eventId);
    assert.deepEqual(attempts.map((a) => [a.attempt, a.error]), [[1, INTERRUPTED_ERROR], [2, null]]);
    assert.equal((await delivery(eventId)).status, 'delivered');
  });

  it('re-sends a failed event as a new attempt of the same event id with the stored body', async () => {
    const eventId = await enqueueAndExhaust();
    assert.equal((await delivery(eventId)).status, 'failed');

    script = () => ({ status: 200 });
    assert.deepEqual(await resendDeliveries(database.db, merchantId, { allFailed: true }, time.clock.now()), [eventId]);
    assert.equal(await worker.deliverDue(), 1);
    const last = receiver.requests.at(-1)!;
    assert.equal(last.headers['x-service-attempt'], '11');
    assert.equal(last.headers['x-service-event-id'], eventId);
    assert.equal(last.body.toString('utf8'), await storedPayload(eventId));
    assert.equal((await delivery(eventId)).status, 'delivered');
  });

  it('a re-sent event that fails again is failed after that one attempt', async () => {
    const eventId = await enqueueAndExhaust();
    await resendDeliveries(database.db, merchantId, { eventId }, time.clock.now());
    assert.equal(await worker.deliverDue(), 1);
    time.advance(24 * 3_600_000);
    assert.equal(await worker.deliverDue(), 0);
    assert.equal((await delivery(eventId)).status, 'failed');
    assert.equal((await delivery(eventId)).attempts, 11);
  });

  it('sends the payload text exactly as stored, whatever its formatting', async () => {
    const payload = '{ "event":"payment.orphan",  "value":"12.000417", "chain":"base" }';
    await database.db
      .insertInto('events')
      .values({ event_id: 'evt_fixed', merchant_id: merchantId, type: 'payment.orphan', payload, created_at: time.clock.now() })
      .execute();
    await worker.deliverDue();
    assert.equal(receiver.requests[0].body.toString('utf8'), payload);
  });

  it('delivers only the configured merchant events', async () => {
    await enqueueEvent(database.db, { merchantId: 'someone_else', payload: confirmed('inv_x'), createdAt: time.clock.now() });
    assert.equal(await worker.deliverDue(), 0);
    assert.equal(receiver.requests.length, 0);
  });

  it('counts queued, failing and failed events for /health', async () => {
    script = (_req, index) => (index === 0 ? { status: 500 } : 'hang');
    await enqueue('inv_a');
    await worker.deliverDue();
    await enqueue('inv_b');
    assert.deepEqual(await countDeliveries(database.db, merchantId), { queued: 1, failing: 1, failed: 0 });
  });

  it('a receiver that hangs on one event does not hold back the others (no head-of-line blocking)', async () => {
    const stuck = await enqueue('inv_stuck');
    script = (req) => (req.headers['x-service-event-id'] === stuck ? 'hang' : { status: 200 });
    const others = [await enqueue('inv_2'), await enqueue('inv_3'), await enqueue('inv_4'), await enqueue('inv_5')];
    worker = newWorker({ concurrency: 2, timers: realTimers, pollIntervalMs: 10 });
    worker.start();
    await receiver.waitForRequests(5);
    for (;;) {
      const delivered = await listDeliveries(database.db, merchantId, ['delivered']);
      if (delivered.length === others.length) {
        assert.deepEqual(delivered.map((d) => d.eventId).sort(), [...others].sort());
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.equal((await delivery(stuck)).status, 'pending');
  });

  it('a wake-up delivers a newly stored event at once, not at the end of a ten-minute poll interval', async () => {
    worker = newWorker({ clock: systemClock, timers: realTimers, pollIntervalMs: 10 * 60_000 });
    worker.start();
    for (const [n, invoiceId] of [[1, 'inv_woken_1'], [2, 'inv_woken_2']] as const) {
      const eventId = await enqueueEvent(database.db, { merchantId, payload: confirmed(invoiceId), createdAt: systemClock.now() });
      worker.wake();
      await receiver.waitForRequests(n);
      assert.equal(receiver.requests[n - 1].headers['webhook-id'], eventId);
    }
  });
});
