import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startBtcWatchContext, type BtcWatchContext } from '../../helpers/btc-chain.ts';

// The watcher's view of the chain through the verified header chain keeps the watcher's own
// timing rules: a payment is judged gone from the mempool only against a tip read after the list.

test('a payment mined while the mempool list is read is not judged gone: the tip is read again after the list', async () => {
  let mineOnNextList = false;
  let ctx: BtcWatchContext | undefined;
  const minedFirst: typeof fetch = async (input, init) => {
    if (mineOnNextList && String(input).endsWith('/mempool/txids')) {
      mineOnNextList = false;
      ctx!.chain.mine(1); // between the pass's first tip read and its mempool list
    }
    return fetch(input, init);
  };
  ctx = await startBtcWatchContext('esplora', { fetch: minedFirst });
  try {
    const invoice = await ctx.createInvoice(40_000);
    await ctx.sync();
    const txid = ctx.chain.pay([{ address: invoice.receive_address, value: 40_000n }]);
    await ctx.sync();
    const status = async () => (await ctx!.listener.database.db.selectFrom('btc_payments').select('status').where('txid', '=', txid).executeTakeFirstOrThrow()).status;
    assert.equal(await status(), 'mempool');
    mineOnNextList = true;
    await ctx.sync();
    assert.equal(mineOnNextList, false, 'the block came between the tip read and the list');
    assert.equal(await status(), 'mempool', 'absent from the list, but the tip moved: not judged');
    await ctx.sync();
    assert.equal(await status(), 'block');
  } finally {
    await ctx.close();
  }
});
