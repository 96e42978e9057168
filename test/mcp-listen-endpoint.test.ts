/**
 * MCP 2026-07-28 `subscriptions/listen` on the real endpoints: the listener's /mcp with a payment
 * confirmed on a local chain, and two Cloud instances on one Postgres (the stream on the instance
 * that does not watch). SDK 2 clients pinned to 2026-07-28.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { RunningCloud } from '../cloud/cloud-app.ts';
import { LocalBtcChain } from '../sandbox/local-btc-chain.ts';
import { startLocalChainServer } from '../sandbox/local-chain-server.ts';
import { payeeOf, startBtcWatchContext, testAccountKey, type BtcWatchContext } from './support/btc-chain.ts';
import { signupMerchant, startTestCloud } from './support/cloud.ts';
import { testDatabases } from './support/databases.ts';
import { MODERN_REVISION } from './support/modern-mcp.ts';
import { waitForWatcher } from './support/wait-for-watcher.ts';

interface Invoice {
  invoice_id: string;
  receive_address: string;
}

/** A 2026-07-28 client recording the invoice URIs it is told changed. */
async function connectModern(url: string, headers: Record<string, string> = {}) {
  const client = new Client({ name: 'listen-endpoint-test', version: '1.0.0' }, { versionNegotiation: { mode: { pin: MODERN_REVISION } } });
  const told: string[] = [];
  client.setNotificationHandler('notifications/resources/updated', (notification) => void told.push(notification.params.uri));
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  const create = async (amount_sats: number) => {
    const created = await client.callTool({ name: 'create_invoice', arguments: { amount_sats } });
    assert.ok(!created.isError, JSON.stringify(created.content));
    return (created.structuredContent as { invoice: Invoice }).invoice;
  };
  const statusOf = async (uri: string) => JSON.parse((((await client.readResource({ uri })).contents[0]) as { text: string }).text).status as string;
  return { client, told, create, statusOf };
}

const errorOf = async (attempt: Promise<unknown>) => {
  try {
    await attempt;
    return null;
  } catch (error) {
    const { code, message } = error as { code: unknown; message: string };
    return { code, message };
  }
};

describe('subscriptions/listen on the listener /mcp', () => {
  let ctx: BtcWatchContext;
  before(async () => {
    ctx = await startBtcWatchContext('esplora');
  });
  after(async () => {
    await ctx?.close();
  });

  test('a confirmation on the chain reaches the stream listening to that invoice, and not the one listening to another', async () => {
    const payer = await connectModern(`${ctx.listener.url}/mcp`);
    const bystander = await connectModern(`${ctx.listener.url}/mcp`);
    try {
      const [paid, other] = [await payer.create(40_000), await payer.create(41_000)];
      const uri = `invoice://${paid.invoice_id}`;
      const stream = await payer.client.listen({ resourceSubscriptions: [uri] });
      const aside = await bystander.client.listen({ resourceSubscriptions: [`invoice://${other.invoice_id}`] });
      assert.deepEqual(stream.honoredFilter, { resourceSubscriptions: [uri] });

      ctx.chain.pay([{ address: paid.receive_address, value: 40_000n }]);
      ctx.chain.mine(1);
      await ctx.sync();
      await waitForWatcher('the listen stream told of the confirmation', () => payer.told, (told) => told.length > 0, { watcher: () => ctx.invoice(paid.invoice_id), timeoutMs: 20_000 });
      assert.deepEqual(payer.told, [uri]);
      assert.equal(await payer.statusOf(uri), 'confirmed');
      assert.deepEqual(bystander.told, [], 'a stream of another invoice hears nothing');
      await stream.close();
      await aside.close();
    } finally {
      await payer.client.close();
      await bystander.client.close();
    }
  });

  test('an unknown invoice is refused before the stream opens, with what reading it answers', async () => {
    const agent = await connectModern(`${ctx.listener.url}/mcp`);
    try {
      const uri = 'invoice://inv_no_such_invoice_here';
      const listened = await errorOf(agent.client.listen({ resourceSubscriptions: [uri] }));
      const read = await errorOf(agent.client.readResource({ uri }));
      assert.ok(listened, 'the listen was refused');
      assert.deepEqual(listened, read);
    } finally {
      await agent.client.close();
    }
  });
});

const postgres = testDatabases.find((kind) => kind.name === 'postgres')!;

describe('subscriptions/listen across two Cloud instances on one Postgres', { skip: postgres.skip }, () => {
  test('a stream on the instance that does not watch is told when the leader confirms the invoice', async () => {
    const database = await postgres.create();
    const chain = new LocalBtcChain();
    const chainServer = await startLocalChainServer(chain);
    const start = () =>
      startTestCloud({
        env: { DATABASE_URL: database.url, BTC_ESPLORA_URL: chainServer.esploraUrl, BTC_ESPLORA_NETWORK: 'regtest', BTC_ESPLORA_SELF_HOSTED: 'true', CLOUD_WATCH: 'true', CLOUD_SIGNUP_RATE_LIMIT: 'off' },
        deps: { leaderRetryMs: 100, chainWatch: { btcPollMs: 100, refreshMs: 100 } },
      });
    const instances: RunningCloud[] = [];
    const state = () => ({ tip: chain.tip.height, instances: instances.map((cloud) => ({ leader: cloud.isLeader(), watchers: cloud.watcherStates() })) });
    const until = <T>(what: string, read: () => Promise<T> | T, done: (value: T) => boolean) => waitForWatcher(what, read, done, { watcher: state, timeoutMs: 30_000 });
    let agent: Awaited<ReturnType<typeof connectModern>> | undefined;
    try {
      instances.push(await start());
      await until('the first instance leads', () => instances[0]!.isLeader(), Boolean);
      instances.push(await start());
      const [leader, other] = instances as [RunningCloud, RunningCloud];
      assert.equal(other.isLeader(), false);
      const merchant = await signupMerchant(other.url, { btc_xpub: testAccountKey(23) });
      agent = await connectModern(`${other.url}/api/v1/mcp`, { authorization: `Bearer ${merchant.api_key}` });
      const invoice = await agent.create(45_000);
      const uri = `invoice://${invoice.invoice_id}`;
      const stream = await agent.client.listen({ resourceSubscriptions: [uri] });

      await until(
        'the leader watches the merchant',
        () => Object.values(leader.watcherStates()) as Array<{ subscribed_count?: number; last_block_height?: number | null }>,
        (states) => states.some((s) => s.subscribed_count === 1 && s.last_block_height === chain.tip.height),
      );
      chain.pay([{ ...payeeOf(invoice.receive_address), value: 45_000n }]);
      chain.mine(1);
      await until('the notification on the other instance', () => agent!.told, (told) => told.length > 0);
      assert.deepEqual(agent.told, [uri]);
      assert.equal(await agent.statusOf(uri), 'confirmed');
      await stream.close();
    } finally {
      await agent?.client.close();
      for (const cloud of instances.reverse()) await cloud.stop();
      await chainServer.close();
      await database.drop();
    }
  });
});
