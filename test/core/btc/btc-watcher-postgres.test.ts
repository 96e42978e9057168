import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startBtcWatchContext } from '../../helpers/btc-chain.ts';
import { testDatabases } from '../../helpers/databases.ts';

const postgres = testDatabases.find((d) => d.name === 'postgres')!;

// The batched settlement statements (multi-row upserts, row-value matches, CASE updates with
// RETURNING) are written once for both databases; the other watcher tests run on SQLite.
test('bitcoin watching on postgres: batch confirms each once, partial, orphan, reorg', { skip: postgres.skip }, async () => {
  const database = await postgres.create();
  const ctx = await startBtcWatchContext('esplora', { databaseUrl: database.url });
  try {
    const many: Array<{ invoice_id: string; receive_address: string }> = [];
    for (let i = 0; i < 300; i++) many.push(await ctx.createInvoice(10_000 + i));
    const partial = await ctx.createInvoice(50_000);
    const late = await ctx.createInvoice(20_000, 60);
    const dropped = await ctx.createInvoice(30_000);
    await ctx.sync();

    for (let i = 0; i < many.length; i += 10) {
      ctx.chain.pay(many.slice(i, i + 10).map((inv, j) => ({ address: inv.receive_address, value: BigInt(10_000 + i + j) })));
    }
    ctx.chain.pay([{ address: partial.receive_address, value: 20_000n }]);
    const droppedTx = ctx.chain.pay([{ address: dropped.receive_address, value: 30_000n }]);
    await ctx.sync(); // all seen in the mempool first: the block upserts rows that exist
    ctx.chain.mine(1);
    await ctx.sync();
    await ctx.sync();

    const confirmedEvents = await ctx.events('invoice.confirmed');
    const ids = new Set(many.map((inv) => inv.invoice_id));
    assert.equal(confirmedEvents.filter((e) => ids.has(e.invoice_id as string)).length, 300);
    assert.equal(new Set(confirmedEvents.map((e) => e.invoice_id)).size, confirmedEvents.length, 'each invoice confirmed once');
    const sample = await ctx.invoice(many[123].invoice_id);
    assert.equal(sample.status, 'confirmed');
    const [sampleEvent] = confirmedEvents.filter((e) => e.invoice_id === many[123].invoice_id);
    assert.equal(sample.tx_hash, sampleEvent.tx_hash, 'each invoice gets its own completing transaction');
    assert.equal((await ctx.invoice(partial.invoice_id)).status, 'partial');
    assert.equal((await ctx.invoice(dropped.invoice_id)).status, 'confirmed');

    ctx.chain.reorg(1, { drop: [droppedTx] });
    await ctx.sync();
    const [row] = await ctx.listener.database.db.selectFrom('btc_payments').selectAll().where('txid', '=', droppedTx).execute();
    assert.equal(row.status, 'gone');
    assert.equal((await ctx.invoice(dropped.invoice_id)).status, 'confirmed', 'confirmed is final');

    ctx.clock.advance(120_000);
    const lateTx = ctx.chain.pay([{ address: late.receive_address, value: 20_000n }]);
    ctx.chain.mine(1);
    await ctx.sync();
    await ctx.sync();
    const orphans = (await ctx.events('payment.orphan')).filter((e) => e.tx_hash === lateTx);
    assert.equal(orphans.length, 1);
    assert.equal((await ctx.invoice(late.invoice_id)).status, 'expired');
  } finally {
    await ctx.close();
    await database.drop();
  }
});
