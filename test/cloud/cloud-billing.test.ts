import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { manualClock } from '../../core/clock.ts';
import { PAID_PERIOD_MS } from '../../cloud/billing/plans.ts';
import { getJson, signupMerchant, startTestCloud } from '../helpers/cloud.ts';
import { BIP84_ZPUB, postJson, tempSqliteUrl } from '../helpers/listener.ts';

const OPERATOR_ADDRESS = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const baseEnv = { BASE_RPC_URL: 'http://127.0.0.1:9/rpc', BASE_MIN_SOURCES: '1', MERCHANT_EVM_TOKENS: 'usdc,usdt' };

describe('Cloud billing', () => {
  it('crypto: an operator-owned Base invoice; on confirmation the plan runs 30 days, a renewal adds 30 more', async () => {
    const url = tempSqliteUrl();
    const clock = manualClock(Date.UTC(2026, 3, 1));
    const setup = await startTestCloud({ env: { DATABASE_URL: url, ...baseEnv } });
    const operator = await signupMerchant(setup.url, { shop_name: 'Operator', base_address: OPERATOR_ADDRESS });
    await setup.stop();
    const cloud = await startTestCloud({
      env: { DATABASE_URL: url, ...baseEnv, CLOUD_BILLING_MERCHANT_ID: operator.merchant_id, CLOUD_CHECKOUT_BASE_URL: 'https://pay.example.com' },
      deps: { clock, billingPollMs: 20 },
    });
    try {
      const m = await signupMerchant(cloud.url, { btc_xpub: BIP84_ZPUB });
      const key = { 'X-Service-Api-Key': m.api_key };
      assert.deepEqual((await getJson(`${cloud.url}/api/v1/plans`)).json.payment_methods, ['crypto']);
      const buy = async () => {
        const checkout = await postJson(`${cloud.url}/api/v1/billing/checkout`, { plan: 'starter', method: 'crypto' }, key);
        assert.equal(checkout.status, 200);
        assert.equal(checkout.json.amount_usd, 19);
        assert.equal(checkout.json.checkout_url, `https://pay.example.com/pay/${checkout.json.invoice_id}`);
        const invoice = await cloud.database.db.selectFrom('invoices').selectAll().where('invoice_id', '=', checkout.json.invoice_id).executeTakeFirstOrThrow();
        assert.equal(invoice.merchant_id, operator.merchant_id);
        assert.equal(invoice.chain, 'base');
        assert.equal(invoice.receive_address, OPERATOR_ADDRESS);
        const view = await getJson(`${cloud.url}/api/v1/checkout/${invoice.invoice_id}`);
        assert.equal(view.json.shop_name, 'Operator');
        assert.match(view.json.amount_usdc, /^19\.00\d{4}$/);
        // The watcher confirms the payment (stood in for here by its status change).
        await cloud.database.db.updateTable('invoices').set({ status: 'confirmed', paid_at: clock.now(), tx_hash: '0xabc' }).where('invoice_id', '=', invoice.invoice_id).execute();
        const deadline = Date.now() + 5_000;
        while (Date.now() < deadline) {
          const sub = await cloud.database.db.selectFrom('cloud_subscriptions').select('status').where('subscription_id', '=', checkout.json.subscription_id).executeTakeFirstOrThrow();
          if (sub.status === 'applied') return;
          await new Promise((r) => setTimeout(r, 20));
        }
        assert.fail('purchase not applied');
      };
      const paidAt = clock.now();
      await buy();
      let me = (await getJson(`${cloud.url}/api/v1/me`, key)).json;
      assert.equal(me.plan, 'starter');
      assert.equal(me.plan_expires_at, new Date(paidAt + PAID_PERIOD_MS).toISOString());
      assert.equal(me.usage.monthly_limit, 500);
      clock.advance(10 * 24 * 3600 * 1000);
      await buy();
      me = (await getJson(`${cloud.url}/api/v1/me`, key)).json;
      assert.equal(me.plan_expires_at, new Date(paidAt + 2 * PAID_PERIOD_MS).toISOString());
      clock.set(paidAt + 2 * PAID_PERIOD_MS);
      me = (await getJson(`${cloud.url}/api/v1/me`, key)).json;
      assert.equal(me.plan, 'free');
      assert.equal(me.plan_expires_at, null);
      assert.equal(me.usage.monthly_limit, 50);
    } finally {
      await cloud.stop();
    }
  });

  it('unknown_plan, and card → 409 method_unavailable without a card adapter', async () => {
    const cloud = await startTestCloud();
    try {
      const m = await signupMerchant(cloud.url, { btc_xpub: BIP84_ZPUB });
      const key = { 'X-Service-Api-Key': m.api_key };
      for (const body of [{ plan: 'free' }, { plan: 'gold' }, {}, { plan: 'pro', method: 'paypal' }]) {
        assert.equal((await postJson(`${cloud.url}/api/v1/billing/checkout`, body, key)).json.error.code, 'unknown_plan');
      }
      const card = await postJson(`${cloud.url}/api/v1/billing/checkout`, { plan: 'pro', method: 'card' }, key);
      assert.equal(card.status, 409);
      assert.equal(card.json.error.code, 'method_unavailable');
      const crypto = await postJson(`${cloud.url}/api/v1/billing/checkout`, { plan: 'pro' }, key);
      assert.equal(crypto.json.error.code, 'method_unavailable');
    } finally {
      await cloud.stop();
    }
  });

  it('card: the processor page is checkout_url; a processor failure → 502 card_provider_error', async () => {
    let fail = false;
    const cloud = await startTestCloud({
      deps: {
        card: {
          async createCheckout({ subscriptionId, amountUsd }) {
            if (fail) throw new Error('processor down');
            return { url: `https://checkout.processor.example/c/${subscriptionId}?usd=${amountUsd}` };
          },
        },
      },
    });
    try {
      const m = await signupMerchant(cloud.url, { btc_xpub: BIP84_ZPUB });
      const key = { 'X-Service-Api-Key': m.api_key };
      const ok = await postJson(`${cloud.url}/api/v1/billing/checkout`, { plan: 'pro', method: 'card' }, key);
      assert.equal(ok.status, 200);
      assert.equal(ok.json.checkout_url, `https://checkout.processor.example/c/${ok.json.subscription_id}?usd=49`);
      assert.equal(ok.json.invoice_id, undefined);
      fail = true;
      const failed = await postJson(`${cloud.url}/api/v1/billing/checkout`, { plan: 'pro', method: 'card' }, key);
      assert.equal(failed.status, 502);
      assert.equal(failed.json.error.code, 'card_provider_error');
    } finally {
      await cloud.stop();
    }
  });
});
