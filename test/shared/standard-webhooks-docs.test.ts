import { defaultChains } from '../../core/chains/default-chains.ts';
// The receivers of docs/standard-webhooks.md and docs/webhooks.md, run with plain node against the
// real delivery worker and against replays: one verifies with the `standardwebhooks` package, one by
// hand with node:crypto.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { systemClock } from '../../core/clock.ts';
import { enqueueEvent } from '../../core/events/outbox.ts';
import { silentLogger } from '../../core/log.ts';
import { openCoreDatabase } from '../../core/schema.ts';
import { createDeliveryWorker } from '../../core/webhooks/delivery-worker.ts';
import { createHttpSender } from '../../core/webhooks/http-sender.ts';
import { newWebhookSecret, webhookDeliveryHeaders } from '../../core/webhooks/signature.ts';
import { realTimers } from '../../core/webhooks/timers.ts';
import { standardWebhookHeaders, webhookHeaders, type InvoiceConfirmedEvent, type WebhookEventContent } from '../../shared/index.ts';
import { repoRoot, spawnChild } from '../helpers/child.ts';
import { releasedPort } from '../helpers/ports.ts';
import { readmeBlocks } from '../helpers/readme-blocks.ts';

const blocks = readmeBlocks(readFileSync(join(repoRoot, 'docs/standard-webhooks.md'), 'utf8'), 'docs/standard-webhooks.md');
const receivers = [...blocks, ...readmeBlocks(readFileSync(join(repoRoot, 'docs/webhooks.md'), 'utf8'), 'docs/webhooks.md')].filter(
  (block) => block.kind === 'receiver',
);
// Inside the repository, so the `standardwebhooks` import resolves from its node_modules.
const cacheDir = join(repoRoot, 'node_modules', '.cache');
mkdirSync(cacheDir, { recursive: true });
const work = mkdtempSync(join(cacheDir, 'standard-webhooks-docs-'));
after(() => rmSync(work, { recursive: true, force: true }));

const event: WebhookEventContent<InvoiceConfirmedEvent> = {
  event: 'invoice.confirmed',
  invoice_id: 'inv_docs_std',
  merchant_id: 'm_docs',
  chain: 'btc',
  asset: 'BTC',
  amount: '0.00050000',
  address: 'bcrt1qexample',
  tx_hash: 'ef'.repeat(32),
  confirmations: 1,
  confirmed_at: '2026-01-01T00:00:00.000Z',
};

describe("the docs' webhook receivers", () => {
  it('are two, one per page, marked; every other block of docs/standard-webhooks.md is marked or JSON', () => {
    assert.equal(receivers.length, 2);
    assert.ok(receivers.some((block) => block.lines.join('\n').includes("from 'standardwebhooks'")), 'one uses the standardwebhooks package');
    for (const block of blocks) assert.notEqual(block.kind, null, `block at line ${block.line}: ${block.reason}`);
  });

  for (const [index, block] of receivers.entries()) {
    it(`receiver ${index + 1} (${block.file} line ${block.line}) accepts a real delivery and refuses a forged, stale or replayed one`, async () => {
      const secret = newWebhookSecret();
      const port = await releasedPort();
      const file = join(work, `receiver-${index}.mjs`);
      writeFileSync(file, block.lines.join('\n').replace(/\b9876\b/g, String(port)));
      const child = spawnChild(process.execPath, [file], { MERCHANT_WEBHOOK_SECRET: secret });
      const database = await openCoreDatabase('sqlite::memory:', defaultChains);
      const sender = createHttpSender({ maxSockets: 2 });
      try {
        const url = `http://127.0.0.1:${port}/`;
        const deadline = Date.now() + 30_000;
        while ((await fetch(url, { method: 'POST' }).then((r) => r.status, () => 0)) === 0) {
          assert.equal(child.process.exitCode, null, `the receiver exited: ${child.stderr()}`);
          assert.ok(Date.now() < deadline, `the receiver did not listen on ${port}: ${child.stderr()}`);
          await new Promise((r) => setTimeout(r, 100));
        }
        const eventId = await enqueueEvent(database.db, { merchantId: 'm_docs', payload: event, createdAt: Date.now() });
        const worker = createDeliveryWorker({
          db: database.db,
          scope: { merchantId: 'm_docs' },
          url: new URL(url),
          secret,
          clock: systemClock,
          timers: realTimers,
          send: sender,
          logger: silentLogger,
          concurrency: 1,
          pollIntervalMs: 50,
        });
        assert.equal(await worker.deliverDue(), 1);
        const attempt = await database.db.selectFrom('webhook_attempts').select(['http_status', 'error']).where('event_id', '=', eventId).executeTakeFirstOrThrow();
        assert.deepEqual(attempt, { http_status: 200, error: null }, child.stderr());
        await child.waitFor(new RegExp(`^verified ${eventId} invoice\\.confirmed inv_docs_std$`, 'm'));

        const body = JSON.stringify(event);
        const headers = webhookDeliveryHeaders({ eventId: 'evt_forged', attempt: 1, body, secret, now: Date.now() });
        const forged = await fetch(url, { method: 'POST', body: body.replace('0.0005', '5.0000'), headers });
        assert.equal(forged.status, 401);
        const stale = webhookDeliveryHeaders({ eventId: 'evt_stale', attempt: 1, body, secret, now: Date.now() - 6 * 60_000 });
        assert.equal((await fetch(url, { method: 'POST', body, headers: stale })).status, 401, 'a six-minute-old delivery is refused');

        // The delivered event, captured ten minutes ago, replayed with a fresh timestamp and a new unsigned id.
        const delivered = (await database.db.selectFrom('events').select('payload').where('event_id', '=', eventId).executeTakeFirstOrThrow()).payload;
        assert.equal(JSON.parse(delivered).event_id, eventId, 'the signed body carries the event id');
        const captured = webhookDeliveryHeaders({ eventId, attempt: 1, body: delivered, secret, now: Date.now() - 10 * 60_000 });
        const fresh = { [webhookHeaders.timestamp]: String(Date.now()), [webhookHeaders.eventId]: 'evt_replayed_as_new' };
        const legacyOnly = Object.fromEntries(Object.entries({ ...captured, ...fresh }).filter(([name]) => !name.startsWith('webhook-')));
        const restamped = { ...captured, ...fresh, [standardWebhookHeaders.timestamp]: String(Math.floor(Date.now() / 1000)), [standardWebhookHeaders.id]: 'evt_replayed_as_new' };
        for (const [what, headers] of [['only the legacy headers', legacyOnly], ['its webhook-timestamp and webhook-id changed', restamped], ['its signed headers kept', { ...captured, ...fresh }]] as const) {
          const replay = await fetch(url, { method: 'POST', body: delivered, headers });
          assert.equal(replay.status, 401, `a replay with ${what} is refused: ${await replay.text()}`);
        }
        // Inside the five minutes a replay passes the signature, under its own signed id: a duplicate, not acted on.
        const within = { ...webhookDeliveryHeaders({ eventId, attempt: 1, body: delivered, secret, now: Date.now() }), [webhookHeaders.eventId]: 'evt_replayed_as_new' };
        const repeat = await fetch(url, { method: 'POST', body: delivered, headers: within });
        assert.deepEqual([repeat.status, await repeat.json()], [200, { ok: true, duplicate: true }]);
        await child.waitFor(new RegExp(`^duplicate ${eventId}$`, 'm'));
        assert.doesNotMatch(child.stdout(), /evt_replayed_as_new/);
        assert.equal(child.stdout().match(/^verified /gm)?.length, 1, 'the event was acted on once');
      } finally {
        sender.close();
        await database.close();
        child.process.kill('SIGTERM');
        await child.exited;
      }
    });
  }
});
