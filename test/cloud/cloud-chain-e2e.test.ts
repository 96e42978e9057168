import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RunningCloud } from '../../cloud/cloud-app.ts';
import { LocalBtcChain } from '../../sandbox/local-btc-chain.ts';
import { startLocalChainServer } from '../../sandbox/local-chain-server.ts';
import { verifyWebhook } from '../../core/webhooks/signature.ts';
import { payeeOf, testAccountKey } from '../helpers/btc-chain.ts';
import { getJson, signupMerchant, startTestCloud } from '../helpers/cloud.ts';
import { testDatabases } from '../helpers/databases.ts';
import { postJson } from '../helpers/listener.ts';
import { startScriptedReceiver } from '../helpers/scripted-receiver.ts';
import { waitForWatcher } from '../helpers/wait-for-watcher.ts';

const postgres = testDatabases.find((d) => d.name === 'postgres')!;


describe('Cloud chain watching end to end: two instances on one Postgres', { skip: postgres.skip }, () => {
  it("a paid Bitcoin invoice confirms on both instances with one signed webhook to its merchant only; after the leader stops, the other instance watches and confirms the next", async () => {
    const database = await postgres.create();
    const chain = new LocalBtcChain();
    const chainServer = await startLocalChainServer(chain);
    const receiver = await startScriptedReceiver(() => ({ status: 200 }));
    const port = new URL(receiver.url).port;
    const start = () =>
      startTestCloud({
        env: {
          DATABASE_URL: database.url,
          BTC_ESPLORA_URL: chainServer.esploraUrl,
          BTC_ESPLORA_NETWORK: 'regtest',
          CLOUD_WATCH: 'true',
          CLOUD_WEBHOOK_ALLOW_LOOPBACK: 'true',
          CLOUD_SIGNUP_RATE_LIMIT: 'off',
        },
        deps: {
          resolve: async () => [{ address: '127.0.0.1', family: 4 as const }],
          webhooks: { pollIntervalMs: 20 },
          leaderRetryMs: 100,
          chainWatch: { tuning: { bitcoin: { pollIntervalMs: 100 } }, refreshMs: 100 },
        },
      });
    const instances: RunningCloud[] = [];
    const until = <T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 20_000) =>
      waitForWatcher(what, read, done, {
        watcher: () => ({ tip: chain.tip.height, instances: instances.map((cloud) => ({ leader: cloud.isLeader(), watchers: cloud.watcherStates() })) }),
        timeoutMs,
      });
    try {
      instances.push(await start());
      await until('the first instance leads', async () => instances[0].isLeader(), Boolean);
      instances.push(await start());
      const [one, two] = instances;
      assert.equal(two.isLeader(), false);

      const a = await signupMerchant(one.url, { btc_xpub: testAccountKey(11), webhook_url: `http://hooks-a.test:${port}/a` });
      const b = await signupMerchant(two.url, { btc_xpub: testAccountKey(12), webhook_url: `http://hooks-b.test:${port}/b` });
      const keyA = { 'X-Service-Api-Key': a.api_key };
      const keyB = { 'X-Service-Api-Key': b.api_key };
      const invoiceA = await postJson(`${two.url}/api/v1/invoice`, { amount_sats: 50_000 }, keyA);
      const invoiceB = await postJson(`${one.url}/api/v1/invoice`, { amount_sats: 60_000 }, keyB);
      assert.equal(invoiceA.status, 201, invoiceA.text);
      assert.equal(invoiceB.status, 201, invoiceB.text);
      const status = (cloud: RunningCloud, id: string, key: Record<string, string>) => async () =>
        (await getJson(`${cloud.url}/api/v1/invoice/${id}`, key)).json.status as string;
      // The leader's one Bitcoin watcher indexes both merchants' invoices at its next pass, and has read the tip.
      await until(
        'the leader watches both merchants',
        async () => {
          const [state] = Object.values(one.watcherStates()) as Array<{ subscribed_count: number; last_block_height: number | null }>;
          return state?.subscribed_count === 2 && state.last_block_height === chain.tip.height;
        },
        Boolean,
      );

      const txA = chain.pay([{ ...payeeOf(invoiceA.json.receive_address), value: 50_000n }]);
      chain.mine(1);
      await until("A's invoice reads confirmed on the instance that does not watch", status(two, invoiceA.json.invoice_id, keyA), (s) => s === 'confirmed');
      assert.equal(await status(one, invoiceA.json.invoice_id, keyA)(), 'confirmed');
      assert.equal(await status(one, invoiceB.json.invoice_id, keyB)(), 'pending');
      await until('a webhook arrives', async () => receiver.requests.length, (n) => n >= 1);
      await new Promise((r) => setTimeout(r, 500));
      assert.equal(receiver.requests.length, 1, 'exactly one webhook');
      const [hookA] = receiver.requests;
      assert.equal(hookA.path, '/a');
      assert.equal(hookA.headers.host, `hooks-a.test:${port}`);
      assert.ok(verifyWebhook(hookA.body, hookA.headers, a.webhook_secret!).ok, "signed with A's secret");
      assert.equal(verifyWebhook(hookA.body, hookA.headers, b.webhook_secret!).ok, false);
      const eventA = JSON.parse(hookA.body.toString());
      assert.deepEqual(
        [eventA.event, eventA.invoice_id, eventA.merchant_id, eventA.tx_hash],
        ['invoice.confirmed', invoiceA.json.invoice_id, a.merchant_id, txA],
      );

      // The leader goes away: its advisory lock goes with its connection, the other instance takes over.
      await one.stop();
      instances.shift();
      await until('the second instance leads', async () => two.isLeader(), Boolean, 10_000);

      const txB = chain.pay([{ ...payeeOf(invoiceB.json.receive_address), value: 60_000n }]);
      chain.mine(1);
      await until("B's invoice reads confirmed", status(two, invoiceB.json.invoice_id, keyB), (s) => s === 'confirmed');
      await until('a second webhook arrives', async () => receiver.requests.length, (n) => n >= 2);
      await new Promise((r) => setTimeout(r, 500));
      assert.equal(receiver.requests.length, 2, "one more webhook, and A's is not sent again");
      const hookB = receiver.requests[1];
      assert.equal(hookB.path, '/b');
      assert.ok(verifyWebhook(hookB.body, hookB.headers, b.webhook_secret!).ok, "signed with B's secret");
      assert.equal(verifyWebhook(hookB.body, hookB.headers, a.webhook_secret!).ok, false);
      const eventB = JSON.parse(hookB.body.toString());
      assert.deepEqual(
        [eventB.event, eventB.invoice_id, eventB.merchant_id, eventB.tx_hash],
        ['invoice.confirmed', invoiceB.json.invoice_id, b.merchant_id, txB],
      );
    } finally {
      for (const cloud of instances) await cloud.stop();
      await receiver.close();
      await chainServer.close();
      await database.drop();
    }
  });
});
