import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { manualClock } from '../../core/clock.ts';
import { createSharedRateLimiter } from '../../cloud/http/shared-rate-limiter.ts';
import { signupMerchant, startTestCloud } from '../helpers/cloud.ts';
import { testDatabases, withFreshCloudDatabase } from '../helpers/databases.ts';
import { BIP84_ZPUB, postJson } from '../helpers/listener.ts';

const T0 = Date.UTC(2026, 4, 1, 9);
const PER_KEY = { perClient: 60, overall: Number.MAX_SAFE_INTEGER };
const postgres = testDatabases.find((d) => d.name === 'postgres')!;

for (const database of testDatabases) {
  describe(`shared sliding window on ${database.name}`, { skip: database.skip }, () => {
    it('60 per minute per key, Retry-After until the oldest leaves, other keys unaffected', async () => {
      await withFreshCloudDatabase(database, async (db) => {
        const clock = manualClock(T0);
        const limiter = createSharedRateLimiter({ db, clock, name: 'invoice', config: PER_KEY });
        for (let i = 0; i < 60; i++) {
          assert.equal(await limiter.take('key-a'), 0, `request ${i + 1}`);
          clock.advance(500);
        }
        // 60 let through at T0 … T0+29.5 s; now T0+30 s: the first leaves the window at T0+60 s.
        assert.equal(await limiter.take('key-a'), 30);
        assert.equal(await limiter.take('key-b'), 0);
        clock.set(T0 + 59_999);
        assert.equal(await limiter.take('key-a'), 1, 'the oldest is still inside the window 1 ms before it leaves');
        clock.set(T0 + 60_000);
        assert.equal(await limiter.take('key-a'), 0, 'exactly one slot frees when the oldest leaves');
        assert.ok((await limiter.take('key-a')) > 0, 'and only one');
      });
    });

    it('a client window and the overall window: either full refuses, a refusal is not counted', async () => {
      await withFreshCloudDatabase(database, async (db) => {
        const clock = manualClock(T0);
        const limiter = createSharedRateLimiter({ db, clock, name: 'signup', config: { perClient: 2, overall: 3 } });
        assert.equal(await limiter.take('10.0.0.1'), 0);
        assert.equal(await limiter.take('10.0.0.1'), 0);
        assert.ok((await limiter.take('10.0.0.1')) > 0);
        assert.equal(await limiter.take('10.0.0.2'), 0);
        assert.equal(await limiter.take('10.0.0.3'), 60, 'overall full: 3 let through at T0');
        clock.advance(60_000);
        assert.equal(await limiter.take('10.0.0.3'), 0);
        const rows = await db.selectFrom('cloud_rate_windows').select(['bucket', 'hits']).orderBy('bucket').execute();
        assert.deepEqual(
          rows.map((r) => [r.bucket, r.hits.split(',').filter(Boolean).length]),
          [
            ['signup:*', 1],
            ['signup:10.0.0.1', 2],
            ['signup:10.0.0.2', 1],
            ['signup:10.0.0.3', 1],
          ],
        );
      });
    });

    it('idle windows are swept, live ones kept', async () => {
      await withFreshCloudDatabase(database, async (db) => {
        const clock = manualClock(T0);
        const limiter = createSharedRateLimiter({ db, clock, name: 'invoice', config: PER_KEY, sweepEvery: 5 });
        await limiter.take('idle-1');
        await limiter.take('idle-2');
        clock.advance(60_000);
        await limiter.take('live');
        await limiter.take('live');
        await limiter.take('live');
        const left = await db.selectFrom('cloud_rate_windows').select('bucket').execute();
        assert.deepEqual(left.map((r) => r.bucket), ['invoice:live']);
      });
    });
  });
}

describe('the per-key window across two instances on one Postgres', { skip: postgres.skip }, () => {
  it('two limiters on separate connection pools let exactly 60 of 150 concurrent requests through', async () => {
    const created = await postgres.create();
    const first = await created.openCloud();
    const second = await created.openCloud();
    try {
      const clock = manualClock(T0);
      const limiters = [first, second].map(({ db }) => createSharedRateLimiter({ db, clock, name: 'invoice', config: PER_KEY }));
      const waits = await Promise.all(Array.from({ length: 150 }, (_, i) => limiters[i % 2].take('key-a')));
      assert.equal(waits.filter((w) => w === 0).length, 60);
      assert.ok(waits.filter((w) => w > 0).every((w) => w === 60));
    } finally {
      await first.close();
      await second.close();
      await created.drop();
    }
  });

  it('two Cloud instances: 60 invoices per key per minute in all, then 429 on either; signups per IP shared too', async () => {
    const created = await postgres.create();
    const clock = manualClock(Date.now());
    const common = { env: { DATABASE_URL: created.url, CLOUD_SIGNUP_RATE_LIMIT: '3,100' }, deps: { clock } };
    const one = await startTestCloud(common);
    const two = await startTestCloud(common);
    try {
      const m = await signupMerchant(one.url, { btc_xpub: BIP84_ZPUB });
      await signupMerchant(two.url, { btc_xpub: BIP84_ZPUB });
      await signupMerchant(one.url, { btc_xpub: BIP84_ZPUB });
      const fourth = await postJson(`${two.url}/api/v1/signup`, { email: 'fourth@example.com', shop_name: 'Shop', btc_xpub: BIP84_ZPUB });
      assert.equal(fourth.status, 429, 'the third signup from this IP was on the other instance');
      assert.equal(fourth.json.error.code, 'rate_limited');

      await one.database.db.updateTable('cloud_merchants').set({ plan: 'pro', plan_expires_at: clock.now() + 86_400_000 }).execute();
      const key = { 'X-Service-Api-Key': m.api_key };
      const results = await Promise.all(
        Array.from({ length: 90 }, (_, i) => postJson(`${(i % 2 ? one : two).url}/api/v1/invoice`, { amount_sats: 1000 + i }, key)),
      );
      assert.equal(results.filter((r) => r.status === 201).length, 60);
      const refused = results.filter((r) => r.status === 429);
      assert.equal(refused.length, 30);
      assert.ok(refused.every((r) => r.headers.get('retry-after') === '60' && r.json.error.code === 'rate_limited'));
      clock.advance(60_000);
      assert.equal((await postJson(`${one.url}/api/v1/invoice`, { amount_sats: 5000 }, key)).status, 201);
    } finally {
      await one.stop();
      await two.stop();
      await created.drop();
    }
  });
});
