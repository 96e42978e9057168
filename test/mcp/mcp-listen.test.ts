/**
 * MCP 2026-07-28 `subscriptions/listen` for invoices: the SDK 2 client listens through the HTTP
 * layer's admission (edge/http/mcp-listen.ts) to the SDK 2 handler (createMcpHandler), whose bus is
 * fed by the real status feed (SQLite in memory, Postgres with LISTEN/NOTIFY) of a real database
 * (test/helpers/mcp-listen-server.ts).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Kysely } from 'kysely';
import { Client, StreamableHTTPClientTransport, type McpSubscription } from '@modelcontextprotocol/client';
import { silentLogger } from '../../core/log.ts';
import type { CoreTables } from '../../core/schema.ts';
import { insertInvoice, type InvoiceRow } from '../../core/invoices/invoice.repository.ts';
import { openStatusFeed } from '../../core/invoices/pg-status-feed.ts';
import type { StatusFeed } from '../../core/invoices/status-feed.ts';
import { testDatabases, type CreatedDatabase } from '../helpers/databases.ts';
import { startListenServer } from '../helpers/mcp-listen-server.ts';
import { waitForWatcher } from '../helpers/wait-for-watcher.ts';

const SHOP = 'm_listen_shop';
const OTHER_SHOP = 'm_listen_other';
let seq = 0;

function invoiceOf(merchantId: string): InvoiceRow {
  seq++;
  const now = Date.now();
  const id = `inv_listen_${seq}_${now}`;
  return {
    invoice_id: id, merchant_id: merchantId, chain: 'btc', asset: 'BTC', network: 'regtest', receive_address: `bcrt1qlisten${seq}${now}`,
    child_index: seq, derivation_path: `m/0/${seq}`, key_id: 'k_listen', amount_sats: 10_000, amount_units: null, memo: null, status: 'pending',
    tx_hash: null, paid_at: null, verification: null, expires_at: now + 3_600_000, created_at: now, updated_at: now, token_address: null,
    nonce: null, amount_usd: null, address_duplicate_of: null, order_id: null, metadata: null, redirect_url: null, price_amount: null, price_currency: null, rate: null, rate_sources: null, rate_at: null,
  };
}

/** Moves an invoice's status through the feed, as the watchers do. */
const setStatus = (feed: StatusFeed, db: Kysely<CoreTables>, invoice: InvoiceRow, status: string) =>
  feed.transaction(db, async (trx, changed) => {
    const now = Date.now();
    await trx.updateTable('invoices').set({ status, updated_at: now }).where('invoice_id', '=', invoice.invoice_id).execute();
    changed({ invoice_id: invoice.invoice_id, merchant_id: invoice.merchant_id, status, at: now });
  });

const until = <T>(what: string, read: () => T, done: (value: T) => boolean, state: () => unknown = () => undefined) =>
  waitForWatcher(what, read, done, { watcher: state, timeoutMs: 20_000, everyMs: 10 });

/** A 2026-07-28 client of `merchantId`, recording the invoices it is told changed. */
async function connect(url: string, merchantId: string) {
  const client = new Client({ name: 'listen-test', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  const told: string[] = [];
  client.setNotificationHandler('notifications/resources/updated', (notification) => void told.push(notification.params.uri));
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { 'x-merchant': merchantId } } }));
  return { client, told, listen: (...invoices: InvoiceRow[]) => client.listen({ resourceSubscriptions: invoices.map((invoice) => `invoice://${invoice.invoice_id}`) }) };
}

/** What listening to these URIs is refused with (the error's code and message), or null when it is admitted. */
async function refusalOf(client: Client, uris: string[]) {
  try {
    const subscription = await client.listen({ resourceSubscriptions: uris });
    await subscription.close();
    return null;
  } catch (error) {
    const { code, message, data } = error as { code: unknown; message: string; data?: { status?: number; text?: string } };
    return { code, message, status: data?.status, text: data?.text };
  }
}

for (const kind of testDatabases) {
  describe(`subscriptions/listen for invoices on ${kind.name}`, { skip: kind.skip }, () => {
    let created: CreatedDatabase;
    let database: Awaited<ReturnType<CreatedDatabase['open']>>;
    let feed: StatusFeed;
    before(async () => {
      created = await kind.create();
      database = await created.open();
      feed = await openStatusFeed(database.dialect, { databaseUrl: created.url, db: database.db, logger: silentLogger });
    });
    after(async () => {
      await feed.close();
      await database.close();
      await created.drop();
    });

    test('a status change reaches every listener of that invoice, once per change; a listener of another invoice hears nothing; closing releases the feed', async () => {
      const instance = await startListenServer(database.db, feed);
      const [paid, untouched, third] = [invoiceOf(SHOP), invoiceOf(SHOP), invoiceOf(SHOP)];
      for (const invoice of [paid, untouched, third]) await insertInvoice(database.db, invoice);
      const listeners = await Promise.all([1, 2, 3].map(() => connect(instance.url, SHOP)));
      const bystander = await connect(instance.url, SHOP);
      try {
        const subscriptions = await Promise.all(listeners.map((listener) => listener.listen(paid, third)));
        const aside = await bystander.listen(untouched, third);
        assert.deepEqual(subscriptions[0]!.honoredFilter, { resourceSubscriptions: [`invoice://${paid.invoice_id}`, `invoice://${third.invoice_id}`] });
        assert.equal(instance.listen.openStreams, 4);
        assert.equal(instance.feed.open, 3, 'one feed watch per invoice listened to, however many streams');

        await setStatus(feed, database.db, paid, 'confirmed');
        const uri = `invoice://${paid.invoice_id}`;
        await until('every listener of the paid invoice told', () => listeners.map((l) => l.told.length), (counts) => counts.every((n) => n === 1));
        for (const listener of listeners) assert.deepEqual(listener.told, [uri]);
        // The bus delivers to every stream at once: had the bystander been told, it would be by now.
        assert.deepEqual(bystander.told, [], 'a listener of other invoices hears nothing');

        // The same status again (a payment seen, a feed reconnection) is no change; the next change is.
        await setStatus(feed, database.db, third, 'pending');
        await setStatus(feed, database.db, third, 'partial');
        const thirdUri = `invoice://${third.invoice_id}`;
        await until('the partial change told', () => bystander.told.length, (n) => n === 1);
        assert.deepEqual(bystander.told, [thirdUri], 'told of the change, not of the repeated status');
        await until('every listener told of the partial change', () => listeners.map((l) => l.told.length), (counts) => counts.every((n) => n === 2));
        for (const listener of listeners) assert.deepEqual(listener.told, [uri, thirdUri]);

        await Promise.all(subscriptions.map((subscription) => subscription.close()));
        await until('the closed streams let go', () => instance.listen.openStreams, (n) => n === 1);
        assert.equal(instance.feed.open, 2, "the paid invoice's watch ends with its last stream; the others stay for the bystander");
        await aside.close();
        await until('every feed watch released', () => instance.feed.open, (n) => n === 0, () => ({ streams: instance.listen.openStreams, watched: instance.listen.watchedInvoices }));
        assert.equal(instance.listen.watchedInvoices, 0);
        assert.equal(instance.listen.openStreams, 0);
      } finally {
        await Promise.all([...listeners, bystander].map(({ client }) => client.close()));
        await instance.close();
      }
    });

    test("another merchant's invoice is refused exactly like an unknown one, and its changes never reach that merchant", async () => {
      const instance = await startListenServer(database.db, feed);
      const theirs = invoiceOf(SHOP);
      await insertInvoice(database.db, theirs);
      const intruder = await connect(instance.url, OTHER_SHOP);
      try {
        const other = await refusalOf(intruder.client, [`invoice://${theirs.invoice_id}`]);
        const unknown = await refusalOf(intruder.client, ['invoice://inv_no_such_invoice']);
        assert.deepEqual(other, { code: -32602, message: 'not_found: No such invoice.', status: undefined, text: undefined }, 'what resources/read answers for an unknown invoice');
        assert.deepEqual(other, unknown, 'nothing tells it exists');
        assert.equal(instance.listen.openStreams, 0);
        assert.equal(instance.feed.open, 0, 'nothing of it is watched');

        // Its owner listens; a change then reaches the owner only.
        const owner = await connect(instance.url, SHOP);
        const subscription = await owner.listen(theirs);
        await setStatus(feed, database.db, theirs, 'confirmed');
        await until('the owner told', () => owner.told.length, (n) => n === 1);
        assert.deepEqual(intruder.told, []);
        await subscription.close();
        await owner.client.close();
      } finally {
        await intruder.client.close();
        await instance.close();
      }
    });

    test('bounds: URIs per stream, streams per owner (429 too_many_sessions, other owners unaffected), all streams (the SDK cap)', async () => {
      const instance = await startListenServer(database.db, feed, { perStream: 3, perOwner: 2, overall: 3 });
      const invoices = [invoiceOf(SHOP), invoiceOf(SHOP), invoiceOf(SHOP), invoiceOf(SHOP), invoiceOf(OTHER_SHOP)];
      for (const invoice of invoices) await insertInvoice(database.db, invoice);
      const shop = await connect(instance.url, SHOP);
      const other = await connect(instance.url, OTHER_SHOP);
      const open: McpSubscription[] = [];
      try {
        const tooMany = await refusalOf(shop.client, invoices.slice(0, 4).map((invoice) => `invoice://${invoice.invoice_id}`));
        assert.equal(tooMany?.code, -32602);
        assert.match(tooMany!.message, /At most 3 resource subscriptions per listen stream/);

        open.push(await shop.listen(invoices[0]!), await shop.listen(invoices[1]!));
        const third = await refusalOf(shop.client, [`invoice://${invoices[2]!.invoice_id}`]);
        assert.equal(third?.status, 429);
        const envelope = JSON.parse(third!.text!) as { error: { code: string; message: string } };
        assert.equal(envelope.error.code, 'too_many_sessions');
        assert.match(envelope.error.message, /already holds 2 open subscriptions\/listen streams \(MCP_MAX_SESSIONS_PER_OWNER\)/);
        assert.equal(instance.feed.open, 2, 'a refused stream watches nothing');

        open.push(await other.listen(invoices[4]!));
        const overall = await refusalOf(other.client, [`invoice://${invoices[4]!.invoice_id}`]);
        assert.deepEqual([overall?.code, overall?.message], [-32603, 'Subscription limit reached'], "the SDK's cap on all streams");
        await until('the refused stream let go', () => instance.listen.openStreams, (n) => n === 3);

        await open.shift()!.close();
        await until('a slot of the owner freed', () => instance.listen.openStreams, (n) => n === 2);
        open.push(await shop.listen(invoices[2]!));
      } finally {
        await Promise.all(open.map((subscription) => subscription.close()));
        await Promise.all([shop, other].map(({ client }) => client.close()));
        await until('every feed watch released', () => instance.feed.open, (n) => n === 0);
        await instance.close();
      }
    });

    test('MCP_LISTEN_STREAM_MAX_S: a stream ends at its lifetime, giving back its slot and its watches; listening again works', async () => {
      const instance = await startListenServer(database.db, feed, { lifetimeMs: 400, perOwner: 1 });
      const invoice = invoiceOf(SHOP);
      await insertInvoice(database.db, invoice);
      const shop = await connect(instance.url, SHOP);
      try {
        const first = await shop.listen(invoice);
        assert.equal(instance.feed.open, 1);
        assert.equal(await first.closed, 'remote', 'ended by the server: the client listens again');
        await until('the ended stream let go', () => [instance.listen.openStreams, instance.feed.open], ([streams, watches]) => streams === 0 && watches === 0);
        const again = await shop.listen(invoice);
        await setStatus(feed, database.db, invoice, 'confirmed');
        await until('the new stream told', () => shop.told.length, (n) => n === 1);
        await again.close();
      } finally {
        await shop.client.close();
        await instance.close();
      }
    });

    if (kind.name === 'postgres') {
      test('a change committed on another instance reaches this instance\'s listeners (the Postgres feed)', async () => {
        const elsewhere = await created.open();
        const elsewhereFeed = await openStatusFeed(elsewhere.dialect, { databaseUrl: created.url, db: elsewhere.db, logger: silentLogger });
        const instance = await startListenServer(database.db, feed);
        const invoice = invoiceOf(SHOP);
        await insertInvoice(database.db, invoice);
        const shop = await connect(instance.url, SHOP);
        try {
          const subscription = await shop.listen(invoice);
          await setStatus(elsewhereFeed, elsewhere.db, invoice, 'confirmed');
          await until('told of the other instance\'s change', () => shop.told.length, (n) => n === 1);
          assert.deepEqual(shop.told, [`invoice://${invoice.invoice_id}`]);
          await subscription.close();
        } finally {
          await shop.client.close();
          await instance.close();
          await elsewhereFeed.close();
          await elsewhere.close();
        }
      });
    }
  });
}
