import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BtcInvoice, BtcInvoiceCreated, CheckoutView, ErrorEnvelope, Health } from '../../../shared/index.ts';
import type { RunningListener } from '../../../listener/app.ts';
import { manualClock } from '../../../core/clock.ts';
import { startLocalTickers, type LocalTickers } from '../../../sandbox/local-tickers.ts';
import { postJson, startTestListener } from '../../helpers/listener.ts';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** Three local servers, each standing in for one exchange in its documented answer shape. */
async function threeExchanges(btcUsd: [string, string, string]) {
  const [kraken, coinbase, bitstamp] = await Promise.all(btcUsd.map((rate) => startLocalTickers({ rates: { 'BTC/USD': rate, 'BTC/JPY': '15000000', 'BTC/EUR': '90000' } })));
  return {
    kraken: kraken!,
    coinbase: coinbase!,
    bitstamp: bitstamp!,
    env: { RATE_SOURCES: `kraken=${kraken!.url},coinbase=${coinbase!.url}/,bitstamp=${bitstamp!.url}` },
    all: [kraken!, coinbase!, bitstamp!],
  };
}

const health = async (listener: RunningListener) => Health.parse(await (await fetch(`${listener.url}/health`)).json());
const sourceState = async (listener: RunningListener) => Object.fromEntries((await health(listener)).rate_sources!.map((source) => [source.name, source.state]));

describe('fiat prices on the listener, with three exchanges in their real answer shapes', () => {
  let listener: RunningListener;
  let exchanges: Awaited<ReturnType<typeof threeExchanges>>;
  const clock = manualClock(Date.UTC(2026, 11, 7, 12, 0, 0));
  before(async () => {
    exchanges = await threeExchanges(['97010', '97000', '96990']);
    listener = await startTestListener({ clock, env: exchanges.env });
  });
  after(async () => {
    await listener.stop();
    await Promise.all(exchanges.all.map((exchange) => exchange.close()));
  });

  it('all agree: $25.00 at their median (97,000) is 25,774 sats, with the price, rate and sources on the invoice', async () => {
    const created = await postJson(`${listener.url}/invoice`, { price_amount: '25.00', price_currency: 'USD' });
    assert.equal(created.status, 201, created.text);
    const invoice = BtcInvoiceCreated.strict().parse(created.json);
    assert.equal(invoice.amount_sats, 25_774);
    assert.deepEqual(
      { price_amount: invoice.price_amount, price_currency: invoice.price_currency, rate: invoice.rate, rate_sources: invoice.rate_sources, rate_at: invoice.rate_at },
      { price_amount: '25.00', price_currency: 'USD', rate: '97000', rate_sources: ['bitstamp', 'coinbase', 'kraken'], rate_at: '2026-12-07T12:00:00.000Z' },
    );
    const stored = BtcInvoice.strict().parse(await (await fetch(`${listener.url}/invoice/${invoice.invoice_id}`)).json());
    assert.equal(stored.rate, '97000');
    assert.deepEqual(stored.rate_sources, ['bitstamp', 'coinbase', 'kraken']);
    assert.equal(stored.price_amount, '25.00');
    assert.deepEqual(await sourceState(listener), { kraken: 'ok', coinbase: 'ok', bitstamp: 'ok' });
    const view = CheckoutView.parse(await (await fetch(`${listener.url}/checkout/${invoice.invoice_id}`)).json());
    assert.deepEqual([view.price_amount, view.price_currency, view.rate], ['25.00', 'USD', '97000']);
    const page = await (await fetch(`${listener.url}/pay/${invoice.invoice_id}`)).text();
    assert.match(page, /<p class="fiat" id="fiat-price">\$25\.00<\/p>/);
    // Each exchange was asked in its own API's form.
    assert.equal(exchanges.kraken.requests().get('/0/public/Ticker?pair=XBTUSD'), 1);
    assert.equal(exchanges.coinbase.requests().get('/v2/prices/BTC-USD/spot'), 1);
    assert.equal(exchanges.bitstamp.requests().get('/api/v2/ticker/btcusd/'), 1);
  });

  it('an agent bills "$25 in bitcoin" through MCP create_invoice', async () => {
    const client = new Client({ name: 'agent', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${listener.url}/mcp`)));
    try {
      const { tools } = await client.listTools();
      const create = tools.find((tool) => tool.name === 'create_invoice')!;
      assert.match(create.description!, /price_amount/);
      assert.ok('price_currency' in (create.inputSchema.properties ?? {}));
      const result = (await client.callTool({ name: 'create_invoice', arguments: { price_amount: '25.00', price_currency: 'USD' } })) as CallToolResult;
      assert.ok(!result.isError, JSON.stringify(result.content));
      const { invoice } = result.structuredContent as { invoice: { amount_sats: number; rate: string; price_amount: string } };
      assert.deepEqual([invoice.amount_sats, invoice.rate, invoice.price_amount], [25_774, '97000', '25.00']);
      assert.match((result.content[0] as { text: string }).text, /Priced at 25\.00 USD, at 97000 USD per BTC \(median of bitstamp, coinbase, kraken/);
    } finally {
      await client.close();
    }
  });

  it('an invoice in sats carries null price fields', async () => {
    const created = await postJson(`${listener.url}/invoice`, { amount_sats: 1000 });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual([created.json.price_amount, created.json.price_currency, created.json.rate, created.json.rate_sources, created.json.rate_at], [null, null, null, null, null]);
  });

  it('one lies by 20 %: ignored, named on /health and counted in /metrics; the others set the rate', async () => {
    clock.advance(30_000);
    exchanges.kraken.lie(1.2);
    const created = await postJson(`${listener.url}/invoice`, { price_amount: '25.00', price_currency: 'USD' });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.json.rate, '96995');
    assert.deepEqual(created.json.rate_sources, ['bitstamp', 'coinbase']);
    assert.equal(created.json.amount_sats, 25_775); // 25 / 96995 BTC = 25,774.52… sats, rounded up
    const named = (await health(listener)).rate_sources!.find((source) => source.name === 'kraken')!;
    assert.equal(named.state, 'outlier');
    assert.match(named.problem!, /BTC\/USD quoted 116412/);
    const metrics = await (await fetch(`${listener.url}/metrics`)).text();
    assert.match(metrics, /service_rate_source_outliers_total\{source="kraken"\} 1/);
  });

  it('two disagree beyond the spread: 503 rate_unavailable with Retry-After; nothing stored', async () => {
    clock.advance(30_000);
    exchanges.kraken.lie(1);
    exchanges.coinbase.lie(1.05);
    exchanges.bitstamp.lie(0.95);
    const refused = await postJson(`${listener.url}/invoice`, { price_amount: '25.00', price_currency: 'USD' });
    assert.equal(refused.status, 503, refused.text);
    assert.equal(ErrorEnvelope.parse(refused.json).error.code, 'rate_unavailable');
    const retryAfter = Number(refused.headers.get('retry-after'));
    assert.ok(retryAfter >= 1 && retryAfter <= 30, `Retry-After ${retryAfter}`);
  });

  it('all down: 503 rate_unavailable, the sources named silent; invoices in sats still work', async () => {
    clock.advance(60_000);
    for (const exchange of exchanges.all) {
      exchange.lie(1);
      exchange.setMode('down');
    }
    const refused = await postJson(`${listener.url}/invoice`, { price_amount: '25.00', price_currency: 'USD' });
    assert.equal(refused.status, 503, refused.text);
    assert.equal(refused.json.error.code, 'rate_unavailable');
    assert.ok(refused.headers.get('retry-after'));
    assert.deepEqual(await sourceState(listener), { kraken: 'silent', coinbase: 'silent', bitstamp: 'silent' });
    const inSats = await postJson(`${listener.url}/invoice`, { amount_sats: 5000 });
    assert.equal(inSats.status, 201, inSats.text);
    const metrics = await (await fetch(`${listener.url}/metrics`)).text();
    assert.match(metrics, /service_rate_source_requests_total\{source="kraken",outcome="error"\} 1/);
  });

  it('one answers garbage: named so, and the two others still agree; JPY priced with no minor unit', async () => {
    clock.advance(30_000);
    exchanges.kraken.setMode('ok');
    exchanges.coinbase.setMode('garbage');
    exchanges.bitstamp.setMode('ok');
    const created = await postJson(`${listener.url}/invoice`, { price_amount: '25.00', price_currency: 'USD' });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(created.json.rate_sources, ['bitstamp', 'kraken']);
    assert.equal((await sourceState(listener)).coinbase, 'garbage');

    exchanges.coinbase.setMode('ok');
    clock.advance(30_000);
    // Bitstamp lists no BTC/JPY market: Kraken and Coinbase are the two.
    const yen = await postJson(`${listener.url}/invoice`, { price_amount: '3000', price_currency: 'JPY' });
    assert.equal(yen.status, 201, yen.text);
    assert.equal(yen.json.amount_sats, 20_000);
    assert.deepEqual(yen.json.rate_sources, ['coinbase', 'kraken']);
    const fraction = await postJson(`${listener.url}/invoice`, { price_amount: '3000.5', price_currency: 'JPY' });
    assert.equal(fraction.status, 400);
    assert.equal(fraction.json.error.code, 'invalid_amount');
  });

  it('refuses both forms, or neither, with invalid_amount naming both', async () => {
    const both = await postJson(`${listener.url}/invoice`, { amount_sats: 1000, price_amount: '25.00', price_currency: 'USD' });
    assert.equal(both.status, 400);
    assert.equal(both.json.error.code, 'invalid_amount');
    assert.match(both.json.error.message, /amount_sats.*price_amount.*price_currency/);
    const neither = await postJson(`${listener.url}/invoice`, { memo: 'x' });
    assert.equal(neither.json.error.code, 'invalid_amount');
    assert.match(neither.json.error.message, /amount_sats or price_amount with price_currency/);
  });
});

describe('the request budget: 1,000 fiat invoices in a minute', () => {
  let listener: RunningListener;
  let exchanges: Awaited<ReturnType<typeof threeExchanges>>;
  const clock = manualClock(Date.UTC(2026, 11, 7, 12, 0, 0));
  before(async () => {
    exchanges = await threeExchanges(['97010', '97000', '96990']);
    listener = await startTestListener({ clock, env: exchanges.env });
  });
  after(async () => {
    await listener.stop();
    await Promise.all(exchanges.all.map((exchange: LocalTickers) => exchange.close()));
  });

  it('cost at most one request per pair per source per 30 s, however many ask at once', async () => {
    const batches = 20;
    for (let batch = 0; batch < batches; batch++) {
      // 50 at once (single flight), the minute's 59 s spread over the batches.
      const answers = await Promise.all(Array.from({ length: 50 }, () => postJson(`${listener.url}/invoice`, { price_amount: '12.50', price_currency: 'USD' })));
      for (const answer of answers) assert.equal(answer.status, 201, answer.text);
      clock.advance(59_000 / batches);
    }
    for (const exchange of exchanges.all) {
      const counts = [...exchange.requests().values()];
      assert.equal(counts.length, 1, 'one pair asked');
      // 0 s and 30 s: two windows of 30 s in the 59 s.
      assert.equal(counts[0], 2, `${exchange.url} asked ${counts[0]} times`);
    }
  });
});
