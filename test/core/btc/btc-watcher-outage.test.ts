import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sourceKinds, startBtcWatchContext } from '../../helpers/btc-chain.ts';
import { waitForWatcher } from '../../helpers/wait-for-watcher.ts';

for (const kind of sourceKinds) {
  test(`${kind} source down for a while, then back: retried, shown in /health, payment confirmed`, async () => {
    const ctx = await startBtcWatchContext(kind, { pollIntervalMs: 50 });
    try {
      const health = async () => (await fetch(`${ctx.listener.url}/health`)).json();
      // On timeout: the listener's /health, with the Bitcoin watcher's step, progress and error.
      const waitFor = <T>(what: string, read: () => Promise<T>, done: (value: T) => boolean) =>
        waitForWatcher(what, read, done, { watcher: health, timeoutMs: 10_000 });
      const invoice = await ctx.createInvoice(30_000);
      await waitFor('the invoice to be watched', health, (h) => h.subscribed_count === 1);

      ctx.server.setDown(true);
      const txid = ctx.chain.pay([{ address: invoice.receive_address, value: 30_000n }]);
      ctx.chain.mine(1);
      const down = await waitFor('the outage to show', health, (h) => h.btc_source_error !== null);
      assert.equal(down.ok, true, 'the listener itself still serves');
      assert.match(down.btc_source_error, /503/);
      assert.equal((await ctx.invoice(invoice.invoice_id)).status, 'pending');

      ctx.server.setDown(false);
      const paid = await waitFor('the payment to confirm', () => ctx.invoice(invoice.invoice_id), (i) => i.status === 'confirmed');
      assert.equal(paid.tx_hash, txid);
      const back = await waitFor('the error to clear', health, (h) => h.btc_source_error === null);
      assert.equal(back.last_block_height, ctx.chain.tip.height);
      assert.ok(Date.parse(back.last_event_at) > 0);
    } finally {
      await ctx.close();
    }
  });
}
