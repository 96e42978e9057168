import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RunningCloud } from '../../../cloud/cloud-app.ts';
import { electLeader } from '../../../cloud/leader.ts';
import { silentLogger } from '../../../core/log.ts';
import { LocalBtcChain } from '../../../sandbox/local-btc-chain.ts';
import { startLocalChainServer } from '../../../sandbox/local-chain-server.ts';
import { payeeOf, testAccountKey } from '../../helpers/btc-chain.ts';
import { signupMerchant, startTestCloud } from '../../helpers/cloud.ts';
import {
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

const ELECTED = 'elected: this instance watches the chains';
const STOPPED = 'leader work stopped';

/** Each instance's terms as leader, from its log: elected until its leader work had stopped (or still leading). */
function terms(lines: Array<{ at: number; record: Record<string, unknown> }>): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (const { at, record } of lines) {
    if (record.msg === ELECTED) out.push([at, Infinity]);
    if (record.msg === STOPPED && out.length && out[out.length - 1][1] === Infinity) out[out.length - 1][1] = at;
  }
  return out;
}

/**
 * Two Cloud instances on one PostgreSQL server of the test's own, invoices created on both four
 * times a second in all, a merchant's Bitcoin payment confirming (local chain) and its webhook due
 * across the fault. Both run in the test process: an unhandled 'error' event would end the run.
 */
describe('two Cloud instances on PostgreSQL: the database goes away and comes back', { skip: privatePostgresSkip }, () => {
  for (const fault of faults) {
    it(`${fault}: bounded envelopes, recovery within 15 s, nothing lost, credited once, one leader at a time`, async () => {
      const server = await startPrivatePostgres();
      const chain = new LocalBtcChain();
      const chainServer = await startLocalChainServer(chain);
      const receiver = await startScriptedReceiver(() => ({ status: 200, body: '{"ok":true}' }));
      const logs = [recordingLogger({ instance: 'a' }), recordingLogger({ instance: 'b' })];
      const clouds: RunningCloud[] = [];
      const traffic: ReturnType<typeof startTraffic>[] = [];
      try {
        for (const log of logs) {
          clouds.push(
            await startTestCloud({
              env: {
                DATABASE_URL: server.url,
                BTC_ESPLORA_URL: chainServer.esploraUrl,
                BTC_ESPLORA_NETWORK: 'regtest',
                BTC_ESPLORA_SELF_HOSTED: 'true',
                CLOUD_WATCH: 'true',
                CLOUD_WEBHOOK_ALLOW_LOOPBACK: 'true',
                CLOUD_SIGNUP_RATE_LIMIT: 'off',
                CLOUD_INVOICE_RATE_LIMIT: 'off',
              },
              deps: {
                logger: log.logger,
                resolve: async () => [{ address: '127.0.0.1', family: 4 }],
                webhooks: { pollIntervalMs: 100 },
                chainWatch: { tuning: { bitcoin: { pollIntervalMs: 200 } }, refreshMs: 500 },
              },
            }),
          );
        }
        const [a, b] = clouds;
        const leaders = () => clouds.filter((c) => c.isLeader()).length;
        const state = () => ({ leaders: clouds.map((c) => c.isLeader()), watchers: clouds.map((c) => c.watcherStates()), a: logs[0].tail(15), b: logs[1].tail(15) });
        const wait = <T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = RECOVERY_MS + 15_000) =>
          waitForWatcher(what, read, done, { watcher: state, timeoutMs, everyMs: 100 });

        const merchant = await signupMerchant(a.url, { btc_xpub: testAccountKey(21), webhook_url: `http://hooks.test:${new URL(receiver.url).port}/hook` });
        const key = { 'X-Service-Api-Key': merchant.api_key };
        const paid = await postJson(`${a.url}/api/v1/invoice`, { amount_sats: 40_000 }, key);
        assert.equal(paid.status, 201, paid.text);
        const watched = async () =>
          clouds.some((c) => Object.values(c.watcherStates()).some((s) => (s as { subscribed_count?: number }).subscribed_count === 1));
        await wait('one instance leads and watches the invoice', async () => leaders() === 1 && (await watched()), Boolean);
        chain.pay([{ ...payeeOf(paid.json.receive_address), value: 40_000n }]);
        const { db } = a.database;
        await wait('the payment seen in the mempool', () => db.selectFrom('btc_payments').select('status').execute(), (rows) => rows.length === 1);

        for (const [name, cloud] of [['a', a], ['b', b]] as const) {
          traffic.push(
            startTraffic(name, (signal) => fetch(`${cloud.url}/api/v1/invoice`, { method: 'POST', headers: { 'content-type': 'application/json', ...key }, body: '{"amount_sats":1000}', signal }), 500),
          );
        }
        await wait('invoices being created on both', async () => traffic.map((t) => t.acknowledged().length), (n) => n.every((x) => x >= 1));

        chain.mine(1);
        const backAt = await applyFault(server, fault, async () => {
          if (fault === 'terminate') return;
          for (const cloud of clouds) {
            const down = await wait('/api/v1/health to report the database', async () => (await fetch(`${cloud.url}/api/v1/health`)).json(), (h) => h.ok === false, 15_000);
            assert.ok(down.problems.some((p: { component: string }) => p.component === 'database'), JSON.stringify(down));
          }
          await wait('every leader to step down', async () => leaders(), (n) => n === 0, 15_000);
        });

        const answers = () => traffic.flatMap((t) => t.answers).sort((x, y) => x.startedAt - y.startedAt);
        await wait('requests after the database is back', async () => traffic.every((t) => t.answers.some((x) => x.startedAt >= backAt + 2_000)), Boolean);
        const recoveredMs = assertRecovered(answers(), backAt);
        for (const cloud of clouds) {
          const healthy = await wait('/api/v1/health ok again', async () => (await fetch(`${cloud.url}/api/v1/health`)).json(), (h) => h.ok === true, RECOVERY_MS);
          assert.deepEqual(healthy.problems, []);
        }
        await wait('one leader again', async () => leaders(), (n) => n === 1, RECOVERY_MS);
        const leaderMs = Date.now() - backAt;
        assert.ok(leaderMs <= RECOVERY_MS, `a leader again within 15 s (took ${leaderMs} ms)`);
        await wait('the payment to confirm', async () => (await db.selectFrom('invoices').select('status').where('invoice_id', '=', paid.json.invoice_id).executeTakeFirstOrThrow()).status, (s) => s === 'confirmed');
        await wait('its webhook delivered', async () => receiver.requests.filter((r) => r.body.toString().includes(paid.json.invoice_id)).length, (n) => n >= 1);
        for (const t of traffic) await t.stop();

        assertAnswersBounded(answers());
        await assertNothingLost(db, {
          acknowledged: traffic.flatMap((t) => t.acknowledged()),
          paidInvoiceId: paid.json.invoice_id,
          received: receiver.requests,
          secret: merchant.webhook_secret!,
        });
        // One leader at a time: no term of one instance overlaps a term of the other.
        const [termsA, termsB] = logs.map((log) => terms(log.lines));
        assert.ok(termsA.length + termsB.length >= 1, 'someone led');
        for (const [startA, endA] of termsA) {
          for (const [startB, endB] of termsB) {
            assert.ok(endA <= startB || endB <= startA, `terms overlap: a ${startA}-${endA}, b ${startB}-${endB}`);
          }
        }
        console.log(
          `${fault}: ${answers().length} requests, ${answers().filter((x) => x.status !== 201).length} answered database_unavailable, recovered in ${recoveredMs} ms, leader again after ${leaderMs} ms; terms a ${termsA.length}, b ${termsB.length}`,
        );
      } finally {
        for (const t of traffic) await t.stop();
        for (const cloud of clouds) await cloud.stop();
        await chainServer.close();
        await receiver.close();
        await server.destroy();
      }
    });
  }
});

describe('leader election when the lock connections die', { skip: privatePostgresSkip }, () => {
  it('a leader whose lock connection died stops its leader work before any instance leads again', async () => {
    const server = await startPrivatePostgres();
    // Leader work that takes a while to stop (a pass under way): 150 ms, under one heartbeat (200 ms).
    const timeline: Array<{ who: number; leading: boolean; at: number }> = [];
    const elect = (who: number) =>
      electLeader({
        databaseUrl: server.url,
        dialect: 'postgres',
        logger: silentLogger,
        retryMs: 200,
        async onChange(leading) {
          if (leading) return void timeline.push({ who, leading, at: performance.now() });
          await new Promise((resolve) => setTimeout(resolve, 150));
          timeline.push({ who, leading, at: performance.now() });
        },
      });
    const elections = [elect(0), elect(1)];
    const leaders = () => elections.filter((e) => e.isLeader()).length;
    try {
      for (let round = 0; round < 6; round++) {
        await waitForWatcher(`a leader (round ${round})`, leaders, (n) => n === 1, { watcher: () => timeline, timeoutMs: 10_000 });
        if (round % 3 === 2) await server.restart();
        // The leader's lock connection at least (the other instance may be between two tries after the last fault).
        else assert.ok((await server.terminateAll()) >= 1, 'the lock connections ended');
        await waitForWatcher(`the leader to step down (round ${round})`, leaders, (n) => n === 0, { watcher: () => timeline, timeoutMs: 10_000 });
      }
      await waitForWatcher('a leader after the last fault', leaders, (n) => n === 1, { watcher: () => timeline, timeoutMs: 10_000 });
    } finally {
      for (const election of elections) await election.stop();
      await server.destroy();
    }
    const leading = new Set<number>();
    for (const { who, leading: starts } of timeline) {
      if (starts) {
        assert.equal(leading.size, 0, `instance ${who} began leading while ${[...leading]} still had leader work: ${JSON.stringify(timeline)}`);
        leading.add(who);
      } else leading.delete(who);
    }
    assert.ok(timeline.filter((t) => t.leading).length >= 7, `a new term after each fault: ${JSON.stringify(timeline)}`);
  });
});
