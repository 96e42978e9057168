import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startBtcWatchContext } from '../../helpers/btc-chain.ts';
import { startLyingEsplora, type Lie } from '../../helpers/lying-esplora.ts';
import { MINED_GRACE_MS } from '../../../core/btc/confirmation-rules.ts';

// A source that keeps reporting a sighting the chain dropped (a real transaction, bytes hashing to
// its txid, that will never be mined) cannot hold an invoice open past the grace after expiry.

/** Records honest mempool, address and transaction answers; once frozen, replays them as they were (blocks still relayed). */
function staleMempool(): { lie: Lie; freeze(): void } {
  const recorded = new Map<string, { status: number; body: Buffer }>();
  let frozen = false;
  const stale = (path: string) => path.startsWith('/mempool') || path.startsWith('/address/') || path.startsWith('/tx/');
  return {
    freeze: () => (frozen = true),
    lie: async (path, honest) => {
      if (!stale(path)) return null;
      if (frozen && recorded.has(path)) return recorded.get(path)!;
      const answer = await honest();
      if (!frozen) recorded.set(path, answer);
      return answer;
    },
  };
}

const modes = { address: { BTC_ESPLORA_SELF_HOSTED: 'false', BTC_ESPLORA_WS_URL: 'off' }, full: {} };

for (const [mode, env] of Object.entries(modes)) {
  test(`${mode} mode: a sighting a lying source keeps reporting holds the invoice no longer than the grace`, async () => {
    const liar = await startLyingEsplora();
    const ctx = await startBtcWatchContext('esplora', { env });
    try {
      liar.target = ctx.server.esploraUrl;
      await ctx.listener.stop();
      await ctx.restart({ BTC_ESPLORA_URL: liar.url });
      const stale = staleMempool();
      liar.lie = stale.lie;
      ctx.chain.mine(1);
      await ctx.sync();
      const invoice = await ctx.createInvoice(20_000, 60);
      const txid = ctx.chain.pay([{ address: invoice.receive_address, value: 20_000n }]);
      ctx.clock.advance(10_000); // address mode polls a fresh invoice 10 s after its creation
      await ctx.sync();
      stale.freeze();
      // The chain drops the transaction: it will never be mined, but the liar goes on reporting it.
      ctx.chain.reorg(1, { drop: [txid] });
      await ctx.sync();
      const rowStatus = async () =>
        (await ctx.listener.database.db.selectFrom('btc_payments').select('status').where('txid', '=', txid).executeTakeFirst())?.status;
      ctx.clock.advance(MINED_GRACE_MS - 60_000);
      ctx.chain.mine(1);
      await ctx.sync();
      assert.equal(await rowStatus(), 'mempool', 'the liar is believed as a hint');
      assert.equal((await ctx.invoice(invoice.invoice_id)).status, 'pending', 'within the grace the sighting holds');
      ctx.clock.advance(120_000);
      ctx.chain.mine(1);
      await ctx.sync();
      assert.equal(await rowStatus(), 'mempool', 'the liar still reports it');
      assert.equal((await ctx.invoice(invoice.invoice_id)).status, 'expired', 'past the grace the sighting holds nothing');
      assert.deepEqual(await ctx.events('invoice.confirmed'), []);
    } finally {
      await ctx.close();
      await liar.close();
    }
  });
}

test('a source that falls silent after the sighting: the invoice still expires once the grace is past', async () => {
  const liar = await startLyingEsplora();
  const ctx = await startBtcWatchContext('esplora', { env: modes.full });
  try {
    liar.target = ctx.server.esploraUrl;
    await ctx.listener.stop();
    await ctx.restart({ BTC_ESPLORA_URL: liar.url });
    const invoice = await ctx.createInvoice(20_000, 60);
    await ctx.sync();
    const txid = ctx.chain.pay([{ address: invoice.receive_address, value: 20_000n }]);
    await ctx.sync();
    const row = await ctx.listener.database.db.selectFrom('btc_payments').select('status').where('txid', '=', txid).executeTakeFirst();
    assert.equal(row?.status, 'mempool');
    liar.lie = async () => ({ status: 503, body: Buffer.from('') });
    ctx.clock.advance(MINED_GRACE_MS - 60_000);
    assert.equal((await ctx.invoice(invoice.invoice_id)).status, 'pending', 'within the grace the sighting holds');
    ctx.clock.advance(120_000);
    assert.equal((await ctx.invoice(invoice.invoice_id)).status, 'expired', 'no answer from the source is needed to end the hold');
  } finally {
    await ctx.close();
    await liar.close();
  }
});
