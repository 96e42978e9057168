import { defaultChains } from '../../core/chains/default-chains.ts';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { manualClock } from '../../core/clock.ts';
import type { RunningCloud } from '../../cloud/cloud-app.ts';
import { cloudSecrets, loadCloudConfig } from '../../cloud/cloud-config.ts';
import { CARD_GRACE_MS, switchCardPlan } from '../../cloud/billing/plans.ts';
import { planOfStripePrice } from '../../cloud/billing/stripe-price-plan.ts';
import { createLogger } from '../../core/log.ts';
import { getJson, signupMerchant, startTestCloud } from '../helpers/cloud.ts';
import { testDatabases } from '../helpers/databases.ts';
import { open, postForm, signIn } from '../helpers/dashboard.ts';
import { BIP84_ZPUB, postJson } from '../helpers/listener.ts';
import { startStripeApi } from '../helpers/stripe-api.ts';
import { deliver, invoiceEvent, SECRET_KEY, stripeEnv, stripeEvent, subscriptionUpdatedEvent, WEBHOOK_SECRET, type SubscriptionState } from '../helpers/stripe-events.ts';

const HOUR = 3600_000;
const DAY = 24 * HOUR;
const MAY_1 = Date.UTC(2026, 4, 1);
const JUNE_1 = Date.UTC(2026, 5, 1);
const JULY_1 = Date.UTC(2026, 6, 1);
const iso = (ms: number) => new Date(ms).toISOString();
const STRIPE_SUBSCRIPTION = 'sub_1CardSubscription';
const CUSTOMER = 'cus_CardCustomer';

/**
 * A merchant on a card plan bought on May 1: the Checkout Session completed and the first invoice
 * (May 1 → June 1) paid, both delivered as signed webhooks to a real Cloud instance.
 */
async function cardMerchant(cloud: RunningCloud, clock: ReturnType<typeof manualClock>, plan: 'starter' | 'pro') {
  const m = await signupMerchant(cloud.url, { btc_xpub: BIP84_ZPUB });
  const key = { 'X-Service-Api-Key': m.api_key };
  const send = (payload: string) => deliver(cloud.url, payload, { at: clock.now() });
  const checkout = await postJson(`${cloud.url}/api/v1/billing/checkout`, { plan, method: 'card' }, key);
  assert.equal(checkout.status, 200, checkout.text);
  const completed = stripeEvent('evt_0Completed', 'checkout.session.completed', clock.now(), {
    id: /cs_test_a1\d{4}/.exec(checkout.json.checkout_url)![0],
    object: 'checkout.session',
    mode: 'subscription',
    status: 'complete',
    payment_status: 'paid',
    client_reference_id: checkout.json.subscription_id,
    customer: CUSTOMER,
    subscription: STRIPE_SUBSCRIPTION,
  });
  assert.equal((await send(completed)).json.outcome, 'applied');
  const amountCents = plan === 'pro' ? 4900 : 1900;
  const first = invoiceEvent('evt_0FirstInvoice', 'invoice.paid', clock.now(), { subscription: STRIPE_SUBSCRIPTION, billingReason: 'subscription_create', periodStart: MAY_1, periodEnd: JUNE_1, amountCents });
  assert.equal((await send(first)).json.outcome, 'renewed');
  const me = async () => (await getJson(`${cloud.url}/api/v1/me`, key)).json as { plan: string; plan_expires_at: string | null };
  const started = await me();
  assert.deepEqual([started.plan, started.plan_expires_at], [plan, iso(JUNE_1 + CARD_GRACE_MS)]);
  const purchase = () =>
    cloud.database.db.selectFrom('cloud_subscriptions').selectAll().where('subscription_id', '=', checkout.json.subscription_id).executeTakeFirstOrThrow();
  return { merchant: m, key, send, me, purchase };
}

const subscription = (overrides: Partial<SubscriptionState> = {}): SubscriptionState => ({
  subscription: STRIPE_SUBSCRIPTION,
  customer: CUSTOMER,
  status: 'active',
  price: { id: 'price_1InlinePro', unitAmountCents: 4900 },
  periodStart: MAY_1,
  periodEnd: JUNE_1,
  ...overrides,
});

describe('Stripe subscription events: failed charges, portal changes, cancellation', () => {
  let stripeApi: Awaited<ReturnType<typeof startStripeApi>>;
  before(async () => {
    stripeApi = await startStripeApi();
  });
  after(() => stripeApi.close());

  for (const database of testDatabases) {
    it(`(${database.name}) a failed renewal keeps the plan to the paid end plus grace and never extends it; a successful retry renews; replays and late failures change nothing`, { skip: database.skip }, async () => {
      const clock = manualClock(MAY_1);
      const store = await database.create();
      const cloud = await startTestCloud({ env: { ...stripeEnv, DATABASE_URL: store.url }, deps: { stripeApi: stripeApi.api, clock } });
      try {
        const card = await cardMerchant(cloud, clock, 'pro');
        const paidEnd = iso(JUNE_1 + CARD_GRACE_MS);
        const renewal = { subscription: STRIPE_SUBSCRIPTION, billingReason: 'subscription_cycle', periodStart: JUNE_1, periodEnd: JULY_1, amountCents: 4900 };

        clock.set(JUNE_1 + HOUR);
        const failed = invoiceEvent('evt_1Failed', 'invoice.payment_failed', clock.now(), renewal);
        assert.equal((await card.send(failed)).json.outcome, 'payment_failed');
        assert.deepEqual([(await card.me()).plan, (await card.me()).plan_expires_at], ['pro', paidEnd]);
        assert.equal(Number((await card.purchase()).payment_failed_at), JUNE_1 + HOUR);
        assert.equal((await card.send(failed)).json.outcome, 'duplicate');

        // Stripe's smart retries: the subscription goes past_due, later retries fail too.
        clock.set(JUNE_1 + 2 * DAY);
        assert.equal((await card.send(subscriptionUpdatedEvent('evt_2PastDue', clock.now(), subscription({ status: 'past_due', periodStart: JUNE_1, periodEnd: JULY_1 })))).json.outcome, 'updated');
        assert.equal((await card.send(invoiceEvent('evt_3FailedAgain', 'invoice.payment_failed', clock.now(), renewal))).json.outcome, 'payment_failed');
        assert.deepEqual([(await card.me()).plan, (await card.me()).plan_expires_at], ['pro', paidEnd], 'neither a failure nor past_due moves the end');
        assert.equal((await card.purchase()).provider_status, 'past_due');

        // The grace runs out before a retry succeeds: the plan reads Free, and one more failure does not bring it back.
        clock.set(JUNE_1 + CARD_GRACE_MS + 60_000);
        assert.equal((await card.me()).plan, 'free');
        assert.equal((await card.send(invoiceEvent('evt_4FailedLate', 'invoice.payment_failed', clock.now(), renewal))).json.outcome, 'payment_failed');
        assert.deepEqual([(await card.me()).plan, (await card.me()).plan_expires_at], ['free', null]);

        // The merchant updates the card, Stripe's next retry is paid: the plan runs to the billed period end plus grace.
        clock.set(JUNE_1 + 5 * DAY);
        assert.equal((await card.send(invoiceEvent('evt_5RetryPaid', 'invoice.paid', clock.now(), renewal))).json.outcome, 'renewed');
        assert.deepEqual([(await card.me()).plan, (await card.me()).plan_expires_at], ['pro', iso(JULY_1 + CARD_GRACE_MS)]);
        assert.equal((await card.purchase()).payment_failed_at, null);
        // A failure from before that payment, delivered late (Stripe does not promise order), is stale.
        const lateFailure = invoiceEvent('evt_6FailedBeforePaid', 'invoice.payment_failed', JUNE_1 + 4 * DAY, renewal);
        assert.equal((await card.send(lateFailure)).json.outcome, 'stale');
        assert.equal((await card.purchase()).payment_failed_at, null);
        assert.equal((await card.me()).plan_expires_at, iso(JULY_1 + CARD_GRACE_MS));

        // Stripe gave up and cancelled (status canceled in an update): Free at once, and later events of it are ignored.
        clock.set(JULY_1 + 10 * DAY);
        assert.equal((await card.send(subscriptionUpdatedEvent('evt_7Canceled', clock.now(), subscription({ status: 'canceled', periodStart: JULY_1, periodEnd: Date.UTC(2026, 7, 1) })))).json.outcome, 'ended');
        assert.deepEqual([(await card.me()).plan, (await card.me()).plan_expires_at], ['free', null]);
        assert.equal((await card.purchase()).status, 'ended');
        assert.equal((await card.send(invoiceEvent('evt_8FailedAfterEnd', 'invoice.payment_failed', clock.now(), renewal))).json.outcome, 'ignored');
      } finally {
        await cloud.stop();
        await store.drop();
      }
    });
  }

  it('a portal upgrade changes the plan at once for the time already paid; renewals then bill the new plan; a late older update and a replay change nothing', async () => {
    const clock = manualClock(MAY_1);
    const cloud = await startTestCloud({ env: stripeEnv, deps: { stripeApi: stripeApi.api, clock } });
    try {
      const card = await cardMerchant(cloud, clock, 'starter');
      const paidEnd = iso(JUNE_1 + CARD_GRACE_MS);

      clock.set(Date.UTC(2026, 4, 15));
      const upgrade = subscriptionUpdatedEvent('evt_1Upgrade', clock.now(), subscription(), { items: { data: [{ price: { id: 'price_1InlineStarter', unit_amount: 1900 } }] } });
      assert.equal((await card.send(upgrade)).json.outcome, 'updated');
      assert.deepEqual([(await card.me()).plan, (await card.me()).plan_expires_at], ['pro', paidEnd], 'pro now, to the end already paid (no extension)');
      assert.equal((await card.purchase()).plan, 'pro');
      assert.equal((await card.send(upgrade)).json.outcome, 'duplicate');

      // An update created before the upgrade but delivered after it is stale.
      const older = subscriptionUpdatedEvent('evt_0Older', Date.UTC(2026, 4, 10), subscription({ price: { id: 'price_1InlineStarter', unitAmountCents: 1900 } }));
      assert.equal((await card.send(older)).json.outcome, 'stale');
      assert.equal((await card.me()).plan, 'pro');

      // The proration invoice Stripe may charge at once covers the same period: no extension either.
      const proration = invoiceEvent('evt_2Proration', 'invoice.paid', clock.now(), { subscription: STRIPE_SUBSCRIPTION, billingReason: 'subscription_update', periodStart: clock.now(), periodEnd: JUNE_1, amountCents: 1600 });
      assert.equal((await card.send(proration)).json.outcome, 'renewed');
      assert.equal((await card.me()).plan_expires_at, paidEnd);

      clock.set(JUNE_1 + HOUR);
      const renewal = invoiceEvent('evt_3Renewal', 'invoice.paid', clock.now(), { subscription: STRIPE_SUBSCRIPTION, billingReason: 'subscription_cycle', periodStart: JUNE_1, periodEnd: JULY_1, amountCents: 4900 });
      assert.equal((await card.send(renewal)).json.outcome, 'renewed');
      assert.deepEqual([(await card.me()).plan, (await card.me()).plan_expires_at], ['pro', iso(JULY_1 + CARD_GRACE_MS)]);

      // And back down to starter in the portal: starter for the rest of the paid time.
      clock.set(Date.UTC(2026, 5, 10));
      const downgrade = subscriptionUpdatedEvent('evt_4Downgrade', clock.now(), subscription({ price: { id: 'price_1InlineStarter', unitAmountCents: 1900 }, periodStart: JUNE_1, periodEnd: JULY_1 }));
      assert.equal((await card.send(downgrade)).json.outcome, 'updated');
      assert.deepEqual([(await card.me()).plan, (await card.me()).plan_expires_at], ['starter', iso(JULY_1 + CARD_GRACE_MS)]);
    } finally {
      await cloud.stop();
    }
  });

  it('a cancellation scheduled at the period end keeps the plan until then, undoing it clears it, and the deletion at the end → Free', async () => {
    const clock = manualClock(MAY_1);
    const cloud = await startTestCloud({ env: stripeEnv, deps: { stripeApi: stripeApi.api, clock } });
    try {
      const card = await cardMerchant(cloud, clock, 'pro');
      const paidEnd = iso(JUNE_1 + CARD_GRACE_MS);

      clock.set(Date.UTC(2026, 4, 20));
      assert.equal((await card.send(subscriptionUpdatedEvent('evt_1Cancel', clock.now(), subscription({ cancelAtPeriodEnd: true }), { cancel_at_period_end: false }))).json.outcome, 'updated');
      assert.deepEqual([(await card.me()).plan, (await card.me()).plan_expires_at], ['pro', paidEnd]);
      assert.equal(Number((await card.purchase()).cancels_at), JUNE_1);

      clock.set(Date.UTC(2026, 4, 22));
      assert.equal((await card.send(subscriptionUpdatedEvent('evt_2KeepAfterAll', clock.now(), subscription(), { cancel_at_period_end: true }))).json.outcome, 'updated');
      assert.equal((await card.purchase()).cancels_at, null);

      // Newer API versions schedule it as a `cancel_at` time with cancel_at_period_end false.
      clock.set(Date.UTC(2026, 4, 25));
      assert.equal((await card.send(subscriptionUpdatedEvent('evt_3CancelAt', clock.now(), subscription({ cancelAt: JUNE_1 })))).json.outcome, 'updated');
      assert.equal(Number((await card.purchase()).cancels_at), JUNE_1);

      clock.set(JUNE_1 - HOUR);
      assert.deepEqual([(await card.me()).plan, (await card.me()).plan_expires_at], ['pro', paidEnd], 'still running just before the end');
      clock.set(JUNE_1);
      const deleted = stripeEvent('evt_4Deleted', 'customer.subscription.deleted', clock.now(), { id: STRIPE_SUBSCRIPTION, object: 'subscription', status: 'canceled', customer: CUSTOMER });
      assert.equal((await card.send(deleted)).json.outcome, 'ended');
      assert.deepEqual([(await card.me()).plan, (await card.me()).plan_expires_at], ['free', null]);
      assert.equal((await card.send(deleted)).json.outcome, 'duplicate');
      // An update of the ended subscription cannot revive it.
      assert.equal((await card.send(subscriptionUpdatedEvent('evt_5Late', clock.now() + 1000, subscription()))).json.outcome, 'ignored');
      assert.equal((await card.me()).plan, 'free');
    } finally {
      await cloud.stop();
    }
  });

  it('a Price that is none of ours is ignored and logged by id, with no Stripe secret in any log line', async () => {
    const lines: string[] = [];
    const env = { ...stripeEnv, STRIPE_PRICE_STARTER: 'price_1StarterMonthly', STRIPE_PRICE_PRO: 'price_1ProMonthly' };
    const logger = createLogger({ write: (line) => lines.push(line), secrets: cloudSecrets(loadCloudConfig(env, defaultChains)) });
    const clock = manualClock(MAY_1);
    const cloud = await startTestCloud({ env, deps: { stripeApi: stripeApi.api, clock, logger } });
    try {
      const card = await cardMerchant(cloud, clock, 'starter');
      clock.set(Date.UTC(2026, 4, 15));
      // $49 a month in USD, but pro is billed by its configured Price id, so this one is not ours.
      const foreign = subscriptionUpdatedEvent('evt_1Foreign', clock.now(), subscription({ price: { id: 'price_1SomeoneElses', unitAmountCents: 4900 } }));
      assert.equal((await card.send(foreign)).json.outcome, 'ignored');
      assert.deepEqual([(await card.me()).plan, (await card.purchase()).plan], ['starter', 'starter']);
      const warning = lines.find((line) => line.includes('stripe price not mapped to a plan'));
      assert.ok(warning, 'the unmapped price is logged');
      assert.match(warning, /price_1SomeoneElses/);
      assert.match(warning, /evt_1Foreign/);

      const configured = subscriptionUpdatedEvent('evt_2Configured', clock.now() + 1000, subscription({ price: { id: 'price_1ProMonthly', unitAmountCents: 4900 } }));
      assert.equal((await card.send(configured)).json.outcome, 'updated');
      assert.equal((await card.me()).plan, 'pro');
      assert.ok(lines.length > 0);
      for (const secret of [SECRET_KEY, WEBHOOK_SECRET]) assert.ok(!lines.some((line) => line.includes(secret)), 'no Stripe secret in the log');
    } finally {
      await cloud.stop();
    }
  });

  it('dashboard plan page: "payment failed, update your card", the scheduled end, and a Stripe billing portal session for the customer', async () => {
    const clock = manualClock(MAY_1);
    const cloud = await startTestCloud({ env: stripeEnv, deps: { stripeApi: stripeApi.api, clock } });
    try {
      const card = await cardMerchant(cloud, clock, 'pro');
      let token = await signIn(cloud.url, card.merchant.api_key);
      const planPage = async () => (await open(cloud.url, '/dashboard/plan', token)).text();
      let html = await planPage();
      assert.match(html, /<div class="card" id="card-subscription"><h2>Card subscription<\/h2>/);
      assert.doesNotMatch(html, /id="payment-failed"|id="cancels-at"|id="portal-link"/);

      clock.set(JUNE_1 + HOUR);
      const renewal = { subscription: STRIPE_SUBSCRIPTION, billingReason: 'subscription_cycle', periodStart: JUNE_1, periodEnd: JULY_1, amountCents: 4900 };
      await card.send(invoiceEvent('evt_1Failed', 'invoice.payment_failed', clock.now(), renewal));
      await card.send(subscriptionUpdatedEvent('evt_2PastDue', clock.now(), subscription({ status: 'past_due', periodStart: JUNE_1, periodEnd: JULY_1, cancelAtPeriodEnd: true })));
      token = await signIn(cloud.url, card.merchant.api_key); // a month on, the first session has ended
      html = await planPage();
      assert.match(html, /id="payment-failed">Payment failed: the card charge of 2026-06-01 01:00 UTC was declined\. Update your card; Stripe retries the charge\. Your plan runs until 2026-06-04 00:00 UTC unless a charge succeeds\./);
      assert.match(html, /<strong id="card-status">past due<\/strong>/);
      assert.match(html, /id="cancels-at">Cancelled: not renewed after 2026-07-01 00:00 UTC/);

      stripeApi.requests.length = 0;
      const portal = await postForm(cloud.url, '/dashboard/plan/card', token, html);
      assert.equal(portal.status, 200);
      assert.equal(stripeApi.requests.length, 1);
      const [sent] = stripeApi.requests;
      assert.deepEqual([sent.method, sent.path, sent.headers.authorization], ['POST', '/v1/billing_portal/sessions', `Bearer ${SECRET_KEY}`]);
      assert.deepEqual(Object.fromEntries(sent.form), { customer: CUSTOMER, return_url: stripeEnv.STRIPE_CANCEL_URL });
      assert.match(await portal.text(), /<a id="portal-link" href="https:\/\/billing\.stripe\.com\/p\/session\/test_bps_1Portal\d{4}">/);

      // The form needs its token, as every dashboard form does.
      const forged = await postForm(cloud.url, '/dashboard/plan/card', token, '<input name="csrf" value="forged">');
      assert.equal(forged.status, 403);
      stripeApi.state.fail = { status: 500, message: 'Stripe is down' };
      const down = await postForm(cloud.url, '/dashboard/plan/card', token, html);
      assert.equal(down.status, 502);
      assert.match(await down.text(), /\(card_provider_error\)/);
      assert.equal(stripeApi.requests.length, 3, 'the forged form never reached Stripe; the SDK retried the 500 once');
    } finally {
      stripeApi.state.fail = null;
      await cloud.stop();
    }
  });

  it('dashboard: an account without a card subscription has no portal button, and posting it anyway → 409 method_unavailable', async () => {
    const cloud = await startTestCloud({ env: stripeEnv, deps: { stripeApi: stripeApi.api } });
    try {
      const m = await signupMerchant(cloud.url, { btc_xpub: BIP84_ZPUB });
      const token = await signIn(cloud.url, m.api_key);
      const html = await (await open(cloud.url, '/dashboard/plan', token)).text();
      assert.doesNotMatch(html, /card-subscription|\/dashboard\/plan\/card/);
      stripeApi.requests.length = 0;
      const refused = await postForm(cloud.url, '/dashboard/plan/card', token, html);
      assert.equal(refused.status, 409);
      assert.match(await refused.text(), /\(method_unavailable\)/);
      assert.equal(stripeApi.requests.length, 0);
    } finally {
      await cloud.stop();
    }
  });

  it('price → plan: configured ids first; an inline price only by the exact terms the processor sets', () => {
    const inline = (unit_amount: number | null, currency = 'usd', interval: 'month' | 'year' = 'month', interval_count = 1) =>
      ({ id: 'price_1Generated', currency, unit_amount, recurring: { interval, interval_count } }) as Parameters<typeof planOfStripePrice>[0];
    const none = {};
    const proConfigured = { pro: 'price_1ProMonthly' };
    const vectors: [string, Parameters<typeof planOfStripePrice>[0], Parameters<typeof planOfStripePrice>[1], string | null][] = [
      ['inline $19/month', inline(1900), none, 'starter'],
      ['inline $49/month', inline(4900), none, 'pro'],
      ['inline amount not in the catalogue', inline(2900), none, null],
      ['EUR, not what the processor sets', inline(4900, 'eur'), none, null],
      ['yearly', inline(4900, 'usd', 'year'), none, null],
      ['every two months', inline(4900, 'usd', 'month', 2), none, null],
      ['metered price without an amount', inline(null), none, null],
      ['configured id wins whatever its amount', { ...inline(3900), id: 'price_1ProMonthly' }, proConfigured, 'pro'],
      ['$49 not under pro’s configured id', inline(4900), proConfigured, null],
      ['starter still inline next to a configured pro', inline(1900), proConfigured, 'starter'],
    ];
    for (const [name, price, ids, plan] of vectors) assert.equal(planOfStripePrice(price, ids), plan, name);
  });

  it('plan switch: the new plan for the time already paid; a lapsed plan or another plan is left alone', () => {
    const at = Date.UTC(2026, 4, 15);
    const running = { plan: 'starter' as const, expiresAt: JUNE_1 + CARD_GRACE_MS };
    assert.deepEqual(switchCardPlan(running, 'starter', 'pro', at), { plan: 'pro', expiresAt: JUNE_1 + CARD_GRACE_MS });
    assert.deepEqual(switchCardPlan({ plan: 'starter', expiresAt: at - 1 }, 'starter', 'pro', at), { plan: 'starter', expiresAt: at - 1 });
    const crypto = { plan: 'pro' as const, expiresAt: at + 30 * DAY };
    assert.deepEqual(switchCardPlan(crypto, 'starter', 'pro', at), crypto);
    assert.deepEqual(switchCardPlan({ plan: 'free', expiresAt: null }, 'starter', 'pro', at), { plan: 'free', expiresAt: null });
  });
});
