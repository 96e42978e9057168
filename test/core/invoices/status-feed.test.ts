import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Kysely } from 'kysely';
import pg from 'pg';
import { btcAdapter } from '../../../core/btc/btc-adapter.ts';
import { base } from '../../../core/evm/chains/base.ts';
const evmAdapter = base.adapter;
import { systemClock } from '../../../core/clock.ts';
import { silentLogger } from '../../../core/log.ts';
import type { CoreTables } from '../../../core/schema.ts';
import { startExpirySweeper } from '../../../core/invoices/expiry-sweeper.ts';
import { findInvoice, insertInvoice, type InvoiceRow } from '../../../core/invoices/invoice.repository.ts';
import { createPgStatusFeed, openStatusFeed, STATUS_FEED_APPLICATION } from '../../../core/invoices/pg-status-feed.ts';
import type { StatusChange, StatusFeed } from '../../../core/invoices/status-feed.ts';
import { testDatabases, type CreatedDatabase } from '../../helpers/databases.ts';
import { waitForWatcher } from '../../helpers/wait-for-watcher.ts';

const MERCHANT = 'm_feed';
let seq = 0;

function btcInvoice(overrides: Partial<InvoiceRow> = {}): InvoiceRow {
  seq++;
  const now = Date.now();
  return {
    invoice_id: `inv_feed_${seq}_${now}`,
    merchant_id: MERCHANT,
    chain: 'btc',
    asset: 'BTC',
    network: 'regtest',
    receive_address: `bcrt1qfeed${seq}${now}`,
    child_index: seq,
    derivation_path: `m/0/${seq}`,
    key_id: 'k_feed',
    amount_sats: 10_000,
    amount_units: null,
    memo: null,
    status: 'pending',
    tx_hash: null,
    paid_at: null,
    verification: null,
    expires_at: now + 3_600_000,
    created_at: now,
    updated_at: now,
    token_address: null,
    nonce: null,
    amount_usd: null,
    address_duplicate_of: null, order_id: null, metadata: null, redirect_url: null, price_amount: null, price_currency: null, rate: null, rate_sources: null, rate_at: null,
    ...overrides,
  };
}

/** Moves an invoice's status through the feed, as the watchers do. */
function setStatus(feed: StatusFeed, db: Kysely<CoreTables>, invoice: InvoiceRow, status: string, rollback = false) {
  return feed.transaction(db, async (trx, changed) => {
    const now = Date.now();
    await trx.updateTable('invoices').set({ status, updated_at: now }).where('invoice_id', '=', invoice.invoice_id).execute();
    changed({ invoice_id: invoice.invoice_id, merchant_id: MERCHANT, status, at: now });
    if (rollback) throw new Error('rolled back on purpose');
  });
}

/** Everything `feed` tells a watcher of `invoice`. */
function record(feed: StatusFeed, invoice: InvoiceRow) {
  const heard: StatusChange[] = [];
  const stop = feed.watch(invoice.invoice_id, (change) => heard.push(change));
  return { heard, stop, statuses: () => heard.map((change) => change.status) };
}

const until = <T>(what: string, read: () => T, done: (value: T) => boolean, state: () => unknown = () => undefined) =>
  waitForWatcher(what, read, done, { watcher: state, timeoutMs: 20_000, everyMs: 10 });

for (const kind of testDatabases) {
  describe(`status feed on ${kind.name}`, { skip: kind.skip }, () => {
    const openFeed = async (created: CreatedDatabase) => {
      const database = await created.open();
      const feed = await openStatusFeed(database.dialect, { databaseUrl: created.url, db: database.db, logger: silentLogger });
      return { db: database.db, feed, async close() {
        await feed.close();
        await database.close();
      } };
    };

    test('a change is published once, after its commit, with id, merchant, status and time; a rolled-back one never', async () => {
      const created = await kind.create();
      const one = await openFeed(created);
      try {
        const invoice = btcInvoice();
        await insertInvoice(one.db, invoice);
        const watched = record(one.feed, invoice);
        const everything: StatusChange[] = [];
        const unsubscribe = one.feed.subscribe((change) => everything.push(change));

        let heardInside: number | undefined;
        await one.feed.transaction(one.db, async (trx, changed) => {
          await trx.updateTable('invoices').set({ status: 'partial', updated_at: 1_700_000_000_000 }).where('invoice_id', '=', invoice.invoice_id).execute();
          changed({ invoice_id: invoice.invoice_id, merchant_id: MERCHANT, status: 'partial', at: 1_700_000_000_000 });
          // Still inside the transaction: nothing may be published yet.
          await new Promise((resolve) => setImmediate(resolve));
          heardInside = watched.heard.length;
        });
        assert.equal(heardInside, 0, 'nothing is published before the commit');
        await until('the partial change', watched.statuses, (s) => s.length === 1);
        assert.deepEqual(watched.heard, [{ invoice_id: invoice.invoice_id, merchant_id: MERCHANT, status: 'partial', at: 1_700_000_000_000 }]);

        await assert.rejects(setStatus(one.feed, one.db, invoice, 'confirmed', true), /rolled back on purpose/);
        assert.equal((await findInvoice(one.db, MERCHANT, invoice.invoice_id))!.status, 'partial');
        // A later change is the marker: anything the rollback published would have arrived before it.
        await setStatus(one.feed, one.db, invoice, 'expired');
        await until('the expired change', watched.statuses, (s) => s.includes('expired'));
        assert.deepEqual(watched.statuses(), ['partial', 'expired'], 'each change once, the rolled-back one never');
        assert.deepEqual(everything.map((c) => c.status), ['partial', 'expired']);
        assert.ok(everything.every((c) => Object.keys(c).sort().join() === 'at,invoice_id,merchant_id,status'), 'no other field (no secrets)');

        watched.stop();
        unsubscribe();
        await setStatus(one.feed, one.db, invoice, 'confirmed');
        const marker = btcInvoice();
        await insertInvoice(one.db, marker);
        const markerWatch = record(one.feed, marker);
        await setStatus(one.feed, one.db, marker, 'confirmed');
        await until('the marker', markerWatch.statuses, (s) => s.length === 1);
        assert.deepEqual(watched.statuses(), ['partial', 'expired'], 'a stopped watch hears nothing more');
      } finally {
        await one.close();
        await created.drop();
      }
    });

    test('a pending invoice is published as expired when it passes expires_at, and stored so', async () => {
      const created = await kind.create();
      const one = await openFeed(created);
      const guards = [btcAdapter.paymentSeenBeforeExpiry, evmAdapter.paymentSeenBeforeExpiry];
      const sweeper = startExpirySweeper({ db: one.db, feed: one.feed, clock: systemClock, logger: silentLogger, guards });
      try {
        const soon = btcInvoice({ expires_at: Date.now() + 400 });
        const later = btcInvoice({ expires_at: Date.now() + 3_600_000 });
        await insertInvoice(one.db, soon);
        await insertInvoice(one.db, later);
        const watchedSoon = record(one.feed, soon);
        const watchedLater = record(one.feed, later);
        // Created after the sweeper planned its next run (up to a minute away): the nudge brings it forward.
        sweeper.created(soon.expires_at);
        await until('the expiry to be published', watchedSoon.statuses, (s) => s.length > 0);
        assert.deepEqual(watchedSoon.statuses(), ['expired']);
        assert.equal((await findInvoice(one.db, MERCHANT, soon.invoice_id))!.status, 'expired', 'stored status and feed agree');
        assert.deepEqual(watchedLater.statuses(), []);
        assert.equal((await findInvoice(one.db, MERCHANT, later.invoice_id))!.status, 'pending');
      } finally {
        await sweeper.stop();
        await one.close();
        await created.drop();
      }
    });
  });
}

const postgres = testDatabases.find((kind) => kind.name === 'postgres')!;

describe('status feed across Postgres instances (LISTEN/NOTIFY)', { skip: postgres.skip }, () => {
  test('a change made on one instance reaches the other once; a LISTEN connection killed mid-way loses no update', async () => {
    const created = await postgres.create();
    const a = await created.open();
    const b = await created.open();
    const feedA = await createPgStatusFeed({ databaseUrl: created.url, db: a.db, logger: silentLogger });
    const feedB = await createPgStatusFeed({ databaseUrl: created.url, db: b.db, logger: silentLogger, retry: { baseMs: 200, maxMs: 1_000 } });
    const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await admin.connect();
    try {
      const invoice = btcInvoice();
      await insertInvoice(a.db, invoice);
      const onA = record(feedA, invoice);
      const onB = record(feedB, invoice);

      await setStatus(feedA, a.db, invoice, 'partial');
      await until('B to hear the partial change', onB.statuses, (s) => s.length === 1);
      await until('A to hear its own change', onA.statuses, (s) => s.length === 1);
      await assert.rejects(setStatus(feedA, a.db, invoice, 'confirmed', true));

      // Kill B's LISTEN connection (the one in this test's schema), then change the invoice while B reconnects.
      const schema = new URL(created.url).searchParams.get('options')!.split('=')[1]!;
      const killed = await admin.query(
        `select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1 and query like $2 and backend_start = (select max(backend_start) from pg_stat_activity where application_name = $1 and query like $2)`,
        [STATUS_FEED_APPLICATION, `%${schema}%`],
      );
      assert.equal(killed.rowCount, 1, 'one LISTEN connection (the latest opened: B) was terminated');
      await until('B to notice the lost connection', () => feedB.listening(), (up) => !up);
      await setStatus(feedA, a.db, invoice, 'confirmed');
      await until('A to hear the confirmation', onA.statuses, (s) => s.includes('confirmed'));
      await until('B to hear the confirmation after reconnecting', onB.statuses, (s) => s.includes('confirmed'), () => ({ listening: feedB.listening(), heard: onB.statuses() }));
      assert.ok(feedB.listening());
      assert.deepEqual(onA.statuses(), ['partial', 'confirmed'], 'A: once each, not the rolled-back change');
      assert.deepEqual(onB.statuses().filter((s, i, all) => s !== all[i - 1]), ['partial', 'confirmed'], 'B: the changes in order (a reconnection may repeat the current status)');

      // After the reconnection B still hears new changes live.
      const next = btcInvoice();
      await insertInvoice(a.db, next);
      const nextOnB = record(feedB, next);
      await setStatus(feedA, a.db, next, 'expired');
      await until('B to hear a change after the reconnection', nextOnB.statuses, (s) => s.length === 1);
      assert.deepEqual(nextOnB.statuses(), ['expired']);
    } finally {
      await admin.end();
      await feedA.close();
      await feedB.close();
      await a.close();
      await b.close();
      await created.drop();
    }
  });
});
