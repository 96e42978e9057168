import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { CoreDatabase } from '../../../core/schema.ts';
import { createLookupPlanner, type PlannedLookup } from '../../../core/btc/lightning/lookup-planner.ts';
import { testDatabases, type CreatedDatabase } from '../../helpers/databases.ts';
import { insertRows, invoiceRow } from '../../helpers/invoice-rows.ts';

const BUDGET = 50;
const BUSY_INVOICES = 300;
const T0 = Date.UTC(2026, 11, 1);

const hashOf = (merchant: string, i: number) => `${merchant}-${String(i).padStart(4, '0')}`.padEnd(64, '0');
const flat = (plans: PlannedLookup[][]) => plans.flat();

for (const database of testDatabases) {
  describe(`Lightning lookups: merchants take turns, each one's invoices walked in turn (${database.name})`, { skip: database.skip }, () => {
    let created: CreatedDatabase;
    let db: CoreDatabase;

    before(async () => {
      created = await database.create();
      db = await created.open();
      // One busy merchant whose 300 open invoices are all newer than anyone else's (many share a millisecond),
      // five merchants with one each, and rows a lookup must never name.
      const rows = [];
      for (let i = 0; i < BUSY_INVOICES; i++) rows.push(invoiceRow('busy', `busy-${String(i).padStart(4, '0')}`, { created_at: T0 + 10_000 + Math.floor(i / 3), payment_hash: hashOf('busy', i) }));
      for (const m of ['a', 'b', 'c', 'd', 'e']) rows.push(invoiceRow(m, `${m}-0`, { created_at: T0, payment_hash: hashOf(m, 0) }));
      rows.push(invoiceRow('a', 'a-paid', { created_at: T0 + 1, payment_hash: hashOf('a', 1), status: 'confirmed' }));
      rows.push(invoiceRow('a', 'a-onchain', { created_at: T0 + 2 }));
      rows.push(invoiceRow('nowallet', 'nowallet-0', { created_at: T0, payment_hash: hashOf('nowallet', 0) }));
      await insertRows(db.db, rows);
    });
    after(async () => {
      await db?.close();
      await created?.drop();
    });

    const withWallet = (merchantId: string) => merchantId !== 'nowallet';

    test('the first pass already asks every merchant, however many invoices a newer one has open; never a closed, on-chain-only or walletless one', async () => {
      const plan = createLookupPlanner(db.db, BUDGET);
      const lookups = flat(await plan(withWallet));
      assert.ok(lookups.length <= BUDGET, `at most ${BUDGET} lookups (saw ${lookups.length})`);
      for (const m of ['a', 'b', 'c', 'd', 'e']) assert.ok(lookups.some((l) => l.paymentHash === hashOf(m, 0)), `merchant ${m}'s open invoice is looked up in the first pass`);
      assert.ok(!lookups.some((l) => l.paymentHash === hashOf('a', 1)), 'a confirmed invoice is not looked up');
      assert.ok(!lookups.some((l) => l.merchantId === 'nowallet'), 'a merchant without a wallet is not planned');
      assert.equal(new Set(lookups.map((l) => l.paymentHash)).size, lookups.length, 'no invoice twice in a pass');
      const busy = lookups.filter((l) => l.merchantId === 'busy').map((l) => l.paymentHash);
      assert.deepEqual(busy, [...busy].sort().reverse(), "the busy merchant's newest first");
      assert.equal(busy[0], hashOf('busy', BUSY_INVOICES - 1));
    });

    test("the busy merchant's every open invoice comes up within its share of passes, the walk going on where it stopped and starting again at the newest", async () => {
      const plan = createLookupPlanner(db.db, BUDGET);
      const share = Math.floor(BUDGET / 6);
      const passes = Math.ceil(BUSY_INVOICES / share) + 1;
      const walk: string[] = [];
      for (let pass = 0; pass < passes; pass++) {
        for (const lookup of flat(await plan(withWallet))) if (lookup.merchantId === 'busy') walk.push(lookup.paymentHash);
      }
      const everyOne = Array.from({ length: BUSY_INVOICES }, (_, i) => hashOf('busy', BUSY_INVOICES - 1 - i));
      assert.deepEqual(walk.slice(0, BUSY_INVOICES), everyOne, `the ${BUSY_INVOICES} open invoices, newest to oldest, each once, over ${passes - 1} passes`);
      assert.equal(walk[BUSY_INVOICES], hashOf('busy', BUSY_INVOICES - 1), 'after the oldest the walk starts again from the newest');
    });

    test('with more merchants than lookups, the merchants take turns: every one is served within a few passes', async () => {
      const rows = [];
      for (let i = 0; i < 120; i++) rows.push(invoiceRow(`many-${String(i).padStart(3, '0')}`, `many-${i}`, { created_at: T0 + 20_000 + i, payment_hash: hashOf(`many${i}`, 0) }));
      await insertRows(db.db, rows);
      const plan = createLookupPlanner(db.db, BUDGET);
      const served = new Set<string>();
      const merchantsWithOpen = 120 + 6;
      for (let pass = 0; pass < Math.ceil(merchantsWithOpen / BUDGET); pass++) {
        const lookups = flat(await plan(withWallet));
        assert.ok(lookups.length <= BUDGET);
        for (const lookup of lookups) served.add(lookup.merchantId);
      }
      assert.equal(served.size, merchantsWithOpen, 'every merchant with an open Lightning invoice was served once in three passes of 50');
    });
  });
}
