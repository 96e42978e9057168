import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { InvoiceConfirmedEvent } from '../../../shared/index.ts';
import { startLocalTickers, type LocalTickers } from '../../../sandbox/local-tickers.ts';
import { startBtcWatchContext, type BtcWatchContext } from '../../helpers/btc-chain.ts';
import { postJson } from '../../helpers/listener.ts';

describe('a fiat-priced Bitcoin invoice paid on a local chain: invoice.confirmed carries its price', () => {
  let ctx: BtcWatchContext;
  let exchanges: LocalTickers[];
  before(async () => {
    exchanges = await Promise.all(['100000', '100000', '100100'].map((rate) => startLocalTickers({ rates: { 'BTC/GBP': rate } })));
    const [kraken, coinbase, bitstamp] = exchanges.map((exchange) => exchange.url);
    ctx = await startBtcWatchContext('esplora', { env: { RATE_SOURCES: `kraken=${kraken},coinbase=${coinbase},bitstamp=${bitstamp}` } });
  });
  after(async () => {
    await ctx.close();
    await Promise.all(exchanges.map((exchange) => exchange.close()));
  });

  it('£50 at 100,000 GBP/BTC is 50,000 sats; paid and confirmed, the event says price, rate, sources and when', async () => {
    const created = await postJson(`${ctx.listener.url}/invoice`, { price_amount: '50.00', price_currency: 'GBP' });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.json.amount_sats, 50_000);
    await ctx.sync();
    ctx.chain.pay([{ address: created.json.receive_address, value: 50_000n }]);
    ctx.chain.mine(3);
    await ctx.sync();
    await ctx.sync();
    assert.equal((await ctx.invoice(created.json.invoice_id)).status, 'confirmed');
    const [event] = (await ctx.events('invoice.confirmed')).map((payload) => InvoiceConfirmedEvent.strict().parse(payload));
    assert.deepEqual(
      [event!.invoice_id, event!.amount, event!.price_amount, event!.price_currency, event!.rate, event!.rate_sources, event!.rate_at],
      [created.json.invoice_id, '0.00050000', '50.00', 'GBP', '100000', ['bitstamp', 'coinbase', 'kraken'], created.json.rate_at],
    );
  });
});
