import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import * as bip21 from 'bip21';
import bolt11 from 'bolt11';
import { BtcInvoice, BtcInvoiceCreated, ErrorEnvelope, Health, InvoiceConfirmedEvent } from '../../../shared/index.ts';
import { startNostrRelay, type NostrRelay } from '../../../sandbox/nostr-relay.ts';
import { startLightningWallet, type LightningWalletSimulator } from '../../../sandbox/lightning-wallet.ts';
import { startBtcWatchContext, type BtcWatchContext } from '../../helpers/btc-chain.ts';
import { postJson } from '../../helpers/listener.ts';
import { testDatabases } from '../../helpers/databases.ts';
import { waitForWatcher } from '../../helpers/wait-for-watcher.ts';
import { manualClock } from '../../../core/clock.ts';

const REGTEST_BOLT11 = { bech32: 'bcrt', pubKeyHash: 0x6f, scriptHash: 0xc4, validWitnessVersions: [0, 1] };
const sha256 = (hex: string) => createHash('sha256').update(Buffer.from(hex, 'hex')).digest('hex');

for (const database of testDatabases) describe(`Lightning on the listener through the merchant’s own wallet (NWC), beside a local regtest chain (${database.name})`, { skip: database.skip }, () => {
  let relay: NostrRelay;
  let wallet: LightningWalletSimulator;
  let ctx: BtcWatchContext;
  let drop: (() => Promise<void>) | null = null;

  before(async () => {
    relay = await startNostrRelay();
    const store = await database.create();
    drop = store.drop;
    ctx = await startBtcWatchContext('esplora', { databaseUrl: store.url });
    wallet = await startLightningWallet({ relayUrls: [relay.url], network: 'regtest', clock: ctx.clock });
    await ctx.listener.stop();
    await ctx.restart({ MERCHANT_NWC_URL: wallet.connectionUri() });
  });
  after(async () => {
    await ctx?.close();
    await wallet?.close();
    await relay?.close();
    await drop?.();
  });

  const health = async () => Health.parse(await (await fetch(`${ctx.listener.url}/health`)).json());
  /** Waits on the listener's state; a failed wait shows /health (the Lightning watcher's state and its relays). */
  const waitUntil = (check: () => Promise<boolean>, what: string) =>
    waitForWatcher(what, check, (done) => done, { watcher: async () => (await fetch(`${ctx.listener.url}/health`)).json() });
  const create = async (body: Record<string, unknown>) => postJson(`${ctx.listener.url}/invoice`, body);

  test('an invoice carries a checked BOLT11 for exactly its amount and a unified QR; paid over Lightning it confirms once, proven by the preimage', async () => {
    const answer = await create({ amount_sats: 25_000, memo: 'Two mugs', expires_in: 900 });
    assert.equal(answer.status, 201, answer.text);
    const created = BtcInvoiceCreated.parse(answer.json);
    assert.ok(created.lightning_invoice, 'a Lightning invoice beside the address');
    assert.match(created.receive_address, /^bcrt1/);
    const decoded = bolt11.decode(created.lightning_invoice, REGTEST_BOLT11);
    assert.equal(decoded.millisatoshis, '25000000', 'exactly amount_sats × 1000 msat');
    assert.equal(decoded.payeeNodeKey, wallet.nodePubkey, 'signed by the wallet’s node');
    assert.equal(decoded.tags.find((t) => t.tagName === 'payment_hash')?.data, created.payment_hash);
    assert.equal(decoded.tags.find((t) => t.tagName === 'description')?.data, 'Two mugs', 'the memo is the description');
    assert.ok(Math.abs((decoded.timeExpireDate ?? 0) - Date.parse(created.expires_at) / 1000) <= 120, 'expires with the invoice');

    const uri = bip21.decode(created.qr_uri, 'bitcoin');
    assert.equal(uri.address, created.receive_address);
    assert.equal(uri.options.amount, 0.00025);
    assert.equal((uri.options as Record<string, unknown>).lightning, created.lightning_invoice, 'a third-party BIP-21 parser finds the BOLT11 in the unified QR');

    const settled = await wallet.settle(created.lightning_invoice);
    await waitUntil(async () => (await ctx.invoice(created.invoice_id)).status === 'confirmed', 'the payment_received notification confirms the invoice');
    const stored = BtcInvoice.parse(await ctx.invoice(created.invoice_id));
    assert.equal(stored.verification, 'own-wallet');
    assert.equal(stored.payment_method, 'lightning');
    assert.equal(stored.tx_hash, null, 'no transaction: Lightning');
    const confirmed = (await ctx.events('invoice.confirmed')).filter((e) => e.invoice_id === created.invoice_id).map((e) => InvoiceConfirmedEvent.parse(e));
    assert.equal(confirmed.length, 1);
    assert.equal(confirmed[0].payment_method, 'lightning');
    assert.equal(confirmed[0].payment_hash, created.payment_hash);
    assert.equal(confirmed[0].preimage, settled.preimage);
    assert.equal(sha256(confirmed[0].preimage!), created.payment_hash, 'the preimage proves the payment');
    assert.equal(confirmed[0].tx_hash, null);

    // The same invoice paid on-chain afterwards: an overpayment reported apart, never a second confirmation.
    const txid = ctx.chain.pay([{ address: created.receive_address, value: 25_000n }]);
    ctx.chain.mine(6);
    await ctx.sync();
    await ctx.sync();
    const orphans = (await ctx.events('payment.orphan')).filter((e) => e.tx_hash === txid);
    assert.equal(orphans.length, 1, 'the on-chain payment after the Lightning one is an orphan');
    assert.equal((await ctx.events('invoice.confirmed')).filter((e) => e.invoice_id === created.invoice_id).length, 1, 'still one confirmation');
  });

  test('a replayed notification and a later lookup change nothing', async () => {
    const created = BtcInvoiceCreated.parse((await create({ amount_sats: 3_000 })).json);
    const settled = await wallet.settle(created.payment_hash!);
    await waitUntil(async () => (await ctx.invoice(created.invoice_id)).status === 'confirmed', 'confirmed by the notification');
    const watch = ctx.listener.watches.get('btc')!;
    await watch.syncOnce();
    const events = (await ctx.events()).filter((e) => e.invoice_id === created.invoice_id || e.payment_hash === settled.paymentHash);
    assert.deepEqual(events.map((e) => e.event), ['invoice.confirmed'], 'one event, whatever the wallet repeats');
  });

  test('a settlement whose preimage does not hash to the payment hash is refused and named on /health; the invoice stays pending', async () => {
    const created = BtcInvoiceCreated.parse((await create({ amount_sats: 4_000 })).json);
    const refusedBefore = (await health()).lightning!.refused_settlements;
    wallet.misbehave({ wrongPreimage: true });
    try {
      await wallet.settle(created.payment_hash!);
      await waitUntil(async () => (await health()).lightning!.refused_settlements > refusedBefore, 'the lying settlement is refused and counted');
    } finally {
      wallet.misbehave({ wrongPreimage: false });
    }
    assert.equal((await ctx.invoice(created.invoice_id)).status, 'pending');
    const h = await health();
    assert.match(h.lightning!.problem ?? '', /preimage/);
    assert.equal(h.ok, false);
    assert.ok(h.problems?.some((p) => p.component === 'lightning'));
  });

  test('less than the amount (a wallet that accepts any amount) is partial, not confirmed', async () => {
    const created = BtcInvoiceCreated.parse((await create({ amount_sats: 10_000 })).json);
    await wallet.settle(created.payment_hash!, { amountMsat: 4_000_000 });
    await waitUntil(async () => (await ctx.invoice(created.invoice_id)).status === 'partial', 'partial after a short Lightning payment');
    // The on-chain watcher's pass, which re-judges partial invoices by their on-chain payments, leaves it partial.
    await ctx.sync();
    assert.equal((await ctx.invoice(created.invoice_id)).status, 'partial');
    assert.equal((await ctx.events('invoice.confirmed')).filter((e) => e.invoice_id === created.invoice_id).length, 0);
  });

  for (const [name, lie] of [
    ['another amount', { amountOffsetMsat: 1_000 }],
    ['another payment hash', { wrongPaymentHash: true }],
    ['another node', { otherNode: true }],
  ] as const) {
    test(`a wallet answering an invoice for ${name} gives no Lightning: on-chain only, or 503 lightning_unavailable when Lightning was required`, async () => {
      wallet.misbehave(lie);
      try {
        const onchainOnly = BtcInvoiceCreated.parse((await create({ amount_sats: 5_000 })).json);
        assert.equal(onchainOnly.lightning_invoice, null, 'the unchecked BOLT11 is never shown');
        assert.ok(!onchainOnly.qr_uri.includes('lightning='));
        const required = await create({ amount_sats: 5_000, payment_methods: ['lightning'] });
        assert.equal(required.status, 503, required.text);
        assert.equal(ErrorEnvelope.parse(required.json).error.code, 'lightning_unavailable');
        assert.ok(required.headers.get('retry-after'));
        assert.match((await health()).lightning!.problem ?? '', /usable invoice/);
      } finally {
        wallet.misbehave({ amountOffsetMsat: 0, wrongPaymentHash: false, otherNode: false });
      }
    });
  }

  test('a silent wallet: on-chain-only invoices within seconds, Lightning-only refused', async () => {
    wallet.misbehave({ silent: true });
    try {
      const onchainOnly = await create({ amount_sats: 6_000 });
      assert.equal(onchainOnly.status, 201, onchainOnly.text);
      assert.equal(BtcInvoiceCreated.parse(onchainOnly.json).lightning_invoice, null);
      const required = await create({ amount_sats: 6_000, payment_methods: ['lightning'] });
      assert.equal(ErrorEnvelope.parse(required.json).error.code, 'lightning_unavailable');
    } finally {
      wallet.misbehave({ silent: false });
    }
  });

  test('payment_methods narrows: Lightning only has no address; on-chain only has no BOLT11; EVM chains refuse the field', async () => {
    const lightningOnly = BtcInvoiceCreated.parse((await create({ amount_sats: 7_000, payment_methods: ['lightning'] })).json);
    assert.equal(lightningOnly.receive_address, lightningOnly.lightning_invoice);
    assert.equal(lightningOnly.child_index, null);
    assert.equal(lightningOnly.qr_uri, `lightning:${lightningOnly.lightning_invoice}`);
    const onchain = BtcInvoiceCreated.parse((await create({ amount_sats: 7_000, payment_methods: ['onchain'] })).json);
    assert.equal(onchain.lightning_invoice, null);
    const evm = await create({ chain: 'base', amount_usd: '1.00', payment_methods: ['lightning'] });
    assert.equal(evm.status, 400, evm.text);
    // The on-chain watcher never takes a BOLT11 for an address: its pass still succeeds.
    await ctx.sync();
    assert.equal((await health()).chains?.btc?.progress.last_error ?? null, null);
  });
});

describe('the listener refuses a Lightning connection that may spend', () => {
  test('pay_invoice among the methods: the listener does not start, naming MERCHANT_NWC_URL and what to change', async () => {
    const relay = await startNostrRelay();
    // On the context's clock (its manual clock starts here): the wallet ignores requests it deems expired.
    const spender = await startLightningWallet({ relayUrls: [relay.url], network: 'regtest', methods: ['get_info', 'make_invoice', 'lookup_invoice', 'pay_invoice'], clock: manualClock(Date.UTC(2026, 0, 1)) });
    try {
      await assert.rejects(startBtcWatchContext('esplora', { env: { MERCHANT_NWC_URL: spender.connectionUri() } }), (error: Error) => {
        assert.match(error.message, /MERCHANT_NWC_URL/);
        assert.match(error.message, /pay_invoice/);
        assert.match(error.message, /receive-only/);
        return true;
      });
    } finally {
      await spender.close();
      await relay.close();
    }
  });
});
