import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sourceKinds, startBtcWatchContext, type BtcWatchContext } from '../../helpers/btc-chain.ts';
import { MINED_GRACE_MS } from '../../../core/btc/confirmation-rules.ts';

// Expiry rests on the block, not the sighting: a payment first seen before expiry counts only if
// it is mined within the grace after it (by its block's header time on the verified chain).

const HOUR = 60 * 60 * 1000;

for (const kind of sourceKinds) {
  describe(`expiry grace through ${kind}`, () => {
    let ctx: BtcWatchContext;
    before(async () => {
      ctx = await startBtcWatchContext(kind);
    });
    after(() => ctx.close());

    const orphansOf = async (txid: string) => (await ctx.events('payment.orphan')).filter((e) => e.tx_hash === txid);

    test('seen before expiry, mined after the grace: the invoice expires and the payment is an orphan', async () => {
      const invoice = await ctx.createInvoice(20_000, 60);
      await ctx.sync();
      const txid = ctx.chain.pay([{ address: invoice.receive_address, value: 20_000n }]);
      await ctx.sync();
      ctx.clock.advance(120_000);
      assert.equal((await ctx.invoice(invoice.invoice_id)).status, 'pending', 'seen in time: held while the grace lasts');
      ctx.clock.advance(MINED_GRACE_MS);
      ctx.chain.mine(1);
      await ctx.sync();
      await ctx.sync();
      assert.equal((await ctx.invoice(invoice.invoice_id)).status, 'expired');
      assert.deepEqual(await ctx.events('invoice.confirmed').then((all) => all.filter((e) => e.invoice_id === invoice.invoice_id)), []);
      const orphans = await orphansOf(txid);
      assert.equal(orphans.length, 1, 'the late payment is reported once, as any late payment');
      assert.equal(orphans[0].value, '0.00020000');
    });

    test('seen before expiry, mined within the grace: confirms, even when its confirmations complete after the grace', async () => {
      const invoice = await ctx.createInvoice(500_000, 60);
      await ctx.sync();
      const txid = ctx.chain.pay([{ address: invoice.receive_address, value: 500_000n }]);
      await ctx.sync();
      ctx.clock.advance(12 * HOUR);
      ctx.chain.mine(1);
      await ctx.sync();
      assert.equal((await ctx.invoice(invoice.invoice_id)).status, 'pending');
      ctx.clock.advance(13 * HOUR);
      assert.equal((await ctx.invoice(invoice.invoice_id)).status, 'pending', 'mined within the grace: still held past it');
      ctx.chain.mine(2);
      await ctx.sync();
      const confirmed = await ctx.invoice(invoice.invoice_id);
      assert.equal(confirmed.status, 'confirmed');
      assert.equal(confirmed.tx_hash, txid);
      assert.deepEqual(await orphansOf(txid), []);
    });

    test('a sighting that never confirms: the invoice expires once the grace is past, on read and by the watcher', async () => {
      const read = await ctx.createInvoice(20_000, 60);
      const watched = await ctx.createInvoice(20_000, 60);
      await ctx.sync();
      ctx.chain.pay([{ address: read.receive_address, value: 20_000n }]);
      ctx.chain.pay([{ address: watched.receive_address, value: 20_000n }]);
      await ctx.sync();
      ctx.clock.advance(MINED_GRACE_MS - 1_000);
      ctx.chain.mine(1, false);
      await ctx.sync();
      assert.equal((await ctx.invoice(read.invoice_id)).status, 'pending', 'within the grace the sighting holds');
      assert.equal((await ctx.invoice(watched.invoice_id)).status, 'pending');
      ctx.clock.advance(70_000);
      assert.equal((await ctx.invoice(read.invoice_id)).status, 'expired', 'the lazy expiry on read');
      ctx.chain.mine(1, false);
      await ctx.sync();
      const db = ctx.listener.database.db;
      const row = await db.selectFrom('invoices').select('status').where('invoice_id', '=', watched.invoice_id).executeTakeFirstOrThrow();
      assert.equal(row.status, 'expired', 'the watcher (or the sweeper) expires it without a read');
    });
  });
}
