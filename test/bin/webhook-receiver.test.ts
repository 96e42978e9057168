import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { signWebhook, webhookDeliveryHeaders } from '../../core/webhooks/index.ts';
import { standardWebhookHeaders, webhookHeaders } from '../../shared/index.ts';
import { spawnBin, type Child } from '../helpers/child.ts';
import { runCli } from '../helpers/process.ts';

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
    event_id: 'evt_receiver_1',
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
  /** Every header of a real delivery attempt: both signatures. */
  const headersFor = (payload: string, timestamp: number, attempt = 1, eventId = 'evt_receiver_1') =>
    webhookDeliveryHeaders({ eventId, attempt, body: payload, secret, now: timestamp });
  const codeOf = async (res: Response) => [res.status, ((await res.json()) as { error: { code: string } }).error.code];

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

  it('refuses a captured delivery replayed with a fresh timestamp and a new unsigned id', async () => {
    const capturedAt = Date.now() - 10 * 60_000;
    const captured = headersFor(body, capturedAt);
    const fresh = { [webhookHeaders.timestamp]: String(Date.now()), [webhookHeaders.eventId]: 'evt_replayed_as_new' };
    const legacyOnly = Object.fromEntries(Object.entries({ ...captured, ...fresh }).filter(([name]) => !name.startsWith('webhook-')));
    assert.deepEqual(await codeOf(await post(legacyOnly)), [401, 'standard_signature_required']);
    const restamped = { ...captured, ...fresh, [standardWebhookHeaders.timestamp]: String(Math.floor(Date.now() / 1000)), [standardWebhookHeaders.id]: 'evt_replayed_as_new' };
    assert.deepEqual(await codeOf(await post(restamped)), [401, 'invalid_signature']);
    assert.deepEqual(await codeOf(await post({ ...captured, ...fresh })), [401, 'timestamp_too_old']);
  });

  it('takes the id from signed data: a fresh replay under a new X-Service-Event-Id is the same event, a duplicate', async () => {
    const res = await post({ ...headersFor(body, Date.now(), 3), [webhookHeaders.eventId]: 'evt_replayed_as_new' });
    assert.deepEqual(await res.json(), { ok: true, event_id: 'evt_receiver_1', attempt: 3, duplicate: true });
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
    assert.deepEqual(await codeOf(await post(headersFor(body, Date.now()), body.replace('0.00050000', '0.50000000'))), [401, 'invalid_signature']);
  });

  it('answers 401 timestamp_too_old to a delivery stamped six minutes ago', async () => {
    assert.deepEqual(await codeOf(await post(headersFor(body, Date.now() - 6 * 60_000))), [401, 'timestamp_too_old']);
  });

  it('answers 404 on another path', async () => {
    const res = await fetch(new URL('/webhook', url), { method: 'POST', body, headers: headersFor(body, Date.now()) });
    assert.equal(res.status, 404);
  });
});

describe('webhook-receiver --allow-legacy-signature (real process)', () => {
  let child: Child;
  let url: string;
  before(async () => {
    child = spawnBin('bin/webhook-receiver.js', ['--port', '0', '--allow-legacy-signature'], { MERCHANT_WEBHOOK_SECRET: secret });
    url = (await child.waitFor(/listening on (http:\S+)/))[1];
  });
  after(async () => {
    child.process.kill('SIGTERM');
    await child.exited;
  });

  it("accepts X-Service-Signature alone under the body's event_id, never the header's; refuses a body without one", async () => {
    const legacy = (payload: string, eventIdHeader: string) => ({
      'content-type': 'application/json',
      [webhookHeaders.signature]: signWebhook(payload, secret),
      [webhookHeaders.timestamp]: String(Date.now()),
      [webhookHeaders.eventId]: eventIdHeader,
      [webhookHeaders.attempt]: '1',
    });
    const body = JSON.stringify({ event: 'payment.orphan', event_id: 'evt_legacy_body', tx_hash: 'cd'.repeat(32) });
    const first = await fetch(url, { method: 'POST', body, headers: legacy(body, 'evt_header_1') });
    assert.deepEqual(await first.json(), { ok: true, event_id: 'evt_legacy_body', attempt: 1, duplicate: false });
    const replay = await fetch(url, { method: 'POST', body, headers: legacy(body, 'evt_header_2') });
    assert.deepEqual(await replay.json(), { ok: true, event_id: 'evt_legacy_body', attempt: 1, duplicate: true });
    const old = JSON.stringify({ event: 'payment.orphan', tx_hash: 'cd'.repeat(32) });
    const refused = await fetch(url, { method: 'POST', body: old, headers: legacy(old, 'evt_header_3') });
    assert.equal(refused.status, 401);
    assert.equal(((await refused.json()) as { error: { code: string } }).error.code, 'unsigned_event_id');
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
