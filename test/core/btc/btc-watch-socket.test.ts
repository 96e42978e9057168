import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { startBtcWatchContext, type BtcWatchContext } from '../../helpers/btc-chain.ts';

const ADDRESS_MODE = { BTC_ESPLORA_SELF_HOSTED: 'false' };

async function health(ctx: BtcWatchContext) {
  return (await fetch(`${ctx.listener.url}/health`)).json();
}

/** Waits on state; a timeout says what the watcher was doing (its /health). */
async function waitFor<T>(ctx: BtcWatchContext, what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last value ${JSON.stringify(value)}; watcher: ${JSON.stringify(await health(ctx))}`);
    await sleep(25);
  }
}

const paymentsOf = (ctx: BtcWatchContext, invoiceId: string) =>
  ctx.listener.database.db.selectFrom('btc_payments').selectAll().where('invoice_id', '=', invoiceId).execute();
const polls = (ctx: BtcWatchContext) => [...ctx.server.requestsByRoute()].filter(([r]) => r.includes('/address/')).reduce((n, [, c]) => n + c, 0);

test('socket up: the payment is pushed (no poll), the block is announced, the invoice confirms without polling the tip', async () => {
  const ctx = await startBtcWatchContext('esplora', { env: ADDRESS_MODE });
  try {
    const invoice = await ctx.createInvoice(30_000);
    await ctx.sync();
    const up = await waitFor(ctx, 'the address to be tracked', () => health(ctx), (h) => h.ws_connected && h.btc_watch.ws_tracked === 1);
    assert.equal(up.subscribed_count, 1);
    await ctx.sync(); // the once-after-subscribing poll
    const pollsBefore = polls(ctx);
    const tipReads = () => (ctx.server.requestsByRoute().get('GET /api/blocks/tip/height') ?? 0) + (ctx.server.requestsByRoute().get('GET /api/blocks/tip/hash') ?? 0);
    const tipReadsBefore = tipReads();

    const txid = ctx.chain.pay([{ address: invoice.receive_address, value: 30_000n }]);
    const [row] = await waitFor(ctx, 'the pushed payment', () => paymentsOf(ctx, invoice.invoice_id), (rows) => rows.length === 1);
    assert.deepEqual([row.txid, row.status], [txid, 'mempool']);
    ctx.chain.mine(1);
    const paid = await waitFor(ctx, 'the confirmation', () => ctx.invoice(invoice.invoice_id), (i) => i.status === 'confirmed');
    assert.equal(paid.tx_hash, txid);
    assert.equal(polls(ctx), pollsBefore, 'no address was polled while the socket tracked it');
    assert.equal(tipReads() - tipReadsBefore, 1, 'the tip read once, on the block announcement');
  } finally {
    await ctx.close();
  }
});

test('socket drops and reconnects while payments arrive: none missed, none counted twice', async () => {
  const ctx = await startBtcWatchContext('esplora', { env: ADDRESS_MODE });
  try {
    const early = await ctx.createInvoice(40_000);
    const late = await ctx.createInvoice(50_000);
    await ctx.sync();
    await waitFor(ctx, 'both addresses tracked', () => health(ctx), (h) => h.ws_connected && h.btc_watch.ws_tracked === 2);

    // Paid while connected: pushed.
    const first = ctx.chain.pay([{ address: early.receive_address, value: 40_000n }]);
    await waitFor(ctx, 'the pushed payment', () => paymentsOf(ctx, early.invoice_id), (rows) => rows.length === 1);

    ctx.server.refuseSockets(true);
    await waitFor(ctx, 'the drop to show', () => health(ctx), (h) => !h.ws_connected && h.btc_watch.ws_tracked === 0);
    // Paid while the socket is down, and nothing polled meanwhile: only the re-subscription can find it.
    const second = ctx.chain.pay([{ address: late.receive_address, value: 50_000n }]);
    ctx.server.refuseSockets(false);
    await waitFor(ctx, 'the reconnection', () => health(ctx), (h) => h.ws_connected && h.btc_watch.ws_tracked === 2);
    await ctx.sync(); // polls the re-subscribed addresses once: the push for `second` was never sent
    assert.deepEqual((await paymentsOf(ctx, late.invoice_id)).map((r) => [r.txid, r.status]), [[second, 'mempool']]);

    ctx.chain.mine(1);
    await waitFor(ctx, 'both confirmations', async () => [await ctx.invoice(early.invoice_id), await ctx.invoice(late.invoice_id)], (both) =>
      both.every((i) => i.status === 'confirmed'),
    );
    for (const [invoice, txid] of [[early, first], [late, second]] as const) {
      assert.deepEqual((await paymentsOf(ctx, invoice.invoice_id)).map((r) => [r.txid, r.status]), [[txid, 'block']]);
      assert.equal((await ctx.events('invoice.confirmed')).filter((e) => e.invoice_id === invoice.invoice_id).length, 1);
    }
  } finally {
    await ctx.close();
  }
});

test('tracked-address limit reached: the server says its maximum, the newest invoices are tracked, the rest polled', async () => {
  const ctx = await startBtcWatchContext('esplora', {
    env: { ...ADDRESS_MODE, BTC_WS_MAX_CONNECTIONS: '1' },
    server: { maxTrackedAddresses: 2 },
    pollIntervalMs: 1_000,
  });
  try {
    const oldest = await ctx.createInvoice(10_000);
    ctx.clock.advance(1_000);
    const middle = await ctx.createInvoice(20_000);
    ctx.clock.advance(1_000);
    const newest = await ctx.createInvoice(30_000);
    await ctx.sync();
    const h = await waitFor(ctx, 'the limit to be adopted', () => health(ctx), (x) => x.ws_connected && x.btc_watch.ws_tracked === 2);
    assert.equal(h.subscribed_count, 3, 'all three are still watched');
    await ctx.sync();

    const toOldest = ctx.chain.pay([{ address: oldest.receive_address, value: 10_000n }]);
    const toNewest = ctx.chain.pay([{ address: newest.receive_address, value: 30_000n }]);
    await waitFor(ctx, 'the push for the newest', () => paymentsOf(ctx, newest.invoice_id), (rows) => rows.length === 1);
    assert.deepEqual(await paymentsOf(ctx, oldest.invoice_id), [], 'the untracked one is not pushed');
    ctx.clock.advance(60_000);
    await ctx.sync();
    assert.deepEqual((await paymentsOf(ctx, oldest.invoice_id)).map((r) => r.txid), [toOldest], 'polled');
    assert.deepEqual((await paymentsOf(ctx, newest.invoice_id)).map((r) => r.txid), [toNewest]);
    assert.deepEqual(await paymentsOf(ctx, middle.invoice_id), []);
  } finally {
    await ctx.close();
  }
});

test('beyond one connection\'s limit more connections track the rest, up to BTC_WS_MAX_CONNECTIONS', async () => {
  const ctx = await startBtcWatchContext('esplora', { env: { ...ADDRESS_MODE, BTC_WS_MAX_CONNECTIONS: '2' }, server: { maxTrackedAddresses: 2 } });
  try {
    const invoices: Array<{ invoice_id: string; receive_address: string }> = [];
    for (let i = 0; i < 5; i++) {
      invoices.push(await ctx.createInvoice(10_000 + i));
      ctx.clock.advance(1_000); // newest first is then well defined: [4, 3] on the first connection, [2, 1] on the second
    }
    await ctx.sync();
    await waitFor(ctx, 'four addresses tracked on two connections', () => health(ctx), (h) => h.ws_connected && h.btc_watch.ws_tracked === 4);
    assert.equal(ctx.server.socket.clientCount, 2);
    await ctx.sync();
    const txid = ctx.chain.pay([{ address: invoices[1].receive_address, value: 10_001n }]);
    const [row] = await waitFor(ctx, 'the push on the second connection', () => paymentsOf(ctx, invoices[1].invoice_id), (rows) => rows.length === 1);
    assert.equal(row.txid, txid);
  } finally {
    await ctx.close();
  }
});
