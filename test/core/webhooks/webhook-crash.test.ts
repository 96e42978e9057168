import { defaultChains } from '../../../core/chains/default-chains.ts';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openCoreDatabase } from '../../../core/schema.ts';
import { enqueueEvent } from '../../../core/events/outbox.ts';
import { INTERRUPTED_ERROR, listAttempts, listDeliveries } from '../../../core/webhooks/delivery-store.ts';
import { CLAIM_GRACE_MS } from '../../../core/webhooks/schedule.ts';
import { verifyWebhook } from '../../../core/webhooks/index.ts';
import { WEBHOOK_ACK_TIMEOUT_MS } from '../../../shared/index.ts';
import { runCli, spawnListener, type ListenerProcess } from '../../helpers/process.ts';
import { startScriptedReceiver, type Answer } from '../../helpers/scripted-receiver.ts';

const secret = 'whsec_crash_test_secret';
const merchantId = 'm_crash';

describe('kill -9 of the listener mid-delivery', () => {
  let dir: string;
  let receiver: Awaited<ReturnType<typeof startScriptedReceiver>>;
  let answer: Answer = 'hang';
  const children: ListenerProcess[] = [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'webhook-crash-'));
    receiver = await startScriptedReceiver(() => answer);
  });
  after(async () => {
    for (const listener of children) if (listener.child.exitCode === null) listener.child.kill('SIGKILL');
    await receiver.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const databaseUrl = () => `sqlite:${join(dir, 'service.db')}`;
  const startListenerProcess = async () => {
    const listener = await spawnListener({
      DATABASE_URL: databaseUrl(),
      MERCHANT_ID: merchantId,
      MERCHANT_WEBHOOK_URL: receiver.url,
      MERCHANT_WEBHOOK_SECRET: secret,
    });
    children.push(listener);
    return listener;
  };

  it('restarts and delivers the event as attempt 2 with the same id and body', async () => {
    const seed = await openCoreDatabase(databaseUrl(), defaultChains);
    const eventId = await enqueueEvent(seed.db, {
      merchantId,
      createdAt: Date.now(),
      payload: {
        event: 'payment.orphan',
        chain: 'base',
        asset: 'USDC',
        token_address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
        address: '0x1111111111111111111111111111111111111111',
        tx_hash: `0x${'ab'.repeat(32)}`,
        value: '12.000417',
        detected_at: '2026-01-01T00:00:00.000Z',
      },
    });
    const body = (await seed.db.selectFrom('events').select('payload').executeTakeFirstOrThrow()).payload;
    await seed.close();

    const first = await startListenerProcess();
    await receiver.waitForRequests(1);
    const exited = new Promise((resolve) => first.child.once('exit', (code, signal) => resolve(signal)));
    first.child.kill('SIGKILL');
    assert.equal(await exited, 'SIGKILL');

    const db = await openCoreDatabase(databaseUrl(), defaultChains);
    const [claimed] = await listDeliveries(db.db, merchantId);
    assert.equal(claimed.attempts, 1, 'attempt 1 was stored before the request went out');
    assert.equal(claimed.nextAttemptAt, claimed.lastAttemptAt! + WEBHOOK_ACK_TIMEOUT_MS + CLAIM_GRACE_MS + 1_000);
    // Stand in for the 16 s wait (interrupted attempt's timeout, grace, then the 1 s retry wait)
    // by moving the stored due time, so the test does not sleep.
    await db.db.updateTable('events').set({ next_attempt_at: Date.now() }).execute();
    await db.close();

    answer = { status: 200, body: '{"ok":true}' };
    const second = await startListenerProcess();
    await receiver.waitForRequests(2);
    for (;;) {
      const health = (await (await fetch(`${second.url}/health`)).json()) as { webhooks: Record<string, number> };
      if (health.webhooks.failing === 0 && health.webhooks.queued === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await second.stop();

    const [, retry] = receiver.requests;
    assert.equal(retry.headers['x-service-attempt'], '2');
    assert.equal(retry.headers['x-service-event-id'], eventId);
    assert.equal(retry.body.toString('utf8'), body);
    assert.equal(verifyWebhook(retry.body, retry.headers, secret).ok, true);

    const after = await openCoreDatabase(databaseUrl(), defaultChains);
    const attempts = await listAttempts(after.db, merchantId, eventId);
    assert.deepEqual(attempts.map((a) => [a.attempt, a.http_status, a.error]), [[1, null, INTERRUPTED_ERROR], [2, 200, null]]);
    assert.equal((await listDeliveries(after.db, merchantId, ['delivered']))[0].eventId, eventId);
    await after.close();
  });
});

describe('start with a webhook URL', () => {
  const refused: { name: string; env: Record<string, string>; message: RegExp }[] = [
    { name: 'a plain-http URL to another host', env: { MERCHANT_WEBHOOK_URL: 'http://example.com/hook', MERCHANT_WEBHOOK_SECRET: secret }, message: /MERCHANT_WEBHOOK_URL must be https/ },
    { name: 'a URL without a secret', env: { MERCHANT_WEBHOOK_URL: 'https://example.com/hook' }, message: /MERCHANT_WEBHOOK_SECRET is not/ },
  ];
  for (const r of refused) {
    it(`is refused for ${r.name}`, async () => {
      const { code, stdout, stderr } = await runCli(['start'], { env: { DATABASE_URL: 'sqlite::memory:', PORT: '0', ...r.env } });
      assert.equal(code, 1);
      assert.match(stderr, r.message);
      assert.doesNotMatch(stderr + stdout, new RegExp(secret));
    });
  }
});
