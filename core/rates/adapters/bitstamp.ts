import { field, priceText, sidesOf, type Market, type Pair, type TickerAdapter } from '../rate-source.ts';

/** The markets Bitstamp lists of the pairs a price needs. */
const markets = new Set(['btcusd', 'btceur', 'btcgbp', 'eurusd', 'gbpusd']);

/**
 * Bitstamp's public HTTP API v2: `GET /api/v2/ticker/btcusd/` answers
 * `{"last":"<price>","bid":…,"ask":…,"timestamp":"<unix s>",…}`. Its limit is 400 requests a
 * second, 10,000 per 10 minutes, per client.
 */
export const bitstamp: TickerAdapter = {
  name: 'bitstamp',
  defaultBaseUrl: 'https://www.bitstamp.net',
  market(pair: Pair): Market | null {
    const symbol = sidesOf(pair).join('').toLowerCase();
    return markets.has(symbol) ? { path: `/api/v2/ticker/${symbol}/`, inverted: false } : null;
  },
  price(answer) {
    return priceText(field(answer, 'last'), 'bitstamp last');
  },
};
