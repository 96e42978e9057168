import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { createDispatcher, type StatusListener } from '../../core/invoices/status-feed.ts';
import { silentLogger } from '../../core/log.ts';
import { feedUpdates } from '../../mcp/invoice-watch.ts';
import type { ListenerClient } from '../../mcp/listener-client.ts';
import { createServer } from '../../mcp/server.ts';
import { defaultChains } from '../../core/chains/default-chains.ts';

const MERCHANT = 'm_1';
const change = (invoiceId: string, status: string) => ({ invoice_id: invoiceId, merchant_id: MERCHANT, status, at: Date.now() });
const until = async (what: () => boolean) => {
  while (!what()) await new Promise((resolve) => setTimeout(resolve, 5));
};

describe('MCP invoice subscriptions of many sessions', () => {
  test('one feed watch per invoice however many sessions subscribe; each session is told, and the watch ends with the last', async () => {
    const statuses = new Map([
      ['inv_a', 'pending'],
      ['inv_b', 'pending'],
    ]);
    // The invoices as the listener answers them: what a subscription reads once at its start.
    const listener = {
      getInvoice: async (invoiceId: string) => ({ ok: true, value: { invoice_id: invoiceId, status: statuses.get(invoiceId)! } }),
    } as unknown as ListenerClient;
    const dispatcher = createDispatcher((error) => assert.fail(String(error)));
    const watching = new Map<string, number>();
    const feed = {
      watch(invoiceId: string, heard: StatusListener) {
        watching.set(invoiceId, (watching.get(invoiceId) ?? 0) + 1);
        const stop = dispatcher.watch(invoiceId, heard);
        return () => {
          watching.set(invoiceId, watching.get(invoiceId)! - 1);
          stop();
        };
      },
    };
    // As the listener's routes do: one `updates` for every session.
    const updates = feedUpdates(feed, MERCHANT);
    const sessions = await Promise.all(
      [0, 1, 2].map(async () => {
        const server = createServer({ listener, updates, chains: defaultChains, renderQr: () => Buffer.alloc(0), logger: silentLogger });
        const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
        await server.connect(serverSide);
        const client = new Client({ name: 'subscriber', version: '1.0.0' });
        const told: string[] = [];
        client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => void told.push(notification.params.uri));
        await client.connect(clientSide);
        for (const invoiceId of ['inv_a', 'inv_b']) await client.subscribeResource({ uri: `invoice://${invoiceId}` });
        return { client, told };
      }),
    );
    assert.deepEqual(Object.fromEntries(watching), { inv_a: 1, inv_b: 1 });

    statuses.set('inv_a', 'confirmed');
    dispatcher.emit(change('inv_a', 'confirmed'));
    await until(() => sessions.every((session) => session.told.length === 1));
    for (const session of sessions) assert.deepEqual(session.told, ['invoice://inv_a']);
    // The same status again (a feed re-announcing after a lost connection) tells nobody.
    dispatcher.emit(change('inv_a', 'confirmed'));
    // Another merchant's change of the same id is never heard.
    dispatcher.emit({ ...change('inv_b', 'expired'), merchant_id: 'm_2' });
    await sessions[0]!.client.ping();
    for (const session of sessions) assert.deepEqual(session.told, ['invoice://inv_a']);

    await sessions[0]!.client.unsubscribeResource({ uri: 'invoice://inv_b' });
    dispatcher.emit(change('inv_b', 'expired'));
    await until(() => sessions[1]!.told.length === 2 && sessions[2]!.told.length === 2);
    await sessions[0]!.client.ping();
    assert.deepEqual(sessions[0]!.told, ['invoice://inv_a']);
    assert.deepEqual(Object.fromEntries(watching), { inv_a: 1, inv_b: 1 });

    for (const session of sessions) await session.client.close();
    await until(() => watching.get('inv_a') === 0 && watching.get('inv_b') === 0);
  });
});
