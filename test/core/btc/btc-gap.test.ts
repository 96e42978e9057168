import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import { computeGapReport } from '../../../core/btc/gap-report.ts';
import type { CoreTables } from '../../../core/schema.ts';
import { createLogger } from '../../../core/log.ts';
import { REGTEST_TPUB, startBtcWatchContext, type BtcWatchContext } from '../../helpers/btc-chain.ts';
import { testDatabases } from '../../helpers/databases.ts';
import { runCli } from '../../helpers/process.ts';

/**
 * The gap limit a wallet needs, found the way a wallet scans: from index 0 it derives addresses up
 * to lastUsed + G and stops; the smallest G that reaches every allocated index is the answer.
 */
function gapLimitByScanning(highest: number, used: Set<number>): number {
  for (let limit = 1; ; limit++) {
    let lastUsed = -1;
    let reached = -1;
    for (let i = 0; i <= lastUsed + limit && i <= highest; i++) {
      reached = i;
      if (used.has(i)) lastUsed = i;
    }
    if (reached === highest) return limit;
  }
}

const GAP_WARNING = 'btc address gap exceeds the usual wallet gap limit of 20: the merchant wallet may not show every payment';

describe('bitcoin address gap on the local chain', () => {
  let ctx: BtcWatchContext;
  const logLines: Array<Record<string, unknown>> = [];
  const warnings = () => logLines.filter((l) => l.msg === GAP_WARNING);
  const gapOfHealth = async () => (await (await fetch(`${ctx.listener.url}/health`)).json()).btc_gap;
  const addresses: string[] = [];
  const createInvoices = async (n: number) => {
    for (let i = 0; i < n; i++) addresses.push((await ctx.createInvoice(10_000)).receive_address);
  };
  const cliEnv = () => ({ DATABASE_URL: ctx.databaseUrl, MERCHANT_BTC_XPUB: REGTEST_TPUB, BTC_NETWORK: 'regtest' });

  before(async () => {
    const logger = createLogger({ write: (line) => logLines.push(JSON.parse(line)) });
    ctx = await startBtcWatchContext('esplora', { logger });
  });
  after(() => ctx.close());

  test('health reports the highest paid index, the longest unused run and the wallet gap limit as payments arrive', async () => {
    await createInvoices(5); // child indexes 0..4
    await ctx.sync();
    assert.deepEqual(await gapOfHealth(), { highest_child_index: 4, highest_paid_child_index: null, longest_unused_run: 4, wallet_gap_limit: 5 });

    ctx.chain.pay([
      { address: addresses[1], value: 10_000n },
      { address: addresses[3], value: 10_000n },
    ]);
    await ctx.sync();
    // Seen in the mempool already counts: the wallet shows it too. Runs: {0}, {2}, none after 3 below 4.
    assert.deepEqual(await gapOfHealth(), { highest_child_index: 4, highest_paid_child_index: 3, longest_unused_run: 1, wallet_gap_limit: 2 });
    ctx.chain.mine(1);
    await ctx.sync();
    assert.deepEqual(await gapOfHealth(), { highest_child_index: 4, highest_paid_child_index: 3, longest_unused_run: 1, wallet_gap_limit: 2 });
    assert.equal(gapLimitByScanning(4, new Set([1, 3])), 2);
  });

  test('a warning is logged once the gap limit needed passes 20, and not again on every pass', async () => {
    await createInvoices(19); // up to index 23: indexes 4..22 unused below it, a run of 19
    await ctx.sync();
    assert.deepEqual(await gapOfHealth(), { highest_child_index: 23, highest_paid_child_index: 3, longest_unused_run: 19, wallet_gap_limit: 20 });
    assert.equal(warnings().length, 0, 'a run of 19 is within the usual gap limit of 20');

    await createInvoices(1); // index 24: a run of 20 unused (4..23) before it
    await ctx.sync();
    const gap = await gapOfHealth();
    assert.deepEqual(gap, { highest_child_index: 24, highest_paid_child_index: 3, longest_unused_run: 20, wallet_gap_limit: 21 });
    assert.equal(gapLimitByScanning(24, new Set([1, 3])), 21);
    assert.equal(warnings().length, 1);
    assert.equal(warnings()[0].level, 'warn');
    assert.equal(warnings()[0].wallet_gap_limit, 21);
    assert.equal(warnings()[0].longest_unused_run, 20);
    assert.equal(warnings()[0].highest_paid_child_index, 3);

    await ctx.sync();
    ctx.chain.pay([{ address: addresses[24], value: 10_000n }]);
    ctx.chain.mine(1);
    await ctx.sync();
    // Index 24 paid: the same run of 20 now lies between paid indexes 3 and 24.
    assert.deepEqual(await gapOfHealth(), { highest_child_index: 24, highest_paid_child_index: 24, longest_unused_run: 20, wallet_gap_limit: 21 });
    assert.equal(warnings().length, 1, 'unchanged gap: no repeated warning');
  });

  test('a payment removed by a reorg makes its address unused again', async () => {
    const txid = ctx.chain.pay([{ address: addresses[12], value: 10_000n }]);
    ctx.chain.mine(1);
    await ctx.sync();
    // Paid 1, 3, 12, 24: runs 0, 2, 4..11 (8), 13..23 (11).
    assert.deepEqual(await gapOfHealth(), { highest_child_index: 24, highest_paid_child_index: 24, longest_unused_run: 11, wallet_gap_limit: 12 });
    ctx.chain.reorg(1, { drop: [txid] });
    await ctx.sync();
    assert.deepEqual(await gapOfHealth(), { highest_child_index: 24, highest_paid_child_index: 24, longest_unused_run: 20, wallet_gap_limit: 21 });
    assert.equal(warnings().length, 2, 'passing 20 again is warned again');
  });

  test('service gap prints the same report from the database, readably and as JSON', async () => {
    const expected = await gapOfHealth();
    const cwd = mkdtempSync(join(tmpdir(), 'gap-'));
    const json = await runCli(['gap', '--json'], { env: cliEnv(), cwd });
    assert.equal(json.code, 0, json.stderr);
    assert.deepEqual(JSON.parse(json.stdout), expected);

    const readable = await runCli(['gap'], { env: cliEnv(), cwd });
    assert.equal(readable.code, 0, readable.stderr);
    assert.match(readable.stdout, /^highest child index handed out\s+24$/m);
    assert.match(readable.stdout, /^highest paid child index\s+24$/m);
    assert.match(readable.stdout, /^longest run of unused addresses\s+20$/m);
    assert.match(readable.stdout, /^wallet gap limit needed\s+21$/m);
    assert.match(readable.stdout, /at least 21/);

    const fromListener = await runCli(['gap', '--json', '--url', ctx.listener.url], { cwd });
    assert.equal(fromListener.code, 0, fromListener.stderr);
    assert.deepEqual(JSON.parse(fromListener.stdout), expected);

    const help = await runCli(['gap', '--help'], { cwd });
    assert.equal(help.code, 0);
    assert.match(help.stdout, /^Usage: service gap/);

    const noKey = await runCli(['gap'], { env: { DATABASE_URL: ctx.databaseUrl }, cwd });
    assert.equal(noKey.code, 1);
    assert.match(noKey.stderr, /Bitcoin is not configured/);
  });
});

for (const database of testDatabases) {
  test(`gap report on ${database.name} matches a wallet scan of the key, across the merchants sharing it`, { skip: database.skip }, async () => {
    const created = await database.create();
    const opened = await created.open();
    try {
      const db: Kysely<CoreTables> = opened.db;
      // A fixed pseudo-random pattern: which indexes are paid, and whether a payment vanished.
      let seed = 7;
      const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
      const highest = 300;
      const used = new Set<number>();
      const invoiceRows = [];
      const paymentRows = [];
      const row = (merchant: string, key: string, index: number) => ({
        invoice_id: `inv_${merchant}_${key}_${index}`,
        merchant_id: merchant,
        chain: 'btc',
        asset: 'BTC',
        network: 'regtest',
        receive_address: `addr_${merchant}_${key}_${index}`,
        child_index: index,
        derivation_path: null,
        key_id: key,
        amount_sats: 1_000,
        amount_units: null,
        memo: null,
        status: 'pending',
        tx_hash: null,
        paid_at: null,
        expires_at: 1,
        created_at: 1,
        updated_at: 1,
        address_duplicate_of: null, order_id: null, metadata: null, redirect_url: null, price_amount: null, price_currency: null, rate: null, rate_sources: null, rate_at: null,
      });
      const payment = (invoice: { invoice_id: string; merchant_id: string }, status: string, n: number) => ({
        merchant_id: invoice.merchant_id,
        invoice_id: invoice.invoice_id,
        txid: `${invoice.invoice_id}_${n}`.padEnd(64, '0'),
        vout: 0,
        value_sats: 1_000,
        status,
        block_height: null,
        block_hash: null,
        first_seen_at: 1,
        reported: 0,
      });
      for (let i = 0; i <= highest; i++) {
        // Two merchants registered key_a: they share its sequence, so each holds every other stretch of it.
        const invoice = row(i % 3 === 0 ? 'm2' : 'm1', 'key_a', i);
        invoiceRows.push(invoice);
        const r = random();
        // Long stretches without payments, so runs well past 20 occur.
        if (i > 40 && i < 90) continue;
        if (r < 0.25) {
          paymentRows.push(payment(invoice, r < 0.12 ? 'block' : 'mempool', 0));
          used.add(i);
        } else if (r < 0.3) {
          paymentRows.push(payment(invoice, 'gone', 0));
        }
      }
      // Another key of the same merchant, and another merchant's key, have payments on every index: they must not count.
      for (let i = 0; i <= highest + 50; i++) {
        for (const [merchant, key] of [['m3', 'key_c'], ['m1', 'key_b']]) {
          const invoice = row(merchant, key, i);
          invoiceRows.push(invoice);
          paymentRows.push(payment(invoice, 'block', 0));
        }
      }
      for (let i = 0; i < invoiceRows.length; i += 200) await db.insertInto('invoices').values(invoiceRows.slice(i, i + 200)).execute();
      for (let i = 0; i < paymentRows.length; i += 200) await db.insertInto('btc_payments').values(paymentRows.slice(i, i + 200)).execute();

      const report = await computeGapReport(db, 'key_a');
      const expectedLimit = gapLimitByScanning(highest, used);
      assert.ok(expectedLimit > 50, `the pattern has a long run (${expectedLimit})`);
      assert.deepEqual(report, {
        highest_child_index: highest,
        highest_paid_child_index: Math.max(...used),
        longest_unused_run: expectedLimit - 1,
        wallet_gap_limit: expectedLimit,
      });
      assert.deepEqual(await computeGapReport(db, 'key_none'), {
        highest_child_index: null,
        highest_paid_child_index: null,
        longest_unused_run: 0,
        wallet_gap_limit: 1,
      });
    } finally {
      await opened.close();
      await created.drop();
    }
  });
}
