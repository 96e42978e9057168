import { test } from 'node:test';
import assert from 'node:assert/strict';
import { computeGapReport, computeGapReports } from '../../../core/btc/gap-report.ts';
import { testDatabases } from '../../helpers/databases.ts';

// Known answers worked out by hand, the way a wallet scans from index 0:
// key A, shared by merchants m1 (indexes 0-4) and m2 (indexes 5-9); paid: 1 (m1) and 6 (m2), and 8 (m2) whose payment vanished.
//   used {1, 6}: runs 0 | 2-5 (4) | 7-9 (3 trailing) → longest 4, gap limit 5.
// key B, one merchant m3 (indexes 0-2), nothing paid → trailing run 0-1 below the highest (2): 2, gap limit 3.
// key C: no invoices.
const expected = {
  A: { highest_child_index: 9, highest_paid_child_index: 6, longest_unused_run: 4, wallet_gap_limit: 5 },
  B: { highest_child_index: 2, highest_paid_child_index: null, longest_unused_run: 2, wallet_gap_limit: 3 },
  C: { highest_child_index: null, highest_paid_child_index: null, longest_unused_run: 0, wallet_gap_limit: 1 },
};

for (const kind of testDatabases) {
  test(`gap reports of many keys in one go match each key's own (${kind.name})`, { skip: kind.skip }, async () => {
    const created = await kind.create();
    const database = await created.open();
    try {
      const invoice = (merchantId: string, keyId: string, index: number) => ({
        invoice_id: `inv_${keyId}_${index}`,
        merchant_id: merchantId,
        chain: 'btc',
        asset: 'BTC',
        network: 'regtest',
        receive_address: `bcrt1q${keyId.toLowerCase()}${index}`,
        child_index: index,
        derivation_path: null,
        key_id: keyId,
        amount_sats: 1_000,
        amount_units: null,
        memo: null,
        status: 'pending',
        tx_hash: null,
        paid_at: null,
        expires_at: 2_000,
        created_at: 1_000 + index,
        updated_at: 1_000,
      });
      const rows = [
        ...[0, 1, 2, 3, 4].map((i) => invoice('m1', 'A', i)),
        ...[5, 6, 7, 8, 9].map((i) => invoice('m2', 'A', i)),
        ...[0, 1, 2].map((i) => invoice('m3', 'B', i)),
      ];
      await database.db.insertInto('invoices').values(rows).execute();
      const payment = (merchantId: string, index: number, status: string) => ({
        merchant_id: merchantId,
        invoice_id: `inv_A_${index}`,
        txid: String(index).repeat(64).slice(0, 64),
        vout: 0,
        value_sats: 1_000,
        status,
        block_height: status === 'block' ? 10 : null,
        block_hash: null,
        first_seen_at: 1_500,
        reported: 0,
      });
      await database.db.insertInto('btc_payments').values([payment('m1', 1, 'block'), payment('m2', 6, 'mempool'), payment('m2', 8, 'gone')]).execute();

      const reports = await computeGapReports(database.db, ['A', 'B', 'C', 'A']);
      assert.deepEqual(Object.fromEntries(reports), expected);
      for (const key of ['A', 'B', 'C'] as const) assert.deepEqual(await computeGapReport(database.db, key), expected[key]);
      // More keys than are sought one by one: every key's index entries are read once, same answers.
      const many = ['A', 'B', 'C', ...Array.from({ length: 2_500 }, (_, i) => `absent_${i}`)];
      const all = await computeGapReports(database.db, many);
      assert.equal(all.size, many.length);
      assert.deepEqual({ A: all.get('A'), B: all.get('B'), C: all.get('C') }, expected);
      assert.deepEqual(all.get('absent_7'), expected.C);
    } finally {
      await database.close();
      await created.drop();
    }
  });
}
