import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import * as bitcoin from 'bitcoinjs-lib';
import { sql } from 'kysely';
import { createWatchIndex, matchOutputs, type IndexRow } from '../../../core/btc/watch-index.ts';
import { testDatabases } from '../../helpers/databases.ts';

const network = bitcoin.networks.regtest;

function rows(count: number, firstCreatedAt: number, spacingMs: number): Array<IndexRow & { script: string }> {
  return Array.from({ length: count }, (_, i) => {
    const payment = bitcoin.payments.p2wpkh({ hash: randomBytes(20), network });
    return {
      merchant_id: `m${i % 3}`,
      invoice_id: `inv_${firstCreatedAt}_${i}`,
      receive_address: payment.address!,
      network: 'regtest',
      key_id: `key${i % 3}`,
      created_at: firstCreatedAt + i * spacingMs,
      script: Buffer.from(payment.output!).toString('hex'),
    };
  });
}

test('the watch index finds every invoice by its output script and reports only new invoices, across the re-read window', () => {
  const index = createWatchIndex({ rereadWindowMs: 120_000 });
  // 5,000 invoices one second apart: loaded in pages as the watcher does at start.
  const all = rows(5_000, 1_000_000, 1_000);
  for (let i = 0; i < all.length; i += 1_000) assert.equal(index.add(all.slice(i, i + 1_000)).length, 1_000);
  assert.equal(index.size, 5_000);
  assert.equal(index.newestCreatedAt, all.at(-1)!.created_at);
  for (const row of [all[0], all[2_500], all.at(-1)!]) {
    assert.deepEqual(index.invoiceOf(row.script), { merchantId: row.merchant_id, invoiceId: row.invoice_id, keyId: row.key_id });
  }
  // The watcher's refresh reads the last two minutes again: nothing there is new.
  const window = all.filter((row) => row.created_at >= index.newestCreatedAt - 120_000);
  assert.deepEqual(index.add(window), []);
  // An invoice committed late inside the window is new, once.
  const late = rows(1, index.newestCreatedAt - 60_000, 0);
  assert.deepEqual(index.add([...window, ...late]), ['key0']);
  assert.deepEqual(index.add([...window, ...late]), []);
  assert.equal(index.size, 5_001);
  assert.deepEqual(index.keyIds(), new Set(['key0', 'key1', 'key2']));
  // A block output paying the late invoice is matched to it and its merchant.
  const found = matchOutputs(index, [{ txid: 'a'.repeat(64), outputs: [{ script: '0014' + '00'.repeat(20), value: 1n }, { script: late[0].script, value: 5_000n }] }]);
  assert.deepEqual(found, [{ merchantId: 'm0', invoiceId: late[0].invoice_id, keyId: 'key0', txid: 'a'.repeat(64), vout: 1, valueSats: 5_000n }]);
});

test('an unreadable address is left out for its merchant alone', () => {
  const index = createWatchIndex({ rereadWindowMs: 120_000 });
  const [good] = rows(1, 1_000, 0);
  const bad = { ...good, invoice_id: 'inv_bad', merchant_id: 'other', receive_address: 'not-an-address' };
  assert.deepEqual(index.add([good, bad]), ['key0']);
  assert.equal(index.size, 1);
  assert.match(index.refusedMerchants().get('other')!, /inv_bad/);
  assert.equal(index.refusedMerchants().has(good.merchant_id), false);
});

test("the watch-set refresh (a network's invoices created lately, oldest first) reads the (chain, created_at) index, not every invoice (SQLite plan)", async () => {
  const created = await testDatabases[0].create();
  const database = await created.open();
  try {
    const plan = await sql<{ detail: string }>`
      explain query plan select merchant_id, invoice_id, receive_address, network, key_id, created_at from invoices
      where chain = 'btc' and network in ('regtest') and created_at >= ${1_000} order by created_at, invoice_id limit 5000`.execute(database.db);
    const details = plan.rows.map((row) => row.detail).join('\n');
    assert.match(details, /USING INDEX invoices_chain_created \(chain=\? AND created_at>\?\)/);
    assert.doesNotMatch(details, /TEMP B-TREE FOR ORDER BY/, 'no sort of every invoice of the chain');
  } finally {
    await database.close();
  }
});
