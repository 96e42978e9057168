import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sourceKinds, startBtcWatchContext, type BtcWatchContext } from '../../helpers/btc-chain.ts';

for (const kind of sourceKinds) {
  describe(`bitcoin watching through ${kind}`, () => {
    let ctx: BtcWatchContext;
    before(async () => {
      ctx = await startBtcWatchContext(kind);
    });
    after(() => ctx.close());

    const tiers = [
      { amount: 99_999, required: 1 },
      { amount: 999_999, required: 3 },
      { amount: 1_000_000, required: 6 },
    ];
    for (const { amount, required } of tiers) {
      test(`${amount} sats: seen in mempool, confirmed at exactly ${required} confirmation(s)`, async () => {
        const invoice = await ctx.createInvoice(amount);
        await ctx.sync();
        const txid = ctx.chain.pay([{ address: invoice.receive_address, value: BigInt(amount) }]);
        await ctx.sync();
        const seen = await ctx.listener.database.db.selectFrom('btc_payments').selectAll().where('txid', '=', txid).execute();
        assert.deepEqual(seen.map((r) => [r.invoice_id, r.status, Number(r.value_sats)]), [[invoice.invoice_id, 'mempool', amount]]);
        for (let confirmations = 1; confirmations < required; confirmations++) {
          ctx.chain.mine(1);
          await ctx.sync();
          assert.equal((await ctx.invoice(invoice.invoice_id)).status, 'pending', `after ${confirmations} confirmation(s)`);
        }
        ctx.chain.mine(1);
        await ctx.sync();
        const confirmed = await ctx.invoice(invoice.invoice_id);
        assert.equal(confirmed.status, 'confirmed');
        assert.equal(confirmed.tx_hash, txid);
        assert.equal(confirmed.paid_at, new Date(ctx.clock.now()).toISOString());
        const events = (await ctx.events('invoice.confirmed')).filter((e) => e.invoice_id === invoice.invoice_id);
        assert.equal(events.length, 1);
        assert.equal(events[0].tx_hash, txid);
        assert.equal(events[0].confirmations, required);
        assert.equal(events[0].address, invoice.receive_address);
        // How it was verified: Bitcoin Core is the merchant's own node; an Esplora API's blocks are checked against the verified header chain.
        const verification = kind === 'bitcoin-core' ? 'own-node' : 'proof-of-work';
        assert.equal(confirmed.verification, verification);
        assert.equal(events[0].verification, verification);
      });
    }

    test('two partial payments summing to the amount: partial, then confirmed by the second', async () => {
      const invoice = await ctx.createInvoice(50_000);
      await ctx.sync();
      ctx.chain.pay([{ address: invoice.receive_address, value: 30_000n }]);
      ctx.chain.mine(1);
      await ctx.sync();
      assert.equal((await ctx.invoice(invoice.invoice_id)).status, 'partial');
      const second = ctx.chain.pay([{ address: invoice.receive_address, value: 20_000n }]);
      await ctx.sync();
      assert.equal((await ctx.invoice(invoice.invoice_id)).status, 'pending', 'covered, waiting for its confirmation');
      ctx.chain.mine(1);
      await ctx.sync();
      const confirmed = await ctx.invoice(invoice.invoice_id);
      assert.equal(confirmed.status, 'confirmed');
      assert.equal(confirmed.tx_hash, second);
    });

    test('overpayment confirms and is recorded in full', async () => {
      const invoice = await ctx.createInvoice(40_000);
      await ctx.sync();
      const txid = ctx.chain.pay([{ address: invoice.receive_address, value: 65_000n }]);
      ctx.chain.mine(1);
      await ctx.sync();
      assert.equal((await ctx.invoice(invoice.invoice_id)).status, 'confirmed');
      const rows = await ctx.listener.database.db.selectFrom('btc_payments').selectAll().where('invoice_id', '=', invoice.invoice_id).execute();
      assert.deepEqual(rows.map((r) => [r.txid, Number(r.value_sats)]), [[txid, 65_000]]);
      const [event] = (await ctx.events('invoice.confirmed')).filter((e) => e.invoice_id === invoice.invoice_id);
      assert.equal(event.amount, '0.00040000');
    });

    test('a payment seen before expiry confirms after it; one first seen after expiry is an orphan', async () => {
      const onTime = await ctx.createInvoice(500_000, 60);
      const late = await ctx.createInvoice(20_000, 60);
      await ctx.sync();
      ctx.chain.pay([{ address: onTime.receive_address, value: 500_000n }]);
      await ctx.sync();
      ctx.clock.advance(120_000);
      assert.equal((await ctx.invoice(onTime.invoice_id)).status, 'pending', 'paid in time: not expired while confirming');
      assert.equal((await ctx.invoice(late.invoice_id)).status, 'expired');
      const lateTx = ctx.chain.pay([{ address: late.receive_address, value: 20_000n }]);
      ctx.chain.mine(3);
      await ctx.sync();
      assert.equal((await ctx.invoice(onTime.invoice_id)).status, 'confirmed');
      assert.equal((await ctx.invoice(late.invoice_id)).status, 'expired');
      await ctx.sync();
      const orphans = (await ctx.events('payment.orphan')).filter((e) => e.tx_hash === lateTx);
      assert.equal(orphans.length, 1, 'reported once, even after another pass');
      assert.equal(orphans[0].address, late.receive_address);
      assert.equal(orphans[0].value, '0.00020000');
    });

    test('a payment made while the listener is stopped is found after restart', async () => {
      const invoice = await ctx.createInvoice(70_000);
      await ctx.sync();
      await ctx.listener.stop();
      const txid = ctx.chain.pay([{ address: invoice.receive_address, value: 70_000n }]);
      ctx.chain.mine(4);
      await ctx.restart();
      await ctx.sync();
      const found = await ctx.invoice(invoice.invoice_id);
      assert.equal(found.status, 'confirmed');
      assert.equal(found.tx_hash, txid);
      const health = await (await fetch(`${ctx.listener.url}/health`)).json();
      assert.equal(health.last_block_height, ctx.chain.tip.height);
    });

    test('a reorg that removes an unconfirmed payment leaves the invoice unpaid', async () => {
      const invoice = await ctx.createInvoice(500_000);
      await ctx.sync();
      const txid = ctx.chain.pay([{ address: invoice.receive_address, value: 500_000n }]);
      ctx.chain.mine(1);
      await ctx.sync();
      ctx.chain.reorg(1, { drop: [txid] });
      ctx.chain.mine(5);
      await ctx.sync();
      const after = await ctx.invoice(invoice.invoice_id);
      assert.equal(after.status, 'pending');
      assert.equal(after.tx_hash, null);
      const [row] = await ctx.listener.database.db.selectFrom('btc_payments').selectAll().where('txid', '=', txid).execute();
      assert.equal(row.status, 'gone');
      assert.equal(row.block_hash, null);
      assert.equal((await ctx.events('invoice.confirmed')).filter((e) => e.invoice_id === invoice.invoice_id).length, 0);
    });

    test('a reorg that replaces a block recounts confirmations from the new chain', async () => {
      const invoice = await ctx.createInvoice(500_000);
      await ctx.sync();
      const txid = ctx.chain.pay([{ address: invoice.receive_address, value: 500_000n }]);
      ctx.chain.mine(2);
      await ctx.sync();
      // Both blocks are replaced by two empty ones: the payment is back in the mempool.
      ctx.chain.reorg(2, { blocks: 2, includeMempool: false });
      await ctx.sync();
      let [row] = await ctx.listener.database.db.selectFrom('btc_payments').selectAll().where('txid', '=', txid).execute();
      assert.equal(row.status, 'mempool');
      const [block] = ctx.chain.mine(1);
      ctx.chain.mine(1);
      await ctx.sync();
      assert.equal((await ctx.invoice(invoice.invoice_id)).status, 'pending', 'two confirmations on the new chain');
      ctx.chain.mine(1);
      await ctx.sync();
      assert.equal((await ctx.invoice(invoice.invoice_id)).status, 'confirmed');
      [row] = await ctx.listener.database.db.selectFrom('btc_payments').selectAll().where('txid', '=', txid).execute();
      assert.equal(row.block_hash, block.hash);
      const [event] = (await ctx.events('invoice.confirmed')).filter((e) => e.invoice_id === invoice.invoice_id);
      assert.equal(event.confirmations, 3);
    });

    test('1,000 open invoices paid in one block all confirm, each exactly once', async () => {
      const invoices = [];
      for (let i = 0; i < 1_000; i++) invoices.push(await ctx.createInvoice(10_000 + i));
      await ctx.sync();
      for (let i = 0; i < invoices.length; i += 10) {
        ctx.chain.pay(invoices.slice(i, i + 10).map((inv, j) => ({ address: inv.receive_address, value: BigInt(10_000 + i + j) })));
      }
      ctx.chain.mine(1);
      await ctx.sync();
      ctx.chain.mine(1);
      await ctx.sync();
      const ids = new Set(invoices.map((inv) => inv.invoice_id));
      const events = (await ctx.events('invoice.confirmed')).filter((e) => ids.has(e.invoice_id as string));
      assert.equal(events.length, 1_000);
      assert.equal(new Set(events.map((e) => e.invoice_id)).size, 1_000);
      const statuses = await ctx.listener.database.db
        .selectFrom('invoices')
        .select(['status'])
        .where('invoice_id', 'in', [...ids])
        .execute();
      assert.ok(statuses.every((s) => s.status === 'confirmed'));
    });
  });
}
