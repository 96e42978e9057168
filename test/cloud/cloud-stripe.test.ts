import { defaultChains } from '../../core/chains/default-chains.ts';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import Stripe from 'stripe';
import { manualClock } from '../../core/clock.ts';
import { cloudSecrets, loadCloudConfig } from '../../cloud/cloud-config.ts';
import { applyCardPeriod, CARD_GRACE_MS, PAID_PERIOD_MS } from '../../cloud/billing/plans.ts';
import { ConfigError } from '../../edge/settings.ts';
import { createLogger } from '../../core/log.ts';
import { getJson, signupMerchant, startTestCloud } from '../helpers/cloud.ts';
import { BIP84_ZPUB, postJson } from '../helpers/listener.ts';
import { testDatabases } from '../helpers/databases.ts';
import { startStripeApi } from '../helpers/stripe-api.ts';
import { deliver, invoiceEvent, SECRET_KEY, stripeEnv, stripeEvent, WEBHOOK_SECRET } from '../helpers/stripe-events.ts';

const DAY = 24 * 3600 * 1000;

describe('Cloud card billing through Stripe', () => {
  let stripeApi: Awaited<ReturnType<typeof startStripeApi>>;
  before(async () => {
    stripeApi = await startStripeApi();
  });
  after(() => stripeApi.close());

  it('the official SDK opens a subscription Checkout Session for the plan price; its url is checkout_url', async () => {
    const cloud = await startTestCloud({ env: stripeEnv, deps: { stripeApi: stripeApi.api } });
    try {
      assert.deepEqual((await getJson(`${cloud.url}/api/v1/plans`)).json.payment_methods, ['card']);
      const m = await signupMerchant(cloud.url, { btc_xpub: BIP84_ZPUB });
      stripeApi.requests.length = 0;
      const checkout = await postJson(`${cloud.url}/api/v1/billing/checkout`, { plan: 'pro', method: 'card' }, { 'X-Service-Api-Key': m.api_key });
      assert.equal(checkout.status, 200, checkout.text);
      assert.equal(stripeApi.requests.length, 1);
      const [sent] = stripeApi.requests;
      assert.equal(sent.method, 'POST');
      assert.equal(sent.path, '/v1/checkout/sessions');
      assert.equal(sent.headers.authorization, `Bearer ${SECRET_KEY}`);
      assert.equal(sent.headers['idempotency-key'], checkout.json.subscription_id);
      const form = Object.fromEntries(sent.form);
      assert.equal(form.mode, 'subscription');
      assert.equal(form['line_items[0][quantity]'], '1');
      assert.equal(form['line_items[0][price_data][currency]'], 'usd');
      assert.equal(form['line_items[0][price_data][unit_amount]'], '4900');
      assert.equal(form['line_items[0][price_data][recurring][interval]'], 'month');
      assert.equal(form['line_items[0][price]'], undefined);
      assert.equal(form.success_url, stripeEnv.STRIPE_SUCCESS_URL);
      assert.equal(form.cancel_url, stripeEnv.STRIPE_CANCEL_URL);
      assert.equal(form.client_reference_id, checkout.json.subscription_id);
      assert.equal(form['metadata[merchant_id]'], m.merchant_id);
      assert.equal(form['metadata[plan]'], 'pro');
      assert.equal(form['subscription_data[metadata][merchant_id]'], m.merchant_id);
      assert.ok(!Object.keys(form).some((k) => /card|number|cvc/i.test(k)), 'no card field is ever sent by the service');

      assert.match(checkout.json.checkout_url, /^https:\/\/checkout\.stripe\.com\/c\/pay\/cs_test_a1\d{4}#/);
      assert.equal(checkout.json.method, 'card');
      assert.equal(checkout.json.amount_usd, 49);
      assert.equal(checkout.json.invoice_id, undefined);
      const row = await cloud.database.db.selectFrom('cloud_subscriptions').selectAll().where('subscription_id', '=', checkout.json.subscription_id).executeTakeFirstOrThrow();
      assert.equal(row.provider_checkout_id, /cs_test_a1\d{4}/.exec(checkout.json.checkout_url)![0]);
      assert.equal(row.status, 'pending');
      assert.equal(row.merchant_id, m.merchant_id);
    } finally {
      await cloud.stop();
    }
  });

  it('configured Stripe Price ids are sent instead of inline price_data', async () => {
    const cloud = await startTestCloud({ env: { ...stripeEnv, STRIPE_PRICE_STARTER: 'price_1StarterMonthly' }, deps: { stripeApi: stripeApi.api } });
    try {
      const m = await signupMerchant(cloud.url, { btc_xpub: BIP84_ZPUB });
      stripeApi.requests.length = 0;
      const checkout = await postJson(`${cloud.url}/api/v1/billing/checkout`, { plan: 'starter', method: 'card' }, { 'X-Service-Api-Key': m.api_key });
      assert.equal(checkout.status, 200);
      const form = Object.fromEntries(stripeApi.requests[0].form);
      assert.equal(form['line_items[0][price]'], 'price_1StarterMonthly');
      assert.equal(form['line_items[0][price_data][unit_amount]'], undefined);
    } finally {
      await cloud.stop();
    }
  });

  it('a Stripe error answer → 502 card_provider_error, no purchase kept, and the secret key never logged', async () => {
    const lines: string[] = [];
    const config = loadCloudConfig({ PORT: '0', ...stripeEnv }, defaultChains);
    const logger = createLogger({ write: (line) => lines.push(line), secrets: cloudSecrets(config) });
    const cloud = await startTestCloud({ env: stripeEnv, deps: { stripeApi: stripeApi.api, logger } });
    stripeApi.state.fail = { status: 400, message: `No such price for key ${SECRET_KEY}` };
    try {
      const m = await signupMerchant(cloud.url, { btc_xpub: BIP84_ZPUB });
      const failed = await postJson(`${cloud.url}/api/v1/billing/checkout`, { plan: 'pro', method: 'card' }, { 'X-Service-Api-Key': m.api_key });
      assert.equal(failed.status, 502);
      assert.equal(failed.json.error.code, 'card_provider_error');
      assert.ok(!failed.text.includes(SECRET_KEY));
      const rows = await cloud.database.db.selectFrom('cloud_subscriptions').selectAll().where('merchant_id', '=', m.merchant_id).execute();
      assert.equal(rows.length, 0);
      const warning = lines.find((line) => line.includes('card processor failed'));
      assert.ok(warning, 'the failure is logged');
      assert.match(warning, /No such price/);
      assert.ok(!lines.some((line) => line.includes(SECRET_KEY)), 'the Stripe secret key is scrubbed');
    } finally {
      stripeApi.state.fail = null;
      await cloud.stop();
    }
  });

  for (const database of testDatabases) {
    it(`webhook (${database.name}): checkout.session.completed starts the plan, invoice.paid renews it monthly, a replay changes nothing, deletion → Free`, { skip: database.skip }, async () => {
      const clock = manualClock(Date.UTC(2026, 4, 1));
      const store = await database.create();
      const cloud = await startTestCloud({ env: { ...stripeEnv, DATABASE_URL: store.url }, deps: { stripeApi: stripeApi.api, clock } });
      try {
        const m = await signupMerchant(cloud.url, { btc_xpub: BIP84_ZPUB });
        const key = { 'X-Service-Api-Key': m.api_key };
        const checkout = await postJson(`${cloud.url}/api/v1/billing/checkout`, { plan: 'pro', method: 'card' }, key);
        const sessionId = /cs_test_a1\d{4}/.exec(checkout.json.checkout_url)![0];
        const paidAt = clock.now();
        const send = (payload: string, options: { secret?: string; signature?: string; at?: number } = {}) => deliver(cloud.url, payload, { at: clock.now(), ...options });
        const completed = stripeEvent('evt_1Completed', 'checkout.session.completed', paidAt, {
          id: sessionId,
          object: 'checkout.session',
          mode: 'subscription',
          status: 'complete',
          payment_status: 'paid',
          client_reference_id: checkout.json.subscription_id,
          metadata: { subscription_id: checkout.json.subscription_id, merchant_id: m.merchant_id, plan: 'pro' },
          customer: 'cus_TestCustomer',
          subscription: 'sub_1TestSubscription',
        });

        const forged = await send(completed, { secret: 'whsec_someoneElse' });
        assert.equal(forged.status, 400);
        assert.equal(forged.json.error.code, 'bad_body');
        const signedForOther = Stripe.webhooks.generateTestHeaderString({ payload: completed, secret: WEBHOOK_SECRET, timestamp: clock.now() / 1000 });
        const tampered = await send(completed.replace('"pro"', '"starter"'), { signature: signedForOther });
        assert.equal(tampered.status, 400);
        assert.equal((await send(completed, { signature: '' })).status, 400);
        // A genuine delivery captured and sent again 6 minutes later (past Stripe's 5-minute tolerance).
        assert.equal((await send(completed, { at: clock.now() - 6 * 60_000 })).status, 400);
        assert.equal((await getJson(`${cloud.url}/api/v1/me`, key)).json.plan, 'free');

        // Signed here with plain HMAC-SHA256 over "t.payload" (Stripe's documented scheme), not the SDK.
        const t = clock.now() / 1000;
        const handSigned = `t=${t},v1=${createHmac('sha256', WEBHOOK_SECRET).update(`${t}.${completed}`).digest('hex')}`;
        const first = await send(completed, { signature: handSigned });
        assert.equal(first.status, 200, first.text);
        assert.equal(first.json.outcome, 'applied');
        let me = (await getJson(`${cloud.url}/api/v1/me`, key)).json;
        assert.equal(me.plan, 'pro');
        const firstEnd = paidAt + PAID_PERIOD_MS + CARD_GRACE_MS;
        assert.equal(me.plan_expires_at, new Date(firstEnd).toISOString());
        const replay = await send(completed);
        assert.equal(replay.status, 200);
        assert.equal(replay.json.outcome, 'duplicate');
        assert.equal((await getJson(`${cloud.url}/api/v1/me`, key)).json.plan_expires_at, new Date(firstEnd).toISOString());

        const invoice = (id: string, billingReason: string, at: number, periodEnd: number) =>
          invoiceEvent(id, 'invoice.paid', at, { subscription: 'sub_1TestSubscription', billingReason, periodStart: at, periodEnd, amountCents: 4900 });
        // Stripe bills calendar months: May 1 → June 1 (31 days). The first invoice brings the
        // exact end; it counts no second month on top of the completed session.
        const june1 = Date.UTC(2026, 5, 1);
        assert.equal((await send(invoice('evt_2FirstInvoice', 'subscription_create', paidAt, june1))).json.outcome, 'renewed');
        assert.equal((await getJson(`${cloud.url}/api/v1/me`, key)).json.plan_expires_at, new Date(june1 + CARD_GRACE_MS).toISOString());
        // Stripe charges about an hour after the period turns: the plan is still running then.
        clock.set(june1 + 3600_000);
        const renewal = invoice('evt_3Renewal', 'subscription_cycle', clock.now(), Date.UTC(2026, 6, 1));
        assert.equal((await getJson(`${cloud.url}/api/v1/me`, key)).json.plan, 'pro');
        assert.equal((await send(renewal)).json.outcome, 'renewed');
        me = (await getJson(`${cloud.url}/api/v1/me`, key)).json;
        assert.equal(me.plan, 'pro');
        const julyEnd = new Date(Date.UTC(2026, 6, 1) + CARD_GRACE_MS).toISOString();
        assert.equal(me.plan_expires_at, julyEnd);
        assert.equal((await send(renewal)).json.outcome, 'duplicate');
        assert.equal((await getJson(`${cloud.url}/api/v1/me`, key)).json.plan_expires_at, julyEnd);
        const events = await cloud.database.db.selectFrom('cloud_stripe_events').select('event_id').orderBy('event_id').execute();
        assert.deepEqual(events.map((e) => e.event_id), ['evt_1Completed', 'evt_2FirstInvoice', 'evt_3Renewal']);

        const ended = stripeEvent('evt_4Deleted', 'customer.subscription.deleted', clock.now(), { id: 'sub_1TestSubscription', object: 'subscription', status: 'canceled' });
        assert.equal((await send(ended)).json.outcome, 'ended');
        me = (await getJson(`${cloud.url}/api/v1/me`, key)).json;
        assert.equal(me.plan, 'free');
        assert.equal(me.plan_expires_at, null);
        const row = await cloud.database.db.selectFrom('cloud_subscriptions').selectAll().where('subscription_id', '=', checkout.json.subscription_id).executeTakeFirstOrThrow();
        assert.equal(row.status, 'ended');
        assert.equal(row.provider_subscription_id, 'sub_1TestSubscription');
        // A renewal for a subscription that has ended does not bring the plan back.
        assert.equal((await send(invoice('evt_5Late', 'subscription_cycle', clock.now(), Date.UTC(2026, 7, 1)))).json.outcome, 'ignored');
        assert.equal((await getJson(`${cloud.url}/api/v1/me`, key)).json.plan, 'free');
      } finally {
        await cloud.stop();
        await store.drop();
      }
    });
  }

  it('without STRIPE_SECRET_KEY: card is not offered, checkout → 409 method_unavailable, the webhook → 409', async () => {
    const cloud = await startTestCloud();
    try {
      assert.deepEqual((await getJson(`${cloud.url}/api/v1/plans`)).json.payment_methods, []);
      const m = await signupMerchant(cloud.url, { btc_xpub: BIP84_ZPUB });
      const card = await postJson(`${cloud.url}/api/v1/billing/checkout`, { plan: 'starter', method: 'card' }, { 'X-Service-Api-Key': m.api_key });
      assert.equal(card.status, 409);
      assert.equal(card.json.error.code, 'method_unavailable');
      const hook = await deliver(cloud.url, stripeEvent('evt_x', 'checkout.session.completed', Date.now(), {}));
      assert.equal(hook.status, 409);
      assert.equal(hook.json.error.code, 'method_unavailable');
    } finally {
      await cloud.stop();
    }
  });

  it('card period: runs to the billed end plus grace; a late or repeated report never shortens it; another plan starts over', () => {
    const now = Date.UTC(2026, 0, 10);
    const billedEnd = Date.UTC(2026, 1, 10);
    assert.deepEqual(applyCardPeriod({ plan: 'free', expiresAt: null }, 'starter', billedEnd, now), { plan: 'starter', expiresAt: billedEnd + 3 * DAY });
    const running = { plan: 'starter' as const, expiresAt: Date.UTC(2026, 2, 13) };
    assert.deepEqual(applyCardPeriod(running, 'starter', billedEnd, now), running);
    assert.deepEqual(applyCardPeriod(running, 'pro', billedEnd, now), { plan: 'pro', expiresAt: billedEnd + 3 * DAY });
    assert.deepEqual(applyCardPeriod({ plan: 'starter', expiresAt: now - 1 }, 'starter', billedEnd, now), { plan: 'starter', expiresAt: billedEnd + 3 * DAY });
  });

  it('config: STRIPE_SECRET_KEY needs the webhook secret and both return URLs; malformed values are refused', () => {
    assert.equal(loadCloudConfig({}, defaultChains).stripe, null);
    assert.throws(
      () => loadCloudConfig({ STRIPE_SECRET_KEY: SECRET_KEY }, defaultChains),
      (error) =>
        error instanceof ConfigError &&
        JSON.stringify(error.problems) ===
          JSON.stringify([
            'STRIPE_WEBHOOK_SECRET is required when STRIPE_SECRET_KEY is set',
            'STRIPE_SUCCESS_URL is required when STRIPE_SECRET_KEY is set',
            'STRIPE_CANCEL_URL is required when STRIPE_SECRET_KEY is set',
          ]),
    );
    assert.throws(() => loadCloudConfig({ ...stripeEnv, STRIPE_SECRET_KEY: 'pk_test_publishable' }, defaultChains), /STRIPE_SECRET_KEY/);
    assert.throws(() => loadCloudConfig({ ...stripeEnv, STRIPE_PRICE_PRO: 'prod_123' }, defaultChains), /STRIPE_PRICE_PRO/);
    const config = loadCloudConfig(stripeEnv, defaultChains);
    assert.deepEqual(config.stripe, {
      secretKey: SECRET_KEY,
      webhookSecret: WEBHOOK_SECRET,
      successUrl: stripeEnv.STRIPE_SUCCESS_URL,
      cancelUrl: stripeEnv.STRIPE_CANCEL_URL,
      priceIds: { starter: undefined, pro: undefined },
    });
    assert.deepEqual(cloudSecrets(config), [SECRET_KEY, WEBHOOK_SECRET]);
  });
});
