import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { manualClock } from '../../core/clock.ts';
import { applyPaidPeriod, effectivePlan, PAID_PERIOD_MS, usageMonth } from '../../cloud/billing/plans.ts';
import { startTestCloud, signupMerchant } from '../helpers/cloud.ts';
import { BIP84_ZPUB, postJson } from '../helpers/listener.ts';

const DAY = 24 * 60 * 60 * 1000;
const T0 = Date.UTC(2026, 2, 10, 12);

describe('plan arithmetic (injected clock)', () => {
  it('a paid plan lasts 30 days from confirmation, then reads free', () => {
    const state = applyPaidPeriod({ plan: 'free', expiresAt: null }, 'starter', T0);
    assert.deepEqual(state, { plan: 'starter', expiresAt: T0 + 30 * DAY });
    assert.deepEqual(effectivePlan(state, T0 + 30 * DAY - 1), state);
    assert.deepEqual(effectivePlan(state, T0 + 30 * DAY), { plan: 'free', expiresAt: null });
  });
  it('renewing the same plan adds 30 days to the remaining time', () => {
    const first = applyPaidPeriod({ plan: 'free', expiresAt: null }, 'pro', T0);
    const renewed = applyPaidPeriod(first, 'pro', T0 + 20 * DAY);
    assert.equal(renewed.expiresAt, T0 + 60 * DAY);
  });
  it('renewing after the plan ended starts from the payment', () => {
    const first = applyPaidPeriod({ plan: 'free', expiresAt: null }, 'pro', T0);
    assert.equal(applyPaidPeriod(first, 'pro', T0 + 45 * DAY).expiresAt, T0 + 45 * DAY + PAID_PERIOD_MS);
  });
  it('buying another plan starts it at the payment', () => {
    const starter = applyPaidPeriod({ plan: 'free', expiresAt: null }, 'starter', T0);
    assert.deepEqual(applyPaidPeriod(starter, 'pro', T0 + 10 * DAY), { plan: 'pro', expiresAt: T0 + 40 * DAY });
  });
  it('the usage month is the UTC calendar month', () => {
    assert.equal(usageMonth(Date.UTC(2026, 0, 31, 23, 59, 59, 999)), '2026-01');
    assert.equal(usageMonth(Date.UTC(2026, 1, 1)), '2026-02');
  });
});

describe('Cloud plan cap and per-key rate limit', () => {
  it('the 51st Free invoice of a month answers 402 plan_limit_reached with plan/limit/used; the next month starts at 0', async () => {
    const clock = manualClock(Date.UTC(2026, 0, 31, 23, 0));
    const cloud = await startTestCloud({ env: { CLOUD_INVOICE_RATE_LIMIT: 'off' }, deps: { clock } });
    try {
      const m = await signupMerchant(cloud.url, { btc_xpub: BIP84_ZPUB });
      const key = { 'X-Service-Api-Key': m.api_key };
      const results = await Promise.all(Array.from({ length: 60 }, () => postJson(`${cloud.url}/api/v1/invoice`, { amount_sats: 1000 }, key)));
      assert.equal(results.filter((r) => r.status === 201).length, 50);
      const refused = results.filter((r) => r.status === 402);
      assert.equal(refused.length, 10);
      assert.deepEqual({ ...refused[0].json.error, message: undefined }, { code: 'plan_limit_reached', message: undefined, plan: 'free', limit: 50, used: 50 });
      const indexes = results.filter((r) => r.status === 201).map((r) => r.json.child_index).sort((x, y) => x - y);
      assert.deepEqual(indexes, Array.from({ length: 50 }, (_, i) => i), 'refused requests used no index');
      clock.set(Date.UTC(2026, 1, 1));
      const next = await postJson(`${cloud.url}/api/v1/invoice`, { amount_sats: 1000 }, key);
      assert.equal(next.status, 201);
      assert.equal(next.json.child_index, 50);
    } finally {
      await cloud.stop();
    }
  });

  it('an expired paid plan counts as Free at the cap', async () => {
    const clock = manualClock(T0);
    const cloud = await startTestCloud({ env: { CLOUD_INVOICE_RATE_LIMIT: 'off' }, deps: { clock } });
    try {
      const m = await signupMerchant(cloud.url, { btc_xpub: BIP84_ZPUB });
      await cloud.database.db.updateTable('cloud_merchants').set({ plan: 'starter', plan_expires_at: T0 - 1 }).where('merchant_id', '=', m.merchant_id).execute();
      await cloud.database.db.insertInto('cloud_usage').values({ merchant_id: m.merchant_id, month: usageMonth(T0), invoices: 50 }).execute();
      const refused = await postJson(`${cloud.url}/api/v1/invoice`, { amount_sats: 1000 }, { 'X-Service-Api-Key': m.api_key });
      assert.equal(refused.status, 402);
      assert.equal(refused.json.error.plan, 'free');
      await cloud.database.db.updateTable('cloud_merchants').set({ plan_expires_at: T0 + DAY }).where('merchant_id', '=', m.merchant_id).execute();
      const allowed = await postJson(`${cloud.url}/api/v1/invoice`, { amount_sats: 1000 }, { 'X-Service-Api-Key': m.api_key });
      assert.equal(allowed.status, 201);
    } finally {
      await cloud.stop();
    }
  });

  it('per key: 60 invoices per sliding minute, then 429 with Retry-After; another key is not affected', async () => {
    const clock = manualClock(T0);
    const cloud = await startTestCloud({ deps: { clock } });
    try {
      const m = await signupMerchant(cloud.url, { btc_xpub: BIP84_ZPUB });
      const other = await signupMerchant(cloud.url, { btc_xpub: BIP84_ZPUB });
      await cloud.database.db.updateTable('cloud_merchants').set({ plan: 'pro', plan_expires_at: T0 + DAY }).execute();
      const key = { 'X-Service-Api-Key': m.api_key };
      for (let i = 0; i < 60; i++) {
        assert.equal((await postJson(`${cloud.url}/api/v1/invoice`, { amount_sats: 1000 }, key)).status, 201);
        clock.advance(500);
      }
      const limited = await postJson(`${cloud.url}/api/v1/invoice`, { amount_sats: 1000 }, key);
      assert.equal(limited.status, 429);
      assert.equal(limited.json.error.code, 'rate_limited');
      assert.equal(limited.headers.get('retry-after'), '30');
      assert.equal((await postJson(`${cloud.url}/api/v1/invoice`, { amount_sats: 1000 }, { 'X-Service-Api-Key': other.api_key })).status, 201);
      clock.advance(30_000);
      assert.equal((await postJson(`${cloud.url}/api/v1/invoice`, { amount_sats: 1000 }, key)).status, 201);
    } finally {
      await cloud.stop();
    }
  });
});
