import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseAccountKey, receiveAddress } from '../../core/btc/account-key.ts';
import { electLeader } from '../../cloud/leader.ts';
import { enqueueEvent } from '../../core/events/outbox.ts';
import { silentLogger } from '../../core/log.ts';
import { signupMerchant, startTestCloud } from '../helpers/cloud.ts';
import { testDatabases } from '../helpers/databases.ts';
import { BIP84_ZPUB, postJson } from '../helpers/listener.ts';
import { startScriptedReceiver } from '../helpers/scripted-receiver.ts';

const postgres = testDatabases.find((d) => d.name === 'postgres')!;

describe('Cloud scale-out: two instances on one Postgres', { skip: postgres.skip }, () => {
  it('1,000 concurrent invoices for one merchant: distinct indexes, exact usage; 1,000 events each delivered once', async () => {
    const database = await postgres.create();
    const receiver = await startScriptedReceiver(() => ({ status: 200 }));
    const port = new URL(receiver.url).port;
    const common = {
      env: { DATABASE_URL: database.url, CLOUD_INVOICE_RATE_LIMIT: 'off', CLOUD_WEBHOOK_ALLOW_LOOPBACK: 'true' },
      deps: { resolve: async () => [{ address: '127.0.0.1', family: 4 as const }], webhooks: { pollIntervalMs: 20 } },
    };
    const one = await startTestCloud(common);
    const two = await startTestCloud(common);
    try {
      const m = await signupMerchant(one.url, { btc_xpub: BIP84_ZPUB, webhook_url: `http://hooks.test:${port}/hook` });
      await one.database.db.updateTable('cloud_merchants').set({ plan: 'starter', plan_expires_at: Date.now() + 86_400_000 }).execute();
      // The starter cap is 500: of 1,000 requests exactly 500 succeed, whichever instance takes them.
      const key = { 'X-Service-Api-Key': m.api_key };
      const results = await Promise.all(
        Array.from({ length: 1000 }, (_, i) => postJson(`${(i % 2 ? one : two).url}/api/v1/invoice`, { amount_sats: 1000 + i }, key)),
      );
      const created = results.filter((r) => r.status === 201);
      assert.equal(created.length, 500);
      assert.equal(results.filter((r) => r.status === 402).length, 500);
      const indexes = created.map((r) => r.json.child_index).sort((x, y) => x - y);
      assert.deepEqual(indexes, Array.from({ length: 500 }, (_, i) => i));
      const usage = await one.database.db.selectFrom('cloud_usage').select('invoices').where('merchant_id', '=', m.merchant_id).executeTakeFirstOrThrow();
      assert.equal(Number(usage.invoices), 500);

      await one.database.db.updateTable('cloud_merchants').set({ plan: 'pro' }).execute();
      const more = await Promise.all(
        Array.from({ length: 1000 }, (_, i) => postJson(`${(i % 2 ? one : two).url}/api/v1/invoice`, { amount_sats: 1000 + i }, key)),
      );
      assert.equal(more.filter((r) => r.status === 201).length, 1000);
      const all = await one.database.db.selectFrom('invoices').select(['child_index', 'receive_address']).where('merchant_id', '=', m.merchant_id).execute();
      assert.equal(new Set(all.map((r) => r.child_index)).size, 1500);
      // Both instances serve addresses from pre-derived buffers: every one must be its index's own.
      const accountKey = parseAccountKey(BIP84_ZPUB);
      const wrong = all.filter((r) => r.receive_address !== receiveAddress(accountKey, r.child_index!));
      assert.deepEqual(wrong, []);
      const usage2 = await one.database.db.selectFrom('cloud_usage').select('invoices').where('merchant_id', '=', m.merchant_id).executeTakeFirstOrThrow();
      assert.equal(Number(usage2.invoices), 1500);

      const ids = new Set<string>();
      for (let i = 0; i < 1000; i += 100) {
        await one.database.db.transaction().execute(async (trx) => {
          for (let j = i; j < i + 100; j++) {
            ids.add(
              await enqueueEvent(trx, {
                merchantId: m.merchant_id,
                payload: { event: 'invoice.confirmed', invoice_id: `inv_${j}`, merchant_id: m.merchant_id, chain: 'btc', asset: 'BTC', amount: '1', address: 'a', tx_hash: 'b', confirmations: 1, confirmed_at: new Date().toISOString() },
                createdAt: Date.now(),
              }),
            );
          }
        });
      }
      const deadline = Date.now() + 60_000;
      while (receiver.requests.length < 1000 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      await new Promise((r) => setTimeout(r, 500));
      const received = receiver.requests.map((req) => String(req.headers['x-service-event-id']));
      assert.equal(received.length, 1000);
      assert.deepEqual(new Set(received), ids);
      const delivered = await one.database.db.selectFrom('events').select((eb) => eb.fn.countAll<number>().as('n')).where('delivery_status', '=', 'delivered').executeTakeFirstOrThrow();
      assert.equal(Number(delivered.n), 1000);
    } finally {
      await one.stop();
      await two.stop();
      await receiver.close();
      await database.drop();
    }
  });

  it('chain watching: exactly one instance leads; when it stops another takes over', async () => {
    const database = await postgres.create();
    const states = [false, false];
    const elect = (i: number) =>
      electLeader({ databaseUrl: database.url, dialect: 'postgres', logger: silentLogger, retryMs: 50, onChange: (leading) => void (states[i] = leading) });
    const first = elect(0);
    await new Promise((r) => setTimeout(r, 200));
    const second = elect(1);
    try {
      await new Promise((r) => setTimeout(r, 300));
      assert.deepEqual(states, [true, false]);
      await first.stop();
      const deadline = Date.now() + 5_000;
      while (!states[1] && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      assert.deepEqual(states, [false, true]);
    } finally {
      await first.stop();
      await second.stop();
      await database.drop();
    }
  });
});
