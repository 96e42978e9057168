import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { signWebhook, webhookDeliveryHeaders } from '../core/webhooks/index.ts';
import { spawnBin, type Child } from './support/child.ts';
import { runCli } from './support/process.ts';

const secret = 'whsec_receiver_test';

describe('webhook-receiver CLI (real process)', () => {
  let child: Child;
  let url: string;

  before(async () => {
    child = spawnBin('bin/webhook-receiver.js', ['--port', '0', '--path', '/hooks/in'], { MERCHANT_WEBHOOK_SECRET: secret });
    url = (await child.waitFor(/listening on (http:\S+)/))[1];
  });
  after(async () => {
    child.process.kill('SIGTERM');
    await child.exited;
  });

  const body = JSON.stringify({
    event: 'invoice.confirmed',
    invoice_id: 'inv_123',
    merchant_id: 'm_1',
    chain: 'btc',
    asset: 'BTC',
    amount: '0.00050000',
    address: 'bc1qexample',
    tx_hash: 'ab'.repeat(32),
    confirmations: 1,
    confirmed_at: '2025-06-01T12:00:00.000Z',
  });
  const post = (headers: Record<string, string>, payload = body) =>
    fetch(url, { method: 'POST', body: payload, headers: { 'content-type': 'application/json', ...headers } });
  const headersFor = (payload: string, timestamp: number, attempt = 1) => ({
    'X-Service-Signature': signWebhook(payload, secret),
    'X-Service-Timestamp': String(timestamp),
    'X-Service-Event-Id': 'evt_receiver_1',
    'X-Service-Attempt': String(attempt),
  });

  it('answers 200 {"ok":true} to a valid delivery and prints the event', async () => {
    const res = await post(headersFor(body, Date.now()));
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { ok: true, event_id: 'evt_receiver_1', attempt: 1, duplicate: false });
    const printed = await child.waitFor(/invoice\.confirmed\s+evt_receiver_1\s+attempt 1[\s\S]*invoice_id\s+inv_123[\s\S]*amount\s+0\.00050000/);
    assert.ok(printed);
  });

  it('flags a re-delivery of the same event id as a duplicate', async () => {
    const res = await post(headersFor(body, Date.now(), 2));
    assert.deepEqual(await res.json(), { ok: true, event_id: 'evt_receiver_1', attempt: 2, duplicate: true });
  });

  it('accepts a delivery with only the Standard Webhooks headers (attempt null), and refuses a forged one', async () => {
    const standard = (payload: string, id: string) => {
      const sent = webhookDeliveryHeaders({ eventId: id, attempt: 1, body: payload, secret, now: Date.now() });
      return { 'webhook-id': sent['webhook-id'], 'webhook-timestamp': sent['webhook-timestamp'], 'webhook-signature': sent['webhook-signature'] };
    };
    const res = await post(standard(body, 'evt_receiver_std'));
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { ok: true, event_id: 'evt_receiver_std', attempt: null, duplicate: false });
    await child.waitFor(/invoice\.confirmed\s+evt_receiver_std\s+Standard Webhooks/);
    const forged = await post({ ...standard(body, 'evt_receiver_std2'), 'webhook-id': 'evt_receiver_std3' });
    assert.equal(forged.status, 401);
    assert.equal(((await forged.json()) as { error: { code: string } }).error.code, 'invalid_signature');
  });

  it('answers 401 invalid_signature to a tampered body', async () => {
    const res = await post(headersFor(body, Date.now()), body.replace('0.00050000', '0.50000000'));
    assert.equal(res.status, 401);
    assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'invalid_signature');
  });

  it('answers 401 timestamp_too_old to a delivery stamped six minutes ago', async () => {
    const res = await post(headersFor(body, Date.now() - 6 * 60_000));
    assert.equal(res.status, 401);
    assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'timestamp_too_old');
  });

  it('answers 404 on another path', async () => {
    const res = await fetch(new URL('/webhook', url), { method: 'POST', body, headers: headersFor(body, Date.now()) });
    assert.equal(res.status, 404);
  });
});

describe('webhook-receiver CLI arguments', () => {
  it('prints usage for --help and exits 0', async () => {
    const { code, stdout } = await runCli(['webhook-receiver', '--help']);
    assert.equal(code, 0);
    assert.match(stdout, /--port N\s+listen port \(default 9876/);
  });

  it('refuses to start without a secret', async () => {
    const { code, stderr } = await runCli(['webhook-receiver', '--port', '0']);
    assert.equal(code, 2);
    assert.match(stderr, /no secret/);
  });
});
