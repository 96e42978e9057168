import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import * as bitcoin from 'bitcoinjs-lib';
import { sql } from 'kysely';
import { createWatchIndex, matchOutputs, type IndexRow } from '../../../core/btc/watch-index.ts';
import { refreshFrom } from '../../../core/btc/watcher.ts';
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

test('the watch-set refresh reads the window before the newest invoice while invoices come, and only from the newest once they stopped', () => {
  const W = 120_000;
  const newest = 5_000_000;
  assert.equal(refreshFrom(-1, null, W), -1, 'the first refresh reads every invoice');
  assert.equal(refreshFrom(newest, null, W), newest - W);
  assert.equal(refreshFrom(newest, newest - 10_000, W), newest - W, 'invoices coming: the last refresh began before the newest was stamped');
  assert.equal(refreshFrom(newest, newest + 60_000, W), newest - 60_000, 'one minute at rest: what was invisible a minute ago was stamped after it minus the window');
  assert.equal(refreshFrom(newest, newest + 300_000, W), newest, 'at rest past the window: from the newest on (invoices stamped at the same millisecond)');
});

test('every invoice that commits within the window of its stamp is read, whatever the order of commits and the pauses between them (model of the refresh)', () => {
  const W = 120_000;
  let seed = 7;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  for (let run = 0; run < 50; run++) {
    // Invoices stamped in bursts separated by pauses of up to ten minutes; each commits up to the window after its stamp.
    const invoices: Array<{ stamp: number; commit: number; read: boolean }> = [];
    let at = 1_000_000;
    for (let burst = 0; burst < 6; burst++) {
      for (let i = 0; i < 40; i++) {
        at += Math.floor(random() * 2_000);
        invoices.push({ stamp: at, commit: at + Math.floor(random() ** 4 * W), read: false });
      }
      at += Math.floor(random() * 600_000);
    }
    const end = Math.max(...invoices.map((invoice) => invoice.commit)) + 10_000;
    let newest = -1;
    let refreshedAt: number | null = null;
    for (let now = 1_000_000; now <= end; now += 10_000) {
      const from = refreshFrom(newest, refreshedAt, W);
      for (const invoice of invoices) {
        if (invoice.commit <= now && invoice.stamp >= from) {
          invoice.read = true;
          newest = Math.max(newest, invoice.stamp);
        }
      }
      refreshedAt = now;
    }
    const missed = invoices.filter((invoice) => !invoice.read);
    assert.deepEqual(missed, [], `run ${run}: invoices never read`);
  }
});
