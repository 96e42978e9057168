import { defaultChains } from '../../../core/chains/default-chains.ts';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startListener, type RunningListener } from '../../../listener/app.ts';
import { loadConfig } from '../../../listener/config.ts';
import { LocalBtcChain } from '../../../sandbox/local-btc-chain.ts';
import { startLocalChainServer } from '../../../sandbox/local-chain-server.ts';
import { REGTEST_TPUB } from '../../helpers/btc-chain.ts';
import {
  ANSWER_BOUND_MS,
  applyFault,
  assertAnswersBounded,
  assertNothingLost,
  assertRecovered,
  faults,
  RECOVERY_MS,
  recordingLogger,
  startTraffic,
} from '../../helpers/database-faults.ts';
import { postJson } from '../../helpers/listener.ts';
import { privatePostgresSkip, startPrivatePostgres } from '../../helpers/private-postgres.ts';
import { startScriptedReceiver } from '../../helpers/scripted-receiver.ts';
import { waitForWatcher } from '../../helpers/wait-for-watcher.ts';

const secret = 'whsec_database_outage_listener';

/**
 * The listener on a PostgreSQL server of the test's own, with invoices being created four times a
 * second, a Bitcoin payment confirming (local chain) and its webhook due across the fault. The
 * listener runs in the test process: an unhandled 'error' event would end the test run itself.
 */
describe('listener on PostgreSQL: the database goes away and comes back', { skip: privatePostgresSkip }, () => {
  for (const fault of faults) {
    it(`${fault}: answers stay bounded envelopes, recovery within 15 s, nothing lost, credited once`, async () => {
      const server = await startPrivatePostgres();
      const chain = new LocalBtcChain();
      const chainServer = await startLocalChainServer(chain);
      const receiver = await startScriptedReceiver(() => ({ status: 200, body: '{"ok":true}' }));
      const log = recordingLogger();
      let listener: RunningListener | undefined;
      let traffic: ReturnType<typeof startTraffic> | undefined;
      try {
        const config = loadConfig({
          PORT: '0',
          DATABASE_URL: server.url,
          MERCHANT_BTC_XPUB: REGTEST_TPUB,
          BTC_NETWORK: 'regtest',
          BTC_ESPLORA_URL: chainServer.esploraUrl,
          BTC_ESPLORA_SELF_HOSTED: 'true',
          SERVICE_RATE_LIMIT: 'off',
          MERCHANT_WEBHOOK_URL: receiver.url,
          MERCHANT_WEBHOOK_SECRET: secret,
        }, defaultChains);
        listener = await startListener(config, { logger: log.logger, tuning: { bitcoin: { pollIntervalMs: 200 } }, webhooks: { pollIntervalMs: 100 } });
        const { url } = listener;
        const { db } = listener.database;
        const health = async () => (await fetch(`${url}/health`)).json();
        const state = () => ({ tip: chain.tip.height, log: log.tail() });
        const wait = <T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = RECOVERY_MS + 15_000) =>
          waitForWatcher(what, read, done, { watcher: state, timeoutMs, everyMs: 100 });

        const paid = await postJson(`${url}/invoice`, { amount_sats: 40_000 });
        assert.equal(paid.status, 201, paid.text);
        // Paid once watched: a transaction in the mempool before its address was watched is not looked at again.
        await wait('the invoice watched', health, (h) => h.subscribed_count === 1);
        chain.pay([{ address: paid.json.receive_address, value: 40_000n }]);
        await wait('the payment seen in the mempool', () => db.selectFrom('btc_payments').select('status').execute(), (rows) => rows.length === 1);

        traffic = startTraffic('listener', (signal) =>
          fetch(`${url}/invoice`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"amount_sats":1000}', signal }),
        );
        await wait('invoices being created', async () => traffic!.acknowledged().length, (n) => n >= 2);

        // The block confirming the payment arrives as the database goes away.
        chain.mine(1);
        const backAt = await applyFault(server, fault, async () => {
          if (fault === 'terminate') return;
          const startedAt = Date.now();
          const down = await wait('/health to report the database', health, (h) => h.ok === false && h.problems.some((p: { component: string }) => p.component === 'database'), 15_000);
          assert.ok(Date.now() - startedAt < 15_000);
          assert.match(down.problems.find((p: { component: string }) => p.component === 'database').reason, /database/);
          const timed = Date.now();
          await health();
          assert.ok(Date.now() - timed <= ANSWER_BOUND_MS, '/health answers within the bound during the outage');
        });

        const recoveredMs = assertRecovered(await wait('requests to succeed again', async () => traffic!.answers, (answers) => answers.some((a) => a.startedAt >= backAt + 2_000)), backAt);
        const healthy = await wait('/health ok again', health, (h) => h.ok === true, RECOVERY_MS);
        assert.deepEqual(healthy.problems, []);
        const healthyMs = Date.now() - backAt;
        assert.ok(healthyMs <= RECOVERY_MS, `/health ok within 15 s (took ${healthyMs} ms)`);
        await wait('the payment to confirm', async () => (await fetch(`${url}/invoice/${paid.json.invoice_id}`)).json(), (i) => i.status === 'confirmed');
        await wait('its webhook delivered', async () => receiver.requests.filter((r) => r.body.toString().includes(paid.json.invoice_id)).length, (n) => n >= 1);
        await traffic.stop();

        assertAnswersBounded(traffic.answers);
        await assertNothingLost(db, { acknowledged: traffic.acknowledged(), paidInvoiceId: paid.json.invoice_id, received: receiver.requests, secret });
        const during = traffic.answers.filter((a) => a.status !== 201).length;
        console.log(`${fault}: ${traffic.answers.length} requests, ${during} answered database_unavailable, requests recovered in ${recoveredMs} ms, /health in ${healthyMs} ms`);
      } finally {
        await traffic?.stop();
        await listener?.stop();
        await chainServer.close();
        await receiver.close();
        await server.destroy();
      }
    });
  }
});
