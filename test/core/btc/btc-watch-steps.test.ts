import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startBtcWatchContext, type BtcWatchContext } from '../../helpers/btc-chain.ts';

/** Real fetch to the local chain, except that requests whose path matches `refuse` answer 429 while `refusing()` says so. */
function fetchRefusing(refuse: RegExp, refusing: () => boolean) {
  const paths: string[] = [];
  const wrapped: typeof fetch = async (input, init) => {
    const path = new URL(String(input)).pathname.replace(/^\/api/, '');
    paths.push(path);
    if (refuse.test(path) && refusing()) return new Response('Too Many Requests', { status: 429, headers: { 'retry-after': '5' } });
    return fetch(input, init);
  };
  return { fetch: wrapped, count: (pattern: RegExp) => paths.filter((p) => pattern.test(p)).length };
}

const paymentsOf = (ctx: BtcWatchContext, invoiceId: string) =>
  ctx.listener.database.db.selectFrom('btc_payments').selectAll().where('invoice_id', '=', invoiceId).execute();

test('full scan: a 429 storm in the mempool step never holds back the block and the confirmation', async () => {
  const refused = fetchRefusing(/^\/(mempool\/txids|tx\/)/, () => true);
  const ctx = await startBtcWatchContext('esplora', { fetch: refused.fetch });
  try {
    const invoice = await ctx.createInvoice(40_000);
    await ctx.sync();
    const txid = ctx.chain.pay([{ address: invoice.receive_address, value: 40_000n }]);
    ctx.chain.mine(1);
    await ctx.sync();
    const paid = await ctx.invoice(invoice.invoice_id);
    assert.equal(paid.status, 'confirmed', 'confirmed from the block although every mempool read answered 429');
    assert.equal(paid.tx_hash, txid);
    const health = await (await fetch(`${ctx.listener.url}/health`)).json();
    assert.equal(health.btc_source_error, null, 'blocks are healthy');
    assert.match(health.btc_watch.live_error, /429/, 'the mempool step shows its own trouble');
    assert.equal(health.last_block_height, ctx.chain.tip.height);
  } finally {
    await ctx.close();
  }
});

test('full scan: after a failure the mempool step backs off, then resumes without downloading the txid list again', async () => {
  let refusing = false;
  const refused = fetchRefusing(/^\/tx\/[0-9a-f]{64}\/hex$/, () => refusing);
  const ctx = await startBtcWatchContext('esplora', { fetch: refused.fetch });
  try {
    const invoice = await ctx.createInvoice(50_000);
    await ctx.sync();
    const lists = () => refused.count(/^\/mempool\/txids$/);
    const before = lists();
    refusing = true;
    const txid = ctx.chain.pay([{ address: invoice.receive_address, value: 20_000n }]);
    await ctx.sync();
    assert.equal(lists(), before + 1, 'the list was read once');
    assert.deepEqual(await paymentsOf(ctx, invoice.invoice_id), [], 'its transactions could not be fetched');

    await ctx.sync();
    assert.equal(lists(), before + 1, 'inside the backoff nothing is asked again');
    refusing = false;
    ctx.clock.advance(1_000);
    await ctx.sync();
    assert.equal(lists(), before + 1, 'the pending transactions are fetched from the list already read');
    const rows = await paymentsOf(ctx, invoice.invoice_id);
    assert.deepEqual(rows.map((r) => [r.txid, r.status]), [[txid, 'mempool']]);
    // A sighting is a hint: the payer sees it (what is still due), the status waits for its block.
    assert.deepEqual(await dueAndStatus(ctx, invoice.invoice_id), ['0.00030000', 'pending']);
    ctx.chain.mine(1);
    await ctx.sync();
    assert.equal((await ctx.invoice(invoice.invoice_id)).status, 'partial', 'partial once a verified block holds part of it');
    const health = await (await fetch(`${ctx.listener.url}/health`)).json();
    assert.equal(health.btc_watch.live_error, null);
  } finally {
    await ctx.close();
  }
});

test('address mode without a socket: the open invoice is polled by address, never the whole mempool, and confirms from its block', async () => {
  const counted = fetchRefusing(/^$/, () => false);
  const ctx = await startBtcWatchContext('esplora', { fetch: counted.fetch, env: { BTC_ESPLORA_SELF_HOSTED: 'false', BTC_ESPLORA_WS_URL: 'off' } });
  try {
    await ctx.sync(); // the start-up pass is over: the fresh invoice's first poll is this test's
    const invoice = await ctx.createInvoice(60_000);
    const txid = ctx.chain.pay([{ address: invoice.receive_address, value: 25_000n }]);
    ctx.clock.advance(10_000); // a fresh invoice's first poll
    await ctx.sync();
    assert.deepEqual((await paymentsOf(ctx, invoice.invoice_id)).map((r) => [r.txid, r.status]), [[txid, 'mempool']]);
    assert.deepEqual(await dueAndStatus(ctx, invoice.invoice_id), ['0.00035000', 'pending'], 'seen in the mempool: a hint, not partial');
    ctx.chain.mine(1);
    await ctx.sync();
    assert.equal((await ctx.invoice(invoice.invoice_id)).status, 'partial');
    const second = ctx.chain.pay([{ address: invoice.receive_address, value: 35_000n }]);
    ctx.chain.mine(1);
    await ctx.sync();
    const paid = await ctx.invoice(invoice.invoice_id);
    assert.equal(paid.status, 'confirmed');
    assert.equal(paid.tx_hash, second);
    assert.equal(counted.count(/^\/mempool\/txids$/), 0, 'the mempool list is never downloaded');
    assert.equal(counted.count(/^\/tx\//), counted.count(new RegExp(`^/tx/${txid}/hex$`)), 'no mempool transaction one by one but the payment seen at the address');
    assert.equal(counted.count(new RegExp(`^/tx/${txid}/hex$`)), 1, 'its raw bytes fetched once, to check they hash to its txid');
    assert.equal(counted.count(new RegExp(`^/address/${invoice.receive_address}/txs/mempool$`)), 1, 'one poll of the fresh invoice');
    const health = await (await fetch(`${ctx.listener.url}/health`)).json();
    assert.equal(health.ws_connected, false);
    assert.equal(health.btc_watch.mode, 'address');
    assert.equal(health.btc_watch.ws_tracked, 0);
  } finally {
    await ctx.close();
  }
});

test('address mode: a payment that left the mempool no longer counts (seen by reading the whole address)', async () => {
  const ctx = await startBtcWatchContext('esplora', { env: { BTC_ESPLORA_SELF_HOSTED: 'false', BTC_ESPLORA_WS_URL: 'off' }, pollIntervalMs: 1_000 });
  try {
    await ctx.sync();
    const invoice = await ctx.createInvoice(70_000);
    const txid = ctx.chain.pay([{ address: invoice.receive_address, value: 30_000n }]);
    ctx.clock.advance(10_000);
    await ctx.sync();
    assert.deepEqual(await dueAndStatus(ctx, invoice.invoice_id), ['0.00040000', 'pending'], 'seen in the mempool: what is still due drops');
    ctx.chain.reorg(1, { drop: [txid], includeMempool: false });
    ctx.clock.advance(60_000);
    await ctx.sync();
    assert.deepEqual((await paymentsOf(ctx, invoice.invoice_id)).map((r) => [r.txid, r.status]), [[txid, 'gone']]);
    assert.deepEqual(await dueAndStatus(ctx, invoice.invoice_id), ['0.00070000', 'pending'], 'gone: the whole amount is due again');
  } finally {
    await ctx.close();
  }
});

/** The checkout view's amount still due and the status: what the payer is shown. */
async function dueAndStatus(ctx: BtcWatchContext, invoiceId: string): Promise<[string, string]> {
  const view = (await (await fetch(`${ctx.listener.url}/checkout/${invoiceId}`)).json()) as { amount_due: string; status: string };
  return [view.amount_due, view.status];
}

/** Requests the chain server answered since `before`, by route kind. */
function requestsSince(ctx: BtcWatchContext, before: Map<string, number>) {
  const by = (pattern: RegExp) =>
    [...ctx.server.requestsByRoute()].filter(([route]) => pattern.test(route)).reduce((sum, [route, n]) => sum + n - (before.get(route) ?? 0), 0);
  return { total: by(/./), rawBlocks: by(/\/block\/:hash\/raw$/), addressPages: by(/\/txs\/chain/) };
}

for (const mode of ['address', 'full'] as const) {
  test(`${mode} mode: catch-up after a stop of 30 blocks confirms the payment made meanwhile, counted once`, async (t) => {
    const env: Record<string, string> = mode === 'address' ? { BTC_ESPLORA_SELF_HOSTED: 'false', BTC_ESPLORA_WS_URL: 'off' } : {};
    const ctx = await startBtcWatchContext('esplora', { env });
    try {
      await ctx.sync();
      const paidInvoice = await ctx.createInvoice(500_000); // 3 confirmations
      const others = [await ctx.createInvoice(10_000), await ctx.createInvoice(20_000)];
      await ctx.sync();
      await ctx.listener.stop();

      ctx.chain.mine(3);
      const txid = ctx.chain.pay([{ address: paidInvoice.receive_address, value: 500_000n }]);
      const payHeight = ctx.chain.mine(1)[0].height;
      ctx.chain.mine(26);
      const before = ctx.server.requestsByRoute();
      await ctx.restart();
      await ctx.sync();

      const paid = await ctx.invoice(paidInvoice.invoice_id);
      assert.equal(paid.status, 'confirmed');
      assert.equal(paid.tx_hash, txid);
      const [event] = (await ctx.events('invoice.confirmed')).filter((e) => e.invoice_id === paidInvoice.invoice_id);
      assert.equal(event.confirmations, ctx.chain.tip.height - payHeight + 1, 'confirmations counted from the block of the transaction');
      for (const other of others) assert.equal((await ctx.invoice(other.invoice_id)).status, 'pending');
      const used = requestsSince(ctx, before);
      t.diagnostic(`30 blocks behind, 3 open invoices, ${mode}: ${used.total} requests, ${used.rawBlocks} raw blocks, ${used.addressPages} address pages`);
      if (mode === 'address') {
        assert.equal(used.rawBlocks, 2, 'only the block holding the payment, and the tip');
        assert.equal(used.addressPages, 3, 'one page of confirmed transactions per payable invoice');
        assert.ok(used.total <= 15, `${used.total} requests (with the live polls of the two open invoices)`);
      } else {
        assert.equal(used.rawBlocks, 30, 'a full scan reads every block');
      }

      // The blocks read later (and the reorg check on them) never credit it twice.
      ctx.chain.mine(1);
      await ctx.sync();
      const rows = await paymentsOf(ctx, paidInvoice.invoice_id);
      assert.deepEqual(rows.map((r) => [r.txid, r.status, Number(r.block_height)]), [[txid, 'block', payHeight]]);
      assert.equal((await ctx.events('invoice.confirmed')).filter((e) => e.invoice_id === paidInvoice.invoice_id).length, 1);
    } finally {
      await ctx.close();
    }
  });
}
