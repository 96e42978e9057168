import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import * as z from 'zod';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { RunningCloud } from '../../cloud/cloud-app.ts';
import { TASKS_EXTENSION } from '../../mcp/tasks/extension.ts';
import { startBtcWatchContext, type BtcWatchContext } from '../helpers/btc-chain.ts';
import { signupMerchant, startTestCloud } from '../helpers/cloud.ts';
import { BIP84_ZPUB } from '../helpers/listener.ts';
import { messageOf, postModern } from '../helpers/modern-mcp.ts';
import { sdk2Client, type WireExchange } from '../helpers/sdk2-mcp.ts';

const SECRET = 'mcp-tasks-http-test-secret-0123456789';
const WITH_TASKS = { extensions: { [TASKS_EXTENSION]: {} } };
const Detailed = z.looseObject({});

type Invoice = { invoice_id: string; receive_address: string };
type Outcome = { outcome: string; invoice: { status: string } };

/** The SDK 2 client of the real endpoint, negotiating 2026-07-28. */
const modernClient = (url: string, capabilities: Record<string, unknown>, headers: Record<string, string> = {}) => sdk2Client((request) => fetch(request), { url, capabilities, headers });
/** A 2025-era session of the same SDK (its default handshake). */
async function sessionClient(url: string, headers: Record<string, string> = {}) {
  const client = new Client({ name: 'service-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}
/** wait_for_payment as a task, read off the wire (the SDK client refuses the task result type). */
async function startTask(session: { client: Client; exchanges: WireExchange[] }, invoiceId: string): Promise<{ taskId: string; status: string }> {
  await session.client.callTool({ name: 'wait_for_payment', arguments: { invoice_id: invoiceId, timeout_s: 120 } }).then(
    () => assert.fail('expected a task'),
    (error: { data?: { resultType?: string } }) => assert.equal(error.data?.resultType, 'task'),
  );
  const result = session.exchanges.filter((sent) => sent.method === 'tools/call').at(-1)!.body.result!;
  assert.equal(result.resultType, 'task');
  return result as { taskId: string; status: string };
}
const getTask = (client: Client, taskId: string) => client.request({ method: 'tasks/get', params: { taskId } } as never, Detailed) as Promise<Record<string, unknown>>;
const errorCode = (promise: Promise<unknown>) =>
  promise.then(
    () => assert.fail('expected a JSON-RPC error'),
    (error: { code: number }) => error.code,
  );

describe('wait_for_payment as a task and the checkout hand-off over /mcp on the listener (both eras)', () => {
  let ctx: BtcWatchContext;
  let mcpUrl: string;
  before(async () => {
    ctx = await startBtcWatchContext('esplora', { env: { MCP_STATE_SECRET: SECRET } });
    mcpUrl = `${ctx.listener.url}/mcp`;
  });
  after(async () => {
    await ctx?.close();
  });
  const payAndConfirm = async (invoice: Invoice, amount: number) => {
    ctx.chain.pay([{ address: invoice.receive_address, value: BigInt(amount) }]);
    ctx.chain.mine(1);
    await ctx.sync();
  };

  test('2026-07-28 with the extension: a task, polled to completed when the invoice confirms, and still known after a restart', async () => {
    const session = await modernClient(mcpUrl, WITH_TASKS);
    assert.deepEqual(session.client.getServerCapabilities()?.extensions?.[TASKS_EXTENSION], {});
    const invoice = await ctx.createInvoice(31_000);
    const { taskId, status } = await startTask(session, invoice.invoice_id);
    assert.equal(status, 'working');
    assert.equal((await getTask(session.client, taskId)).status, 'working');
    await session.client.close();

    // Nothing of the task was kept: the restarted listener opens the id with the same secret.
    await ctx.listener.stop();
    await ctx.restart({ MCP_STATE_SECRET: SECRET });
    mcpUrl = `${ctx.listener.url}/mcp`;
    const again = await modernClient(mcpUrl, WITH_TASKS);
    assert.equal((await getTask(again.client, taskId)).status, 'working');
    await payAndConfirm(invoice, 31_000);
    const completed = await getTask(again.client, taskId);
    assert.equal(completed.status, 'completed');
    assert.equal(((completed.result as { structuredContent: Outcome }).structuredContent).outcome, 'confirmed');
    await again.client.close();
  });

  test('2026-07-28 without the extension, and a 2025 session: wait_for_payment blocks as before; tasks/get is -32021 and, on the session, unknown', async () => {
    const invoice = await ctx.createInvoice(32_000);
    const withTasks = await modernClient(mcpUrl, WITH_TASKS);
    const { taskId } = await startTask(withTasks, invoice.invoice_id);
    await withTasks.client.close();

    const plain = await modernClient(mcpUrl, {});
    const blocked = await plain.client.callTool({ name: 'wait_for_payment', arguments: { invoice_id: invoice.invoice_id, timeout_s: 1 } });
    assert.equal((blocked.structuredContent as Outcome).outcome, 'timeout');
    assert.equal(await errorCode(getTask(plain.client, taskId)), -32021);
    await plain.client.close();

    const legacy = await sessionClient(mcpUrl);
    assert.equal(legacy.getServerCapabilities()?.extensions, undefined, 'no extension advertised to a 2025 session');
    const waited = await legacy.callTool({ name: 'wait_for_payment', arguments: { invoice_id: invoice.invoice_id, timeout_s: 1 } });
    assert.equal((waited.structuredContent as Outcome).outcome, 'timeout');
    assert.equal(await errorCode(getTask(legacy, taskId)), -32601);
    await legacy.close();
  });

  test('subscriptions/listen asking for task notifications without the extension is -32021; with it, the stream opens (its ack names no task: clients poll)', async () => {
    const refused = await postModern(mcpUrl, {}, 'subscriptions/listen', { notifications: { taskIds: ['any'] } });
    assert.equal(refused.status, 400);
    const message = (await messageOf(refused)) as { error?: { code: number; data?: unknown } };
    assert.equal(message.error?.code, -32021);
    assert.deepEqual(message.error?.data, { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } });
    const opened = await postModern(mcpUrl, {}, 'subscriptions/listen', { notifications: { taskIds: ['any'] } }, { capabilities: WITH_TASKS });
    assert.equal(opened.status, 200);
    assert.match(opened.headers.get('content-type') ?? '', /text\/event-stream/);
    await opened.body?.cancel();
  });

  test('tasks/result and tasks/list, the 2025 experimental tasks the extension removed, are unknown methods (-32601)', async () => {
    for (const [method, params] of [['tasks/result', { taskId: 'any' }], ['tasks/list', {}]] as const) {
      const answer = await messageOf(await postModern(mcpUrl, {}, method, params, { capabilities: WITH_TASKS }));
      assert.equal(answer.error?.code, -32601, method);
    }
  });

  test('open_checkout: a 2026-07-28 client opens the listener\'s own checkout page, and one invoice is created', async () => {
    const session = await modernClient(mcpUrl, { elicitation: { url: {} } });
    const opened: string[] = [];
    session.client.setRequestHandler('elicitation/create', async (request) => {
      opened.push((request.params as { url: string }).url);
      return { action: 'accept' };
    });
    const invoices = async () => (await ctx.listener.database.db.selectFrom('invoices').select(({ fn }) => fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n;
    const before = Number(await invoices());
    const result = await session.client.callTool({ name: 'create_invoice', arguments: { amount_sats: 7_000, open_checkout: true } });
    const { invoice_id } = (result.structuredContent as { invoice: Invoice }).invoice;
    assert.equal(Number(await invoices()), before + 1);
    assert.deepEqual(opened, [`${ctx.listener.url}/pay/${invoice_id}`]);
    const page = await fetch(opened[0]!);
    assert.equal(page.status, 200, 'the page the payer was sent to exists');
    await page.body?.cancel();
    await session.client.close();
  });
});

describe('wait_for_payment as a task over /api/v1/mcp on Cloud', () => {
  let cloud: RunningCloud;
  let mcpUrl: string;
  let merchantA: Record<string, string>;
  let merchantB: Record<string, string>;
  before(async () => {
    cloud = await startTestCloud({ env: { MCP_STATE_SECRET: SECRET } });
    mcpUrl = `${cloud.url}/api/v1/mcp`;
    merchantA = { 'x-service-api-key': (await signupMerchant(cloud.url, { btc_xpub: BIP84_ZPUB })).api_key };
    merchantB = { 'x-service-api-key': (await signupMerchant(cloud.url, { btc_xpub: BIP84_ZPUB })).api_key };
  });
  after(async () => {
    await cloud?.stop();
  });

  test("a merchant's task is an unknown task (-32602) to another merchant; the 2025 session of either still blocks", async () => {
    const a = await modernClient(mcpUrl, WITH_TASKS, merchantA);
    const created = await a.client.callTool({ name: 'create_invoice', arguments: { amount_sats: 9_000 } });
    const invoiceId = (created.structuredContent as { invoice: Invoice }).invoice.invoice_id;
    const { taskId } = await startTask(a, invoiceId);
    assert.equal((await getTask(a.client, taskId)).status, 'working');
    const b = await modernClient(mcpUrl, WITH_TASKS, merchantB);
    for (const method of ['tasks/get', 'tasks/cancel']) assert.equal(await errorCode(b.client.request({ method, params: { taskId } } as never, Detailed)), -32602, method);
    assert.equal((await getTask(a.client, taskId)).status, 'working', "B's cancel reached nothing of A's");
    await Promise.all([a.client.close(), b.client.close()]);

    const legacy = await sessionClient(mcpUrl, merchantA);
    const waited = await legacy.callTool({ name: 'wait_for_payment', arguments: { invoice_id: invoiceId, timeout_s: 1 } });
    assert.equal((waited.structuredContent as Outcome).outcome, 'timeout');
    await legacy.close();
  });
});
