import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { RunningCloud } from '../../cloud/cloud-app.ts';
import { LocalBtcChain } from '../../sandbox/local-btc-chain.ts';
import { startLocalChainServer } from '../../sandbox/local-chain-server.ts';
import { payeeOf, testAccountKey } from '../helpers/btc-chain.ts';
import { signupMerchant, startTestCloud } from '../helpers/cloud.ts';
import { testDatabases } from '../helpers/databases.ts';
import { MODERN_REVISION } from '../helpers/modern-mcp.ts';
import { waitForWatcher } from '../helpers/wait-for-watcher.ts';

const postgres = testDatabases.find((d) => d.name === 'postgres')!;

describe('MCP subscriptions across two Cloud instances on one Postgres', { skip: postgres.skip }, () => {
  it('a session and a 2026-07-28 listen stream on the instance that does not watch are notified when the leader confirms the invoice, and wait_for_payment there returns confirmed', async () => {
    const database = await postgres.create();
    const chain = new LocalBtcChain();
    const chainServer = await startLocalChainServer(chain);
    const start = () =>
      // The leader's heartbeat must answer within leaderRetryMs: at 100 ms a loaded CI machine lost
      // the lock mid-test and the watching moved to the other instance.
      startTestCloud({
        env: { DATABASE_URL: database.url, BTC_ESPLORA_URL: chainServer.esploraUrl, BTC_ESPLORA_NETWORK: 'regtest', BTC_ESPLORA_SELF_HOSTED: 'true', CLOUD_WATCH: 'true', CLOUD_SIGNUP_RATE_LIMIT: 'off' },
        deps: { leaderRetryMs: 1_000, chainWatch: { tuning: { bitcoin: { pollIntervalMs: 100 } }, refreshMs: 100 } },
      });
    const instances: RunningCloud[] = [];
    const clients: Array<{ close(): Promise<void> }> = [];
    const state = () => ({ tip: chain.tip.height, instances: instances.map((cloud) => ({ leader: cloud.isLeader(), watchers: cloud.watcherStates() })) });
    const until = <T>(what: string, read: () => Promise<T> | T, done: (value: T) => boolean) => waitForWatcher(what, read, done, { watcher: state, timeoutMs: 30_000 });
    try {
      instances.push(await start());
      await until('the first instance leads', () => instances[0]!.isLeader(), Boolean);
      instances.push(await start());
      const [leader, other] = instances as [RunningCloud, RunningCloud];
      assert.equal(other.isLeader(), false);
      const merchant = await signupMerchant(other.url, { btc_xpub: testAccountKey(21) });

      const client = new Client({ name: 'cross-instance', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${other.url}/api/v1/mcp`), { requestInit: { headers: { authorization: `Bearer ${merchant.api_key}` } } }));
      clients.push(client);
      const updates: string[] = [];
      client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => void updates.push(notification.params.uri));

      const created = await client.callTool({ name: 'create_invoice', arguments: { amount_sats: 45_000 } });
      const invoice = (created.structuredContent as { invoice: { invoice_id: string; receive_address: string } }).invoice;
      const uri = `invoice://${invoice.invoice_id}`;
      await client.subscribeResource({ uri });
      // The same invoice on a 2026-07-28 subscriptions/listen stream (SDK 2), on the same instance.
      const modern = new ModernClient({ name: 'cross-instance-listen', version: '1.0.0' }, { versionNegotiation: { mode: { pin: MODERN_REVISION } } });
      await modern.connect(new ModernTransport(new URL(`${other.url}/api/v1/mcp`), { requestInit: { headers: { authorization: `Bearer ${merchant.api_key}` } } }));
      clients.push(modern);
      const listened: string[] = [];
      modern.setNotificationHandler('notifications/resources/updated', (notification) => void listened.push(notification.params.uri));
      await modern.listen({ resourceSubscriptions: [uri] });
      const waiting = client.callTool({ name: 'wait_for_payment', arguments: { invoice_id: invoice.invoice_id, timeout_s: 120 } }, undefined, { timeout: 130_000 });
      // Settled whatever happens, so a failure below is reported as itself, not as this call's rejection when the client closes.
      waiting.catch(() => undefined);

      // The leader's one Bitcoin watcher has the invoice in its index and has read the tip.
      await until(
        'the leader watches the merchant',
        () => Object.values(leader.watcherStates()) as Array<{ subscribed_count?: number; last_block_height?: number | null }>,
        (states) => states.some((s) => s.subscribed_count === 1 && s.last_block_height === chain.tip.height),
      );
      chain.pay([{ ...payeeOf(invoice.receive_address), value: 45_000n }]);
      chain.mine(1);
      await until('the notification on the other instance', () => updates, (u) => u.length > 0);
      assert.deepEqual(updates, [uri]);
      await until('the listen stream told on the other instance', () => listened, (u) => u.length > 0);
      assert.deepEqual(listened, [uri]);
      const read = await client.readResource({ uri });
      assert.equal(JSON.parse((read.contents[0] as { text: string }).text).status, 'confirmed');
      const waited = (await waiting).structuredContent as { outcome: string; invoice: { status: string } };
      assert.equal(waited.outcome, 'confirmed');
      assert.equal(waited.invoice.status, 'confirmed');
    } finally {
      for (const client of clients) await client.close();
      for (const cloud of instances) await cloud.stop();
      await chainServer.close();
      await database.drop();
    }
  });
});
