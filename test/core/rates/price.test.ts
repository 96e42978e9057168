import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assetFacts, CreateInvoiceRequest, priceAmountProblem } from '../../../shared/index.ts';
import { aggregate } from '../../../core/rates/aggregate.ts';
import { convertPrice } from '../../../core/rates/price.ts';
import { parseDecimal, ratio, toDecimalText } from '../../../core/rates/ratio.ts';
import type { Pair, Quote } from '../../../core/rates/rate-source.ts';

const btc = { symbol: 'BTC', ...assetFacts.BTC };
const usdc = { symbol: 'USDC', ...assetFacts.USDC };
/** A rate service that agrees on the given rates, and records the pairs asked. */
function fixedRates(rates: Record<string, string>) {
  const asked: Pair[] = [];
  return {
    asked,
    rate: async (pair: Pair) => {
      asked.push(pair);
      return { rate: parseDecimal(rates[pair]!)!, sources: ['a', 'b'], at: 1_000 };
    },
  };
}

describe('fiat prices: known answers', () => {
  it('$25 at 97,000 USD/BTC is 25,774 sats: rounded up, never under the price, at most one sat over', async () => {
    const rates = fixedRates({ 'BTC/USD': '97000' });
    const priced = await convertPrice(rates, '25', 'USD', btc);
    // 25 / 97000 BTC = 25,773.195… sats
    assert.equal(priced.units, 25_774n);
    assert.equal(priced.rate, '97000');
    assert.deepEqual(priced.rateSources, ['a', 'b']);
    assert.deepEqual(rates.asked, ['BTC/USD']);
    const paidUsd = (Number(priced.units) * 97000) / 1e8;
    assert.ok(paidUsd >= 25 && paidUsd - 25 < 97000 / 1e8, 'within one sat above the price');
  });

  it('an exact division asks exactly: $50 at 100,000 USD/BTC is 50,000 sats', async () => {
    assert.equal((await convertPrice(fixedRates({ 'BTC/USD': '100000' }), '50.00', 'USD', btc)).units, 50_000n);
  });

  it('USDC priced in USD is 1:1, no rate asked', async () => {
    const rates = fixedRates({});
    const priced = await convertPrice(rates, '12.50', 'USD', usdc);
    assert.equal(priced.units, 12_500_000n);
    assert.deepEqual({ rate: priced.rate, sources: priced.rateSources, at: priced.rateAt }, { rate: null, sources: null, at: null });
    assert.deepEqual(rates.asked, []);
  });

  it('EUR-priced USDC goes through EUR/USD: €25 at 1.0843 USD/EUR is 27.1075 USDC; the rate is EUR per USDC', async () => {
    const rates = fixedRates({ 'EUR/USD': '1.0843' });
    const priced = await convertPrice(rates, '25.00', 'EUR', usdc);
    assert.equal(priced.units, 27_107_500n);
    assert.deepEqual(rates.asked, ['EUR/USD']);
    assert.equal(priced.rate, '0.92225399'); // 1 / 1.0843, to 8 decimals
  });

  it('EUR-priced USDC rounds up to the token unit: €10.01 at 1.0843333 (10.854176333 USD) is 10.854177 USDC', async () => {
    assert.equal((await convertPrice(fixedRates({ 'EUR/USD': '1.0843333' }), '10.01', 'EUR', usdc)).units, 10_854_177n);
  });

  it('JPY has no minor unit: ¥3000 at 15,000,000 JPY/BTC is 20,000 sats; "3000.5" yen is refused', async () => {
    assert.equal((await convertPrice(fixedRates({ 'BTC/JPY': '15000000' }), '3000', 'JPY', btc)).units, 20_000n);
    assert.match(priceAmountProblem('3000.5', 'JPY')!, /JPY has no decimals/);
    assert.match(priceAmountProblem('12.345', 'USD')!, /at most 2 decimals/);
    assert.equal(priceAmountProblem('12.34', 'EUR'), null);
    assert.match(priceAmountProblem('0.00', 'USD')!, /greater than 0/);
    assert.match(priceAmountProblem('-1', 'USD')!, /decimal string/);
    assert.match(priceAmountProblem('1e3', 'USD')!, /decimal string/);
  });

  it('a rate is written to 8 decimals, half up; the amount comes from the exact rate', () => {
    assert.equal(toDecimalText(ratio(2n, 3n), 8), '0.66666667');
    assert.equal(toDecimalText(ratio(97000n), 8), '97000');
    assert.equal(toDecimalText(parseDecimal('1.5e-3')!, 8), '0.0015');
  });
});

describe('the request takes exactly one of the amount field and the price pair', () => {
  const issues = (body: unknown) => {
    const result = CreateInvoiceRequest.safeParse(body);
    return result.success ? [] : result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
  };
  it('accepts either form', () => {
    assert.deepEqual(issues({ amount_sats: 1000 }), []);
    assert.deepEqual(issues({ price_amount: '25.00', price_currency: 'USD' }), []);
    assert.deepEqual(issues({ chain: 'base', price_amount: '25', price_currency: 'EUR', asset: 'usdc' }), []);
  });
  it('refuses both, neither, half a pair, an unknown currency, naming both forms', () => {
    assert.match(issues({ amount_sats: 1000, price_amount: '25', price_currency: 'USD' })[0]!, /amount_sats: send either amount_sats or price_amount with price_currency, not both/);
    assert.match(issues({})[0]!, /either amount_sats or price_amount with price_currency is required/);
    assert.match(issues({ chain: 'base' })[0]!, /either amount_usd or price_amount with price_currency/);
    assert.match(issues({ price_amount: '25' })[0]!, /price_amount and price_currency are sent together/);
    assert.match(issues({ price_amount: '25', price_currency: 'XAU' })[0]!, /^price_currency/);
    assert.match(issues({ price_amount: 25, price_currency: 'USD' })[0]!, /^price_amount/);
  });
});

describe('aggregation: median of fresh quotes within the spread, at least the minimum', () => {
  const rules = { minSources: 2, maxSpread: ratio(1n, 100n) };
  const quote = (source: string, price: string, at = 100_000): Quote => ({ source, price: parseDecimal(price)!, at });
  const now = 100_000;

  it('three that agree: their median', () => {
    const agreed = aggregate([quote('a', '100000'), quote('b', '100200'), quote('c', '100100')], now, rules);
    assert.ok(agreed.ok);
    assert.equal(toDecimalText(agreed.rate, 8), '100100');
    assert.deepEqual(agreed.sources, ['a', 'b', 'c']);
  });

  it('one lying by 20 %: ignored and named; the median of the two honest ones', () => {
    const agreed = aggregate([quote('a', '100000'), quote('b', '120000'), quote('c', '100100')], now, rules);
    assert.ok(agreed.ok);
    assert.equal(toDecimalText(agreed.rate, 8), '100050');
    assert.deepEqual(agreed.sources, ['a', 'c']);
    assert.deepEqual(agreed.outliers, ['b']);
  });

  it('two beyond the spread of the median either side: no rate', () => {
    const agreed = aggregate([quote('a', '100000'), quote('b', '105000'), quote('c', '95000')], now, rules);
    assert.equal(agreed.ok, false);
  });

  it('a quote 60 s old no longer counts; one source alone is never enough', () => {
    assert.equal(aggregate([quote('a', '100000', now - 60_000), quote('b', '100000')], now, rules).ok, false);
    assert.equal(aggregate([quote('a', '100000'), null, null], now, rules).ok, false);
    assert.ok(aggregate([quote('a', '100000', now - 59_999), quote('b', '100000')], now, rules).ok);
  });
});
