import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { tickerAdapters } from '../../../core/rates/adapters/index.ts';
import { TickerShapeError } from '../../../core/rates/rate-source.ts';
import { toDecimalText } from '../../../core/rates/ratio.ts';
import { rateSettingsOf, rateSettingsShape } from '../../../edge/settings.ts';
import * as z from 'zod';

const { kraken, coinbase, bitstamp, gemini } = tickerAdapters;

describe('ticker adapters read each exchange\'s documented answer', () => {
  it('Kraken: the one result entry whatever its key, c[0]; USD/JPY quoted the other way round', () => {
    assert.deepEqual(kraken!.market('BTC/USD'), { path: '/0/public/Ticker?pair=XBTUSD', inverted: false });
    assert.deepEqual(kraken!.market('JPY/USD'), { path: '/0/public/Ticker?pair=USDJPY', inverted: true });
    assert.deepEqual(kraken!.market('EUR/USD'), { path: '/0/public/Ticker?pair=EURUSD', inverted: false });
    assert.equal(kraken!.price({ error: [], result: { XXBTZUSD: { a: ['97001.0', '1', '1.000'], c: ['97000.10000', '0.00100000'] } } }, 'BTC/USD'), '97000.10000');
    assert.throws(() => kraken!.price({ error: ['EQuery:Unknown asset pair'] }, 'BTC/USD'), TickerShapeError);
    assert.throws(() => kraken!.price({ error: [], result: { A: { c: ['1'] }, B: { c: ['2'] } } }, 'BTC/USD'), TickerShapeError);
  });

  it('Coinbase: data.amount of the pair asked (another pair is refused); fiat crosses from exchange-rates', () => {
    assert.deepEqual(coinbase!.market('BTC/JPY'), { path: '/v2/prices/BTC-JPY/spot', inverted: false });
    assert.deepEqual(coinbase!.market('EUR/USD'), { path: '/v2/exchange-rates?currency=EUR', inverted: false });
    assert.equal(coinbase!.price({ data: { amount: '97000.12', base: 'BTC', currency: 'USD' } }, 'BTC/USD'), '97000.12');
    assert.throws(() => coinbase!.price({ data: { amount: '90000', base: 'BTC', currency: 'EUR' } }, 'BTC/USD'), TickerShapeError);
    assert.equal(coinbase!.price({ data: { currency: 'EUR', rates: { USD: '1.0843', GBP: '0.85' } } }, 'EUR/USD'), '1.0843');
  });

  it('Bitstamp and Gemini: last; markets they do not list are not asked', () => {
    assert.equal(bitstamp!.market('BTC/JPY'), null);
    assert.equal(bitstamp!.price({ last: '96990', timestamp: '1700000000' }, 'BTC/USD'), '96990');
    assert.deepEqual(gemini!.market('BTC/USD'), { path: '/v1/pubticker/btcusd', inverted: false });
    assert.equal(gemini!.price({ bid: '1', ask: '2', last: '96995.5', volume: {} }, 'BTC/USD'), '96995.5');
  });

  it('garbage is refused, never read as a price: HTML, negatives, zero, words, missing fields', () => {
    for (const answer of ['<html>', null, [], { last: '-1' }, { last: '0' }, { last: 'NaN' }, { last: '' }, {}]) {
      assert.throws(() => bitstamp!.price(answer, 'BTC/USD'), TickerShapeError, JSON.stringify(answer));
    }
  });
});

describe('RATE_SOURCES, RATE_MIN_SOURCES, RATE_MAX_SPREAD', () => {
  const parse = (env: Record<string, string>) => {
    const problems: string[] = [];
    const settings = rateSettingsOf(z.object(rateSettingsShape).parse(env), problems);
    return { settings, problems };
  };
  it('defaults: kraken, coinbase and bitstamp at their public URLs; two sources; 1 %', () => {
    const { settings, problems } = parse({});
    assert.deepEqual(problems, []);
    assert.deepEqual(settings!.sources.map((source) => [source.name, source.baseUrl]), [['kraken', 'https://api.kraken.com'], ['coinbase', 'https://api.coinbase.com'], ['bitstamp', 'https://www.bitstamp.net']]);
    assert.equal(settings!.minSources, 2);
    assert.equal(toDecimalText(settings!.maxSpread, 8), '0.01');
  });
  it('name=base_url for a mirror, a label before the name, off', () => {
    const { settings } = parse({ RATE_SOURCES: 'kraken=http://127.0.0.1:9001/, eu-kraken=https://mirror.example/kraken,gemini', RATE_MAX_SPREAD: '0.5%', RATE_MIN_SOURCES: '3' });
    assert.deepEqual(settings!.sources.map((source) => [source.name, source.adapter.name, source.baseUrl]), [['kraken', 'kraken', 'http://127.0.0.1:9001'], ['eu-kraken', 'kraken', 'https://mirror.example/kraken'], ['gemini', 'gemini', 'https://api.gemini.com']]);
    assert.equal(toDecimalText(settings!.maxSpread, 8), '0.005');
    assert.equal(parse({ RATE_SOURCES: 'off' }).settings, null);
  });
  it('refuses, naming the setting: an unknown source, a bad URL, a name twice, more sources required than named', () => {
    assert.match(parse({ RATE_SOURCES: 'binance' }).problems[0]!, /^RATE_SOURCES names "binance"/);
    assert.match(parse({ RATE_SOURCES: 'kraken=ftp://x' }).problems[0]!, /^RATE_SOURCES gives kraken "ftp:\/\/x"/);
    assert.match(parse({ RATE_SOURCES: 'kraken,kraken' }).problems[0]!, /names kraken twice/);
    assert.match(parse({ RATE_SOURCES: 'kraken,coinbase', RATE_MIN_SOURCES: '3' }).problems[0]!, /^RATE_MIN_SOURCES is 3, more than the 2/);
    assert.equal(z.object(rateSettingsShape).safeParse({ RATE_MAX_SPREAD: '0' }).success, false);
    assert.equal(z.object(rateSettingsShape).safeParse({ RATE_MAX_SPREAD: 'lots' }).success, false);
  });
});
