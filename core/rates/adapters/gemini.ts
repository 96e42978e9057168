import { field, priceText, sidesOf, type Market, type Pair, type TickerAdapter } from '../rate-source.ts';

/** The markets Gemini lists of the pairs a price needs. */
const markets = new Set(['btcusd', 'btceur', 'btcgbp']);

/**
 * Gemini's public REST API v1: `GET /v1/pubticker/btcusd` answers
 * `{"bid":"…","ask":"…","last":"<price>","volume":{…}}`. Public endpoints allow 120 requests a
 * minute per IP.
 */
export const gemini: TickerAdapter = {
  name: 'gemini',
  defaultBaseUrl: 'https://api.gemini.com',
  market(pair: Pair): Market | null {
    const symbol = sidesOf(pair).join('').toLowerCase();
    return markets.has(symbol) ? { path: `/v1/pubticker/${symbol}`, inverted: false } : null;
  },
  price(answer) {
    return priceText(field(answer, 'last'), 'gemini last');
  },
};
