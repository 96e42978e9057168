/**
 * MCP 2026-07-28 `subscriptions/listen` on the listener's /mcp, with a payment confirmed on a local
 * chain (SDK 2 clients pinned to 2026-07-28). Across two Cloud instances: test/mcp/mcp-live.test.ts;
 * another merchant's invoice on Cloud: test/mcp/mcp-revisions.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startBtcWatchContext, type BtcWatchContext } from '../helpers/btc-chain.ts';
import { MODERN_REVISION } from '../helpers/modern-mcp.ts';
import { waitForWatcher } from '../helpers/wait-for-watcher.ts';

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
