import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import bolt11 from 'bolt11';
import { systemClock } from '../../core/clock.ts';
import { startWebhookReceiver, type ReceivedWebhook } from '../../core/webhooks/receiver.ts';
import { newWebhookSecret } from '../../core/webhooks/signature.ts';
import { bannerLine } from '../helpers/banner.ts';
import { releasedPort } from '../helpers/ports.ts';
import { runCli, spawnListener, type ListenerProcess } from '../helpers/process.ts';
import { invoiceReaching, waitForWatcher } from '../helpers/wait-for-watcher.ts';

const sha256 = (hex: string) => createHash('sha256').update(Buffer.from(hex, 'hex')).digest('hex');

async function createInvoice(listener: ListenerProcess, body: object): Promise<Record<string, string>> {
  const res = await fetch(`${listener.url}/invoice`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const created = (await res.json()) as Record<string, string>;
  assert.equal(res.status, 201, JSON.stringify(created));
  return created;
}

/** The one invoice.confirmed delivery of `invoiceId` once it has arrived; on timeout, what did arrive. */
function confirmedWebhook(received: ReceivedWebhook[], invoiceId: string, listener: ListenerProcess): Promise<Record<string, unknown>> {
  const find = () => received.find((event) => event.payload.event === 'invoice.confirmed' && event.payload.invoice_id === invoiceId);
  return waitForWatcher(`invoice.confirmed of ${invoiceId}`, find, (event) => event !== undefined, {
    watcher: async () => ({ received: received.map((event) => event.payload.event), health: await (await fetch(`${listener.url}/health`)).json() }),
  }).then((event) => event!.payload);
}

test('sandbox Lightning: invoices carry a BOLT11 from the simulated wallet, `service pay --lightning` settles it, the invoice confirms (own-wallet) and invoice.confirmed carries the preimage', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-lightning-'));
  const env = { SANDBOX_CHAIN_PORT: String(await releasedPort()) };
  const secret = newWebhookSecret();
  const received: ReceivedWebhook[] = [];
  // A receiver of the test's own, so the deliveries are read as they were sent, not as the console prints them.
  const receiver = await startWebhookReceiver({ host: '127.0.0.1', port: 0, path: '/webhook', secret, clock: systemClock, onEvent: (event) => received.push(event) });
  const listener = await spawnListener({ MERCHANT_BTC_XPUB: '', MERCHANT_WEBHOOK_URL: receiver.url, MERCHANT_WEBHOOK_SECRET: secret, ...env }, dir);
  try {
    const banner = await waitForWatcher('the sandbox banner', () => listener.output(), (output) => /Pay: .*--lightning/.test(output), { watcher: () => listener.output().slice(-4000) });
    assert.match(bannerLine(banner, 'Lightning:'), /^a simulated wallet \(regtest, not a real Lightning node\) over a local Nostr relay \(ws:\/\/127\.0\.0\.1:\d+\)/);

    const created = await createInvoice(listener, { amount_sats: 21_000, payment_methods: ['onchain', 'lightning'] });
    assert.match(created.receive_address, /^bcrt1/, 'on-chain next to Lightning');
    const decoded = bolt11.decode(created.lightning_invoice, { bech32: 'bcrt', pubKeyHash: 0x6f, scriptHash: 0xc4, validWitnessVersions: [0, 1] });
    assert.equal(decoded.satoshis, 21_000);
    assert.equal(decoded.tags.find((tag) => tag.tagName === 'payment_hash')?.data, created.payment_hash);

    const paid = await runCli(['pay', created.invoice_id, '--lightning', '--url', listener.url], { env, cwd: dir });
    assert.equal(paid.code, 0, paid.stderr);
    assert.match(paid.stdout, /^paid 21000 sats over Lightning from the sandbox's simulated wallet$/m);
    const paymentHash = /^payment_hash ([0-9a-f]{64})$/m.exec(paid.stdout)?.[1];
    const preimage = /^preimage ([0-9a-f]{64})$/m.exec(paid.stdout)?.[1];
    assert.equal(paymentHash, created.payment_hash, paid.stdout);
    assert.equal(sha256(preimage!), paymentHash, 'the printed preimage proves the payment');

    // No block is mined: the wallet's notification alone confirms it.
    const confirmed = await invoiceReaching(listener.url, created.invoice_id, 'confirmed');
    assert.equal(confirmed.verification, 'own-wallet');
    assert.equal(confirmed.payment_method, 'lightning');
    const webhook = await confirmedWebhook(received, created.invoice_id, listener);
    assert.equal(webhook.payment_method, 'lightning');
    assert.equal(webhook.payment_hash, created.payment_hash);
    assert.equal(webhook.tx_hash, null);
    assert.equal(sha256(String(webhook.preimage)), created.payment_hash, 'the webhook\'s preimage hashes to the payment hash');

    const again = await runCli(['pay', created.invoice_id, '--lightning', '--url', listener.url], { env, cwd: dir });
    assert.equal(again.code, 1, 'a confirmed invoice asks for nothing more');

    // Lightning only: no address, and `service pay` takes the Lightning way without being told.
    const lightningOnly = await createInvoice(listener, { amount_sats: 1_500, payment_methods: ['lightning'] });
    assert.equal(lightningOnly.receive_address, lightningOnly.lightning_invoice);
    const paidByDefault = await runCli(['pay', lightningOnly.invoice_id, '--url', listener.url], { env, cwd: dir });
    assert.equal(paidByDefault.code, 0, paidByDefault.stderr);
    assert.match(paidByDefault.stdout, new RegExp(`^payment_hash ${lightningOnly.payment_hash}$`, 'm'));
    await invoiceReaching(listener.url, lightningOnly.invoice_id, 'confirmed');

    // On-chain only: nothing to pay over Lightning, and the CLI says so.
    const onchainOnly = await createInvoice(listener, { amount_sats: 2_000, payment_methods: ['onchain'] });
    assert.equal(onchainOnly.lightning_invoice ?? null, null);
    const refused = await runCli(['pay', onchainOnly.invoice_id, '--lightning', '--url', listener.url], { env, cwd: dir });
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /has no Lightning invoice to pay: it was made without Lightning/);
  } finally {
    assert.equal(await listener.stop(), 0);
    await receiver.close();
  }
});
