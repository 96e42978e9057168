import { test } from 'node:test';
import assert from 'node:assert/strict';
import { computeGapReport } from '../../../core/btc/gap-report.ts';
import { withBlockTimes } from '../../../core/btc/block-times.ts';
import { announcePaymentSeen, type StatusChange } from '../../../core/invoices/status-feed.ts';
import { appliedUnits, xpubInvoicesAt, type EvmInvoiceRow } from '../../../core/evm/evm-transfer.repository.ts';
import type { PaymentView } from '../../../core/btc/confirmation-rules.ts';
import { testDatabases } from '../../helpers/databases.ts';

// Lists that grow with the data, each longer than either database takes as bound parameters in one
// statement (SQLite 32,766, Postgres 65,535): every query over them must split them.
const SHARING_MERCHANTS = 40_000; // one invoice each on the shared key: 40,000 holders of it
const ONE_MERCHANTS_INVOICES = 10_000; // on the same key: 50,000 invoices on it in all
const LONG_LIST = 70_000;

/** Key K's indexes 0..49,999: merchant `big` holds the first 10,000, then one merchant per index. */
function invoiceRow(index: number) {
  const merchantId = index < ONE_MERCHANTS_INVOICES ? 'big' : `m${index}`;
  return {
    invoice_id: `inv_${index}`,
    merchant_id: merchantId,
    chain: 'btc',
    asset: 'BTC',
    network: 'regtest',
    receive_address: `bcrt1qk${index}`,
    child_index: index,
    derivation_path: null,
    key_id: 'K',
    amount_sats: 1_000,
    amount_units: null,
    memo: null,
    status: 'pending',
    tx_hash: null,
    paid_at: null,
    expires_at: 2_000,
    created_at: 1_000 + index,
    updated_at: 1_000,
  };
}

// Paid: every 7th index, except none in 30,000-30,099 (so 29,995 to 30,100 is the longest run:
// 104 unused indexes), and 49,999's payment vanished (gone), so it counts as unused.
const isPaid = (index: number) => index % 7 === 0 && (index < 30_000 || index >= 30_100);
const expectedReport = { highest_child_index: 49_999, highest_paid_child_index: 49_994, longest_unused_run: 104, wallet_gap_limit: 105 };

function paymentRow(index: number, status: string) {
  return {
    merchant_id: invoiceRow(index).merchant_id,
    invoice_id: `inv_${index}`,
    txid: index.toString(16).padStart(64, '0'),
    vout: 0,
    value_sats: 1_000,
    status,
    block_height: status === 'block' ? 10 : null,
    block_hash: null,
    first_seen_at: 1_500,
    reported: 0,
  };
}

for (const kind of testDatabases) {
  test(`50,000 invoices on one key: the gap report and every list query stay within the bound-parameter limit (${kind.name})`, { skip: kind.skip }, async () => {
    const created = await kind.create();
    const database = await created.open();
    const { db } = database;
    try {
      const indexes = Array.from({ length: SHARING_MERCHANTS + ONE_MERCHANTS_INVOICES }, (_, i) => i);
      await db.transaction().execute(async (trx) => {
        for (let i = 0; i < indexes.length; i += 1_000) await trx.insertInto('invoices').values(indexes.slice(i, i + 1_000).map(invoiceRow)).execute();
        const payments = [...indexes.filter(isPaid).map((i) => paymentRow(i, 'block')), paymentRow(49_999, 'gone')];
        for (let i = 0; i < payments.length; i += 1_000) await trx.insertInto('btc_payments').values(payments.slice(i, i + 1_000)).execute();
      });

      assert.deepEqual(await computeGapReport(db, 'K'), expectedReport);

      // The open invoices among 70,000 ids (most of them unknown) of one merchant are announced.
      const announced: StatusChange[] = [];
      const longIds = Array.from({ length: LONG_LIST }, (_, i) => `inv_${i}`);
      await db.transaction().execute((trx) => announcePaymentSeen(trx, (change) => announced.push(change), 'big', { invoiceIds: longIds }, 5_000));
      assert.equal(announced.length, ONE_MERCHANTS_INVOICES);
      const longAddresses = Array.from({ length: LONG_LIST }, (_, i) => `bcrt1qk${i}`);
      announced.length = 0;
      await db.transaction().execute((trx) => announcePaymentSeen(trx, (change) => announced.push(change), 'big', { addresses: longAddresses }, 5_000));
      assert.equal(announced.length, ONE_MERCHANTS_INVOICES);

      // An EVM block's transfers to 70,000 of one merchant's derived addresses, and the units applied
      // to as many invoices (the lookups take any chain's name; this one's invoices are found).
      const atAddresses = await xpubInvoicesAt(db, 'btc', longAddresses.map((address) => ({ merchantId: 'big', address })));
      assert.equal(atAddresses.length, ONE_MERCHANTS_INVOICES);
      const bigInvoices = longIds.map((invoice_id) => ({ ...invoiceRow(0), invoice_id }) as EvmInvoiceRow);
      assert.equal((await appliedUnits(db, bigInvoices)).size, 0);

      // Payments in 70,000 different blocks, none known: every one keeps an unknown block time.
      const views: PaymentView[] = Array.from({ length: LONG_LIST }, (_, height) => ({
        txid: 'aa'.repeat(32),
        vout: height,
        valueSats: 1n,
        status: 'block',
        blockHeight: height,
        blockTime: null,
        firstSeenAt: 0,
        reported: false,
      }));
      const timed = await withBlockTimes(db, 'regtest', 'scope', views);
      assert.equal(timed.length, LONG_LIST);
      assert.ok(timed.every((view) => view.blockTime === null));
    } finally {
      await database.close();
      await created.drop();
    }
  });
}
