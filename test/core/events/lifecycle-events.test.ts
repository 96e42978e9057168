import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { defaultChains } from '../../../core/chains/default-chains.ts';
import { verifyWebhook } from '../../../core/webhooks/index.ts';
import { loadConfig } from '../../../listener/config.ts';
import { ConfigError } from '../../../edge/settings.ts';
import { WebhookEvent } from '../../../shared/index.ts';
import { manualClock } from '../../../core/clock.ts';
import { startBtcWatchContext, testAccountKey, type BtcWatchContext } from '../../helpers/btc-chain.ts';
import { getJson, signupMerchant, startTestCloud } from '../../helpers/cloud.ts';
import { BIP84_ZPUB, NO_CHAIN_ESPLORA_URL, postJson } from '../../helpers/listener.ts';
import { testDatabases } from '../../helpers/databases.ts';
import { startScriptedReceiver } from '../../helpers/scripted-receiver.ts';
import { waitForWatcher } from '../../helpers/wait-for-watcher.ts';

const OPT_IN = ['invoice.payment_seen', 'invoice.partial', 'invoice.expired'];
const SECRET = 'whsec_bGlmZWN5Y2xlLWV2ZW50cy10ZXN0LXNlY3JldC0wMQ==';

/**
 * One run of an invoice's life on a local regtest chain: a part payment (seen in the mempool, then
 * in a block, then reorganised back into the mempool and mined again), a full payment that confirms,
 * an invoice that lapses, and a fourth that nothing happens to. Every step is passed twice.
 */
async function live(ctx: BtcWatchContext) {
  const partly = await ctx.createInvoice(50_000);
  const full = await ctx.createInvoice(30_000);
  const lapse = await ctx.createInvoice(10_000, 60);
  const untouched = await ctx.createInvoice(20_000);
  ctx.chain.pay([{ address: partly.receive_address, value: 20_000n }]);
  ctx.chain.pay([{ address: full.receive_address, value: 30_000n }]);
  await ctx.sync();
  await ctx.sync();
  ctx.chain.mine(1);
  await ctx.sync();
  await ctx.sync();
  assert.equal((await ctx.invoice(partly.invoice_id)).status, 'partial');
  assert.equal((await ctx.invoice(full.invoice_id)).status, 'confirmed');
  // The block that made it partial is replaced by two without it: back to the mempool (pending), then mined again (partial).
  ctx.chain.reorg(1, { includeMempool: false });
  await ctx.sync();
  assert.equal((await ctx.invoice(partly.invoice_id)).status, 'pending', 'the reorg took the part payment out of the blocks');
  ctx.chain.mine(1);
  await ctx.sync();
  assert.equal((await ctx.invoice(partly.invoice_id)).status, 'partial', 'and the status came back');
  ctx.clock.advance(61_000);
  assert.equal((await ctx.invoice(lapse.invoice_id)).status, 'expired');
  assert.equal((await ctx.invoice(lapse.invoice_id)).status, 'expired');
  assert.equal((await ctx.invoice(untouched.invoice_id)).status, 'pending');
  return { partly, full, lapse, untouched };
}

const byInvoice = (events: Array<Record<string, unknown>>) => events.map((event) => event.invoice_id);

describe('opt-in lifecycle events on the listener', () => {
  for (const kind of testDatabases) {
    test(`${kind.name}: each subscribed event is written once per invoice, in the outbox, signed and delivered like invoice.confirmed`, { skip: kind.skip, timeout: 120_000 }, async () => {
      const receiver = await startScriptedReceiver(() => ({ status: 200, body: '{}' }));
      const database = await kind.create();
      const ctx = await startBtcWatchContext('esplora', {
        databaseUrl: database.url,
        env: { MERCHANT_WEBHOOK_EVENTS: ' invoice.payment_seen,invoice.partial , invoice.expired', MERCHANT_WEBHOOK_URL: receiver.url, MERCHANT_WEBHOOK_SECRET: SECRET },
      });
      try {
        const { partly, full, lapse, untouched } = await live(ctx);
        const seen = await ctx.events('invoice.payment_seen');
        assert.deepEqual(byInvoice(seen).sort(), [partly.invoice_id, full.invoice_id].sort(), 'once each, at the first sighting (mempool), despite a second pass, a block and a reorg');
        const seenPartly = seen.find((event) => event.invoice_id === partly.invoice_id)!;
        assert.deepEqual(
          { status: seenPartly.status, amount: seenPartly.amount, amount_paid: seenPartly.amount_paid, address: seenPartly.address, chain: seenPartly.chain, asset: seenPartly.asset },
          { status: 'pending', amount: '0.00050000', amount_paid: '0.00020000', address: partly.receive_address, chain: 'btc', asset: 'BTC' },
          'the verified amount of the sighting (its transaction bytes hash to its txid)',
        );
        assert.equal(seen.find((event) => event.invoice_id === full.invoice_id)!.amount_paid, '0.00030000');

        const partial = await ctx.events('invoice.partial');
        assert.deepEqual(byInvoice(partial), [partly.invoice_id], 'once, though the status went partial, pending and partial again');
        assert.equal(partial[0]!.status, 'partial');
        assert.equal(partial[0]!.amount_paid, '0.00020000');

        const expired = await ctx.events('invoice.expired');
        assert.deepEqual(byInvoice(expired), [lapse.invoice_id], 'once, though read twice after it lapsed');
        assert.equal(expired[0]!.amount_paid, '0.00000000');
        assert.equal(expired[0]!.occurred_at, new Date(ctx.clock.now()).toISOString());

        assert.deepEqual(byInvoice(await ctx.events('invoice.confirmed')), [full.invoice_id]);
        const all = await ctx.events();
        assert.ok(!byInvoice(all).includes(untouched.invoice_id), 'nothing happened to it: no event');
        for (const event of all) assert.ok(WebhookEvent.safeParse(event).success, `the contract describes ${event.event}`);

        // Delivered through the same worker: signed with the merchant's secret, the event id in the signed body.
        const delivered = await waitForWatcher('every event delivered', async () => receiver.requests.length, (count) => count >= all.length, { watcher: async () => receiver.requests.length });
        assert.equal(delivered, all.length);
        for (const request of receiver.requests) {
          const verified = verifyWebhook(request.body, request.headers, SECRET, ctx.clock.now());
          assert.ok(verified.ok, JSON.stringify(verified));
          assert.equal(verified.eventId, JSON.parse(request.body.toString()).event_id);
        }
        assert.deepEqual(receiver.requests.map((request) => JSON.parse(request.body.toString()).event_id).sort(), all.map((event) => event.event_id).sort());
      } finally {
        await ctx.close();
        await receiver.close();
        await database.drop();
      }
    });
  }

  test('by default only the specified events are written: none of the opt-in ones; a subset sends that subset', { timeout: 120_000 }, async () => {
    for (const [setting, expected] of [
      [undefined, []],
      ['invoice.expired', ['invoice.expired']],
    ] as const) {
      const ctx = await startBtcWatchContext('esplora', { env: setting ? { MERCHANT_WEBHOOK_EVENTS: setting } : {} });
      try {
        const { full } = await live(ctx);
        const types = (await ctx.events()).map((event) => event.event);
        assert.deepEqual(types.filter((type) => OPT_IN.includes(type as string)), expected, `MERCHANT_WEBHOOK_EVENTS=${setting ?? '(unset)'}`);
        assert.deepEqual(byInvoice(await ctx.events('invoice.confirmed')), [full.invoice_id], 'invoice.confirmed as always');
      } finally {
        await ctx.close();
      }
    }
  });

  test('an unknown name in MERCHANT_WEBHOOK_EVENTS refuses the start, naming the setting and the name', () => {
    const env = { MERCHANT_BTC_XPUB: BIP84_ZPUB, BTC_ESPLORA_URL: NO_CHAIN_ESPLORA_URL, MERCHANT_WEBHOOK_EVENTS: 'invoice.partial,invoice.paid' };
    assert.throws(
      () => loadConfig(env, defaultChains),
      (error: Error) => error instanceof ConfigError && /MERCHANT_WEBHOOK_EVENTS names "invoice\.paid": not an opt-in event/.test(error.message),
    );
    assert.deepEqual(loadConfig({ ...env, MERCHANT_WEBHOOK_EVENTS: 'invoice.partial' }, defaultChains).webhookEvents, ['invoice.partial']);
    assert.deepEqual(loadConfig({ ...env, MERCHANT_WEBHOOK_EVENTS: '' }, defaultChains).webhookEvents, []);
  });
});

describe('opt-in lifecycle events on Cloud', () => {
  test('webhook_events is saved per merchant, answered and shown on /me; unknown names are refused; only subscribers get the event, once', { timeout: 60_000 }, async () => {
    const clock = manualClock(Date.UTC(2026, 0, 1));
    const cloud = await startTestCloud({ deps: { clock } });
    try {
      const api = (path: string) => `${cloud.url}/api/v1${path}`;
      const subscriber = await signupMerchant(cloud.url, { btc_xpub: testAccountKey(21), webhook_url: 'https://hooks.example.com/a' });
      const other = await signupMerchant(cloud.url, { btc_xpub: testAccountKey(22), webhook_url: 'https://hooks.example.com/b' });
      const key = (merchant: { api_key: string }) => ({ 'X-Service-Api-Key': merchant.api_key });

      const saved = await postJson(api('/webhook'), { webhook_url: 'https://hooks.example.com/a', webhook_events: ['invoice.expired', 'invoice.partial'] }, key(subscriber));
      assert.equal(saved.status, 200, saved.text);
      assert.deepEqual(saved.json.webhook_events, ['invoice.expired', 'invoice.partial']);
      assert.deepEqual((await getJson(api('/me'), key(subscriber))).json.webhook_events, ['invoice.expired', 'invoice.partial']);
      assert.deepEqual((await getJson(api('/me'), key(other))).json.webhook_events, [], 'none by default');

      for (const body of [{ webhook_events: ['invoice.paid'] }, { webhook_events: 'invoice.expired' }, { webhook_events: [42] }]) {
        const refused = await postJson(api('/webhook'), { webhook_url: 'https://hooks.example.com/changed', ...body }, key(subscriber));
        assert.equal(refused.status, 400, refused.text);
        assert.equal(refused.json.error.code, 'unknown_webhook_event');
      }
      const me = (await getJson(api('/me'), key(subscriber))).json;
      assert.deepEqual([me.webhook_url, me.webhook_events], ['https://hooks.example.com/a', ['invoice.expired', 'invoice.partial']], 'a refused call changes nothing');
      const kept = await postJson(api('/webhook'), { webhook_url: 'https://hooks.example.com/a' }, key(subscriber));
      assert.deepEqual(kept.json.webhook_events, ['invoice.expired', 'invoice.partial'], 'a call without webhook_events keeps the saved ones');

      const create = async (merchant: { api_key: string }) => (await postJson(api('/invoice'), { amount_sats: 5_000, expires_in: 60 }, key(merchant))).json.invoice_id as string;
      const mine = await create(subscriber);
      const theirs = await create(other);
      clock.advance(61_000);
      for (let read = 0; read < 2; read++) {
        for (const [merchant, id] of [[subscriber, mine], [other, theirs]] as const) assert.equal((await getJson(api(`/invoice/${id}`), key(merchant))).json.status, 'expired');
      }
      const events = await cloud.database.db.selectFrom('events').select(['merchant_id', 'type', 'payload']).execute();
      assert.deepEqual(
        events.map((event) => [event.merchant_id, event.type, JSON.parse(event.payload).invoice_id]),
        [[subscriber.merchant_id, 'invoice.expired', mine]],
        "once for the subscriber's invoice, never for the other merchant's",
      );
    } finally {
      await cloud.stop();
    }
  });
});
