import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import * as z from 'zod';
import type { Client } from '@modelcontextprotocol/client';
import { silentLogger } from '../../core/log.ts';
import { createListenerClient, type ListenerClient } from '../../mcp/listener-client.ts';
import { createServer } from '../../mcp/server.ts';
import { memoryCancellations } from '../../mcp/tasks/cancellations.ts';
import { TASKS_EXTENSION } from '../../mcp/tasks/extension.ts';
import { TASK_POLL_INTERVAL_MS, TASK_RETAIN_MS } from '../../mcp/tasks/payment-tasks.ts';
import { paymentStateFor } from '../../mcp/payment-state.ts';
import { stateKey } from '../../mcp/state-keys.ts';
import { startBtcWatchContext, type BtcWatchContext } from '../helpers/btc-chain.ts';
import { inProcessEndpoint, sdk2Client, type WireExchange } from '../helpers/sdk2-mcp.ts';
import { defaultChains } from '../../core/chains/default-chains.ts';

const SECRET = new Uint8Array(32).fill(7);
const WITH_TASKS = { extensions: { [TASKS_EXTENSION]: {} } };
const Detailed = z.looseObject({});

type Invoice = { invoice_id: string; receive_address: string; status?: string };
const lastExchange = (exchanges: WireExchange[], method: string) => exchanges.filter((sent) => sent.method === method).at(-1)!;
type Outcome = { outcome: string; invoice: Invoice };

describe('wait_for_payment as a task of the tasks extension (2026-07-28, in process)', () => {
  let ctx: BtcWatchContext;
  let listener: ListenerClient;
  let time = Date.UTC(2026, 6, 28, 12);
  const cancellations = memoryCancellations(() => time);
  /** One server per request, as on Cloud: nothing but the key and the cancellations is shared. */
  const endpointOf = (owner: string, instance = cancellations) =>
    inProcessEndpoint(() => {
      const state = paymentStateFor({ secret: SECRET, cancellations: instance, checkoutUrl: () => null }, owner);
      const paymentState = { ...state, tasks: { ...state.tasks, now: () => time } };
      return createServer({ listener, updates: { watch: () => () => undefined }, chains: defaultChains, renderQr: () => Buffer.alloc(0), logger: silentLogger, paymentState }, 'modern');
    });
  const merchantA = endpointOf('merchant-a');
  let tasksClient: { client: Client; exchanges: WireExchange[] };
  let plainClient: { client: Client; exchanges: WireExchange[] };

  before(async () => {
    ctx = await startBtcWatchContext('esplora');
    listener = createListenerClient({ baseUrl: ctx.listener.url, apiKey: undefined, fetch, timeoutMs: 5_000, logger: silentLogger });
    tasksClient = await sdk2Client(merchantA, { capabilities: WITH_TASKS });
    plainClient = await sdk2Client(merchantA);
  });
  after(async () => {
    await tasksClient?.client.close();
    await plainClient?.client.close();
    await ctx?.close();
  });

  const payAndConfirm = async (invoice: Invoice, amount: number) => {
    ctx.chain.pay([{ address: invoice.receive_address, value: BigInt(amount) }]);
    ctx.chain.mine(1);
    await ctx.sync();
  };
  /** Calls wait_for_payment as a task: the SDK 2 client has no tasks extension and refuses the result type, so it is read off the wire. */
  const startTask = async (invoiceId: string, timeoutS = 120) => {
    const error = await tasksClient.client.callTool({ name: 'wait_for_payment', arguments: { invoice_id: invoiceId, timeout_s: timeoutS } }).then(
      () => assert.fail('expected a task, not a tool result'),
      (thrown: { data?: { resultType?: string } }) => thrown,
    );
    assert.equal(error.data?.resultType, 'task', 'the SDK client saw a task result');
    const exchange = lastExchange(tasksClient.exchanges, 'tools/call');
    return exchange.body.result as Record<string, unknown> & { taskId: string };
  };
  /** An ack's fields beside the `_meta` every result carries (the server's identity). */
  const cancel = async (taskId: string) => {
    const { _meta, ...fields } = (await tasksClient.client.request({ method: 'tasks/cancel', params: { taskId } } as never, Detailed)) as Record<string, unknown>;
    assert.ok(_meta);
    return fields;
  };
  const getTask = (client: Client, taskId: string) => client.request({ method: 'tasks/get', params: { taskId } } as never, Detailed) as Promise<Record<string, unknown>>;
  const rejection = (promise: Promise<unknown>) =>
    promise.then(
      () => assert.fail('expected a JSON-RPC error'),
      (error: { code: number; data?: unknown; message: string }) => error,
    );

  test('server/discover advertises the extension', () => {
    assert.deepEqual(tasksClient.client.getServerCapabilities()?.extensions, { [TASKS_EXTENSION]: {} });
  });

  test('a client declaring the extension gets a task at once, polled to completed with the blocking tool\'s result when the invoice is paid', async () => {
    const invoice = await ctx.createInvoice(30_000);
    const created = await startTask(invoice.invoice_id);
    assert.equal(created.resultType, 'task');
    assert.equal(created.status, 'working');
    assert.equal(created.createdAt, new Date(time).toISOString());
    assert.equal(created.lastUpdatedAt, created.createdAt);
    assert.equal(created.ttlMs, 120_000 + TASK_RETAIN_MS);
    assert.equal(created.pollIntervalMs, TASK_POLL_INTERVAL_MS);
    for (const absent of ['result', 'content', 'structuredContent', 'task', 'ttl', 'pollInterval', 'requestState']) assert.ok(!(absent in created), `no ${absent} on CreateTaskResult`);

    // Durable at once: the next request (another server instance) reads it.
    const working = await getTask(tasksClient.client, created.taskId);
    assert.equal(working.status, 'working');
    assert.equal(working.taskId, created.taskId);
    assert.ok(!('result' in working));
    assert.equal(tasksClient.exchanges.at(-1)!.body.result!.resultType, 'complete', 'tasks/get carries resultType "complete" on the wire');

    await payAndConfirm(invoice, 30_000);
    const completed = await getTask(tasksClient.client, created.taskId);
    assert.equal(completed.status, 'completed');
    const result = completed.result as { structuredContent: Outcome; content: { type: string; text: string }[] };
    assert.equal(result.structuredContent.outcome, 'confirmed');
    assert.equal(result.structuredContent.invoice.status, 'confirmed');
    // The same answer as the blocking tool gives a client without the extension.
    const blocking = await plainClient.client.callTool({ name: 'wait_for_payment', arguments: { invoice_id: invoice.invoice_id, timeout_s: 120 } });
    assert.deepEqual(result.structuredContent, blocking.structuredContent);
    assert.deepEqual(result.content, blocking.content);
  });

  test('a task past its timeout completes with outcome "timeout"; past its ttlMs it is gone', async () => {
    const invoice = await ctx.createInvoice(20_000);
    const started = time;
    const created = await startTask(invoice.invoice_id, 5);
    time = started + 5_000;
    const timedOut = await getTask(tasksClient.client, created.taskId);
    assert.equal(timedOut.status, 'completed');
    assert.equal(timedOut.lastUpdatedAt, new Date(started + 5_000).toISOString());
    assert.deepEqual((timedOut.result as { structuredContent: Outcome }).structuredContent.outcome, 'timeout');
    time = started + (created.ttlMs as number);
    const expired = await rejection(getTask(tasksClient.client, created.taskId));
    assert.equal(expired.code, -32602);
    assert.match(expired.message, /expired/);
    time = started;
  });

  test('tasks/cancel acknowledges empty and the next tasks/get says cancelled; a completed task stays completed', async () => {
    const invoice = await ctx.createInvoice(25_000);
    const created = await startTask(invoice.invoice_id);
    assert.deepEqual(await cancel(created.taskId), {});
    assert.deepEqual(Object.keys(tasksClient.exchanges.at(-1)!.body.result!).filter((key) => key !== '_meta'), ['resultType'], 'an empty ack, no task fields');
    assert.equal((await getTask(tasksClient.client, created.taskId)).status, 'cancelled');
    // Paid after the cancel: the task said cancelled and keeps saying it.
    await payAndConfirm(invoice, 25_000);
    assert.equal((await getTask(tasksClient.client, created.taskId)).status, 'cancelled');

    const paid = await ctx.createInvoice(26_000);
    await payAndConfirm(paid, 26_000);
    const done = await startTask(paid.invoice_id);
    assert.deepEqual(await cancel(done.taskId), {});
    assert.equal((await getTask(tasksClient.client, done.taskId)).status, 'completed');
  });

  test('another instance (or this one restarted) answers the task from its id and the invoice; a cancel stays with the instance that took it', async () => {
    const other = await sdk2Client(endpointOf('merchant-a', memoryCancellations(() => time)), { capabilities: WITH_TASKS });
    try {
      const invoice = await ctx.createInvoice(23_000);
      const paid = await startTask(invoice.invoice_id);
      const cancelled = await startTask((await ctx.createInvoice(24_000)).invoice_id);
      await cancel(cancelled.taskId);
      assert.equal((await getTask(other.client, paid.taskId)).status, 'working');
      await payAndConfirm(invoice, 23_000);
      const completed = await getTask(other.client, paid.taskId);
      assert.equal((completed.result as { structuredContent: Outcome }).structuredContent.outcome, 'confirmed');
      assert.equal((await getTask(tasksClient.client, cancelled.taskId)).status, 'cancelled');
      assert.equal((await getTask(other.client, cancelled.taskId)).status, 'working', 'documented: no store shared by the instances');
    } finally {
      await other.client.close();
    }
  });

  test('an unknown, altered or other merchant\'s task id is an unknown task (-32602) to every tasks method', async () => {
    const invoice = await ctx.createInvoice(21_000);
    const { taskId } = await startTask(invoice.invoice_id);
    const [prefix, body, tag] = taskId.split('.') as [string, string, string];
    // The same sealed id with another invoice in it (the MAC no longer matches).
    const otherInvoice = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(body, 'base64url').toString()), invoice_id: 'inv_someone_else' })).toString('base64url');
    const merchantB = await sdk2Client(endpointOf('merchant-b'), { capabilities: WITH_TASKS });
    try {
      for (const [client, id] of [
        [tasksClient.client, 'no-such-task'],
        [tasksClient.client, `${prefix}.${otherInvoice}.${tag}`],
        [tasksClient.client, `${taskId.slice(0, -2)}AA`],
        [merchantB.client, taskId],
      ] as const) {
        for (const method of ['tasks/get', 'tasks/cancel', 'tasks/update']) {
          const error = await rejection(client.request({ method, params: { taskId: id, ...(method === 'tasks/update' && { inputResponses: {} }) } } as never, Detailed));
          assert.equal(error.code, -32602, `${method} of ${id.slice(0, 12)}…`);
        }
      }
      // Merchant B's attempts cancelled nothing of A's.
      assert.equal((await getTask(tasksClient.client, taskId)).status, 'working');
    } finally {
      await merchantB.client.close();
    }
  });

  test('without the extension on the request: tasks/* are refused with -32021 naming it, and wait_for_payment blocks as before', async () => {
    const invoice = await ctx.createInvoice(22_000);
    const { taskId } = await startTask(invoice.invoice_id);
    for (const method of ['tasks/get', 'tasks/cancel', 'tasks/update']) {
      const error = await rejection(plainClient.client.request({ method, params: { taskId, ...(method === 'tasks/update' && { inputResponses: {} }) } } as never, Detailed));
      assert.equal(error.code, -32021, method);
      assert.deepEqual(error.data, { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } });
    }
    const result = await plainClient.client.callTool({ name: 'wait_for_payment', arguments: { invoice_id: invoice.invoice_id, timeout_s: 1 } });
    assert.equal((result.structuredContent as Outcome).outcome, 'timeout');
    assert.equal(lastExchange(plainClient.exchanges, 'tools/call').body.result!.resultType, 'complete');
  });

  test('a wait on an invoice that cannot be read is the tool error at once, as the blocking tool answers it', async () => {
    const result = await tasksClient.client.callTool({ name: 'wait_for_payment', arguments: { invoice_id: 'inv_missing_0000', timeout_s: 5 } });
    assert.equal(result.isError, true);
    assert.match((result.content as { text: string }[])[0]!.text, /^not_found: /);
  });
});

describe('cancellations kept in memory', () => {
  test('at most `max` at once: the one ending soonest makes room; an ended one is forgotten', async () => {
    let time = 0;
    const cancels = memoryCancellations(() => time, 2);
    await cancels.cancel('a', 1, 100);
    await cancels.cancel('b', 2, 50);
    await cancels.cancel('c', 3, 200);
    assert.equal(await cancels.cancelledAt('b'), null, 'b ended soonest and made room');
    assert.equal(await cancels.cancelledAt('a'), 1);
    assert.equal(await cancels.cancelledAt('c'), 3);
    time = 100;
    assert.equal(await cancels.cancelledAt('a'), null, 'a ended with its task');
  });
});

describe('state keys', () => {
  test('one key per use from one secret of at least 32 bytes', () => {
    assert.throws(() => stateKey('too short', 'tasks'), RangeError);
    assert.notDeepEqual(stateKey(SECRET, 'tasks'), stateKey(SECRET, 'checkout-hand-off'));
    assert.deepEqual(stateKey(SECRET, 'tasks'), stateKey(new Uint8Array(SECRET), 'tasks'));
  });
});
