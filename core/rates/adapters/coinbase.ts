import { field, priceText, sidesOf, TickerShapeError, type Market, type Pair, type TickerAdapter } from '../rate-source.ts';

const fiat = new Set(['USD', 'EUR', 'GBP', 'CHF', 'CAD', 'AUD', 'JPY']);

/**
 * Coinbase's public data API (v2, no key): `GET /v2/prices/BTC-USD/spot` answers
 * `{"data":{"amount":"<price>","base":"BTC","currency":"USD"}}` for bitcoin in any fiat currency,
 * and `GET /v2/exchange-rates?currency=EUR` answers `{"data":{"currency":"EUR","rates":{"USD":"<dollars per euro>",…}}}`
 * for the fiat crosses. Public endpoints allow 10,000 calls an hour per IP.
 */
export const coinbase: TickerAdapter = {
  name: 'coinbase',
  defaultBaseUrl: 'https://api.coinbase.com',
  market(pair: Pair): Market | null {
    const [base, quote] = sidesOf(pair);
    if (base === 'BTC' && fiat.has(quote)) return { path: `/v2/prices/${base}-${quote}/spot`, inverted: false };
    if (fiat.has(base) && quote === 'USD') return { path: `/v2/exchange-rates?currency=${base}`, inverted: false };
    return null;
  },
  price(answer, pair) {
    const [base, quote] = sidesOf(pair);
    const data = field(answer, 'data');
    if (base === 'BTC') {
      // Coinbase names the pair's first currency `base`.
      const answered = data as { base?: unknown; currency?: unknown };
      if (answered.base !== base || field(data, 'currency') !== quote) throw new TickerShapeError(`coinbase answered another pair than ${pair}`);
      return priceText(field(data, 'amount'), 'coinbase data.amount');
    }
    if (field(data, 'currency') !== base) throw new TickerShapeError(`coinbase answered rates of another currency than ${base}`);
    return priceText(field(field(data, 'rates'), quote), `coinbase data.rates.${quote}`);
  },
};
