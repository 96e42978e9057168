import { defaultChains } from '../core/chains/default-chains.ts';
/**
 * Webhook delivery throughput: 20,000 stored events delivered by the real worker (SQLite outbox,
 * signed, every attempt recorded) to the `webhook-receiver` tool running as a separate process,
 * 50 in flight; baseline: a bare loop of HTTP POSTs with the same headers (both signatures) to the
 * same receiver, 50 in flight.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { systemClock } from '../core/clock.ts';
import { openCoreDatabase } from '../core/schema.ts';
import { enqueueEvent } from '../core/events/outbox.ts';
import { silentLogger } from '../core/log.ts';
import { countDeliveries } from '../core/webhooks/delivery-store.ts';
import { createDeliveryWorker } from '../core/webhooks/delivery-worker.ts';
import { createHttpSender } from '../core/webhooks/http-sender.ts';
import { webhookDeliveryHeaders } from '../core/webhooks/signature.ts';
import { realTimers } from '../core/webhooks/timers.ts';
import type { InvoiceConfirmedEvent, WebhookEventContent } from '../shared/index.ts';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 20_000);
const IN_FLIGHT = 50;
const TARGET_EVENTS_PER_S = 1_000;
const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
const merchantId = 'bench';
const progress = (line: string) => process.stderr.write(`${line}\n`);

const payload = (i: number): WebhookEventContent<InvoiceConfirmedEvent> => ({
  event: 'invoice.confirmed',
  invoice_id: `inv_${String(i).padStart(8, '0')}`,
  merchant_id: merchantId,
  chain: 'btc',
  asset: 'BTC',
  amount: '0.00050000',
  address: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq',
  tx_hash: 'cd'.repeat(32),
  confirmations: 1,
  confirmed_at: '2026-01-01T00:00:00.000Z',
});

async function startReceiverProcess(): Promise<{ url: string; stop(): void }> {
  const bin = fileURLToPath(new URL('../bin/webhook-receiver.js', import.meta.url));
  const child = spawn(process.execPath, [bin, '--port', '0', '--secret', secret], { stdio: ['ignore', 'ignore', 'pipe'] });
  const url = await new Promise<string>((resolve, reject) => {
    let err = '';
    child.stderr.on('data', (d) => {
      err += d;
      const match = /listening on (http:\S+)/.exec(err);
      if (match) resolve(match[1]);
    });
    child.once('exit', () => reject(new Error(`receiver exited: ${err}`)));
  });
  return { url, stop: () => child.kill('SIGTERM') };
}

async function bareLoop(url: URL): Promise<number> {
  const sender = createHttpSender({ maxSockets: IN_FLIGHT });
  let next = 0;
  const started = performance.now();
  const lane = async () => {
    while (next < EVENTS) {
      const i = next++;
      const body = JSON.stringify(payload(i));
      const response = await sender({
        url,
        body,
        signal: AbortSignal.timeout(10_000),
        headers: webhookDeliveryHeaders({ eventId: `evt_bare_${i}`, attempt: 1, body, secret, now: Date.now() }),
      });
      if (response.status !== 200) throw new Error(`bare POST answered ${response.status}`);
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
  sender.close();
  return EVENTS / ((performance.now() - started) / 1000);
}

async function workerRun(url: URL, dir: string): Promise<number> {
  const database = await openCoreDatabase(`sqlite:${join(dir, 'bench.db')}`, defaultChains);
  for (let i = 0; i < EVENTS; i += 1_000) {
    await database.db.transaction().execute(async (trx) => {
      for (let j = i; j < Math.min(i + 1_000, EVENTS); j++) await enqueueEvent(trx, { merchantId, payload: payload(j), createdAt: Date.now() });
    });
  }
  progress(`stored ${EVENTS} events`);
  const sender = createHttpSender({ maxSockets: IN_FLIGHT });
  const worker = createDeliveryWorker({
    db: database.db,
    scope: { merchantId },
    url,
    secret,
    clock: systemClock,
    timers: realTimers,
    send: sender,
    logger: silentLogger,
    concurrency: IN_FLIGHT,
    pollIntervalMs: 250,
  });
  const started = performance.now();
  const attempts = await worker.deliverDue();
  const seconds = (performance.now() - started) / 1000;
  const counts = await countDeliveries(database.db, merchantId);
  if (attempts !== EVENTS || counts.queued + counts.failing + counts.failed !== 0) {
    throw new Error(`expected ${EVENTS} deliveries, made ${attempts} attempts; left ${JSON.stringify(counts)}`);
  }
  sender.close();
  await database.close();
  return EVENTS / seconds;
}

const dir = mkdtempSync(join(tmpdir(), 'bench-webhooks-'));
const receiver = await startReceiverProcess();
try {
  const url = new URL(receiver.url);
  progress(`receiver process at ${receiver.url}; warming up`);
  progress('bare POST loop…');
  const bare = await bareLoop(url);
  progress(`bare loop: ${bare.toFixed(0)} requests/s`);
  progress('delivery worker…');
  const worker = await workerRun(url, dir);
  const ratio = worker / bare;
  console.log(`events:             ${EVENTS}, ${IN_FLIGHT} in flight, receiver = webhook-receiver process`);
  console.log(`bare HTTP POST loop ${bare.toFixed(0)} requests/s`);
  console.log(`delivery worker     ${worker.toFixed(0)} events/s (stored, signed, sent, recorded)`);
  console.log(`ratio               ${(ratio * 100).toFixed(1)}% of the bare loop (target >= 50% and >= ${TARGET_EVENTS_PER_S} events/s)`);
  console.log(
    JSON.stringify({
      bench: 'webhooks',
      value: Math.round(worker),
      unit: 'events/s',
      baseline: Math.round(bare),
      ratio: Number(ratio.toFixed(3)),
      target: TARGET_EVENTS_PER_S,
      target_ratio: 0.5,
      events: EVENTS,
      in_flight: IN_FLIGHT,
    }),
  );
} finally {
  receiver.stop();
  rmSync(dir, { recursive: true, force: true });
}
