import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KyselyPlugin } from 'kysely';
import { withBlockTimesEach } from '../../../core/btc/block-times.ts';
import type { PaymentView } from '../../../core/btc/confirmation-rules.ts';
import { testDatabases, withFreshDatabase } from '../../helpers/databases.ts';

const SCOPE = 'watch:btc:regtest';
const LISTS = 1_000;

const payment = (vout: number, status: PaymentView['status'], blockHeight: number | null): PaymentView => ({
  txid: 'ab'.repeat(32),
  vout,
  valueSats: 1_000n,
  status,
  blockHeight,
  blockTime: null,
  firstSeenAt: 0,
  reported: false,
});

for (const kind of testDatabases) {
  test(`block times of 1,000 invoices' payments are read in one go, each list given back in its order (${kind.name})`, { skip: kind.skip }, async () => {
    await withFreshDatabase(kind, async (db) => {
      await db
        .insertInto('btc_blocks')
        .values([
          { merchant_id: SCOPE, height: 5, hash: '05'.repeat(32), processed_at: 5_000 },
          { merchant_id: SCOPE, height: 6, hash: '06'.repeat(32), processed_at: 6_000 },
        ])
        .execute();
      // As a block paying 1,000 invoices leaves them: most in block 5; one with a payment in 6 and
      // one in the mempool; one with a payment in a block neither stored nor processed; one with none.
      const lists = Array.from({ length: LISTS }, (_, i) => [payment(i, 'block', 5)]);
      lists[1] = [payment(1, 'block', 6), payment(1_001, 'mempool', null)];
      lists[2] = [payment(2, 'block', 7)];
      lists[3] = [];
      let statements = 0;
      const counter: KyselyPlugin = {
        transformQuery: (args) => {
          statements++;
          return args.node;
        },
        transformResult: async (args) => args.result,
      };

      const timed = await withBlockTimesEach(db.withPlugin(counter), 'regtest', SCOPE, lists);

      assert.deepEqual(
        timed.map((list) => list.map((p) => p.vout)),
        lists.map((list) => list.map((p) => p.vout)),
      );
      assert.deepEqual(timed[0].map((p) => p.blockTime), [5_000]);
      assert.deepEqual(timed[1].map((p) => p.blockTime), [6_000, null]);
      assert.deepEqual(timed[2].map((p) => p.blockTime), [null]);
      assert.deepEqual(timed[3], []);
      assert.ok(timed.slice(4).every((list) => list[0].blockTime === 5_000));
      // The headers, then the processed blocks: not two statements per invoice.
      assert.equal(statements, 2);
    });
  });
}
