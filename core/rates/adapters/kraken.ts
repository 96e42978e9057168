import { field, priceText, sidesOf, TickerShapeError, type Market, type Pair, type TickerAdapter } from '../rate-source.ts';

/** Kraken names bitcoin XBT. */
const krakenAsset = (asset: string) => (asset === 'BTC' ? 'XBT' : asset);

/** Bitcoin against each of these; the fiat crosses Kraken lists, some the other way round (USDJPY). */
const bitcoinQuotes = new Set(['USD', 'EUR', 'GBP', 'CHF', 'CAD', 'AUD', 'JPY']);
const fiatPerUsd = new Set(['EUR', 'GBP', 'AUD']);
const usdPerFiat = new Set(['CHF', 'CAD', 'JPY']);

/**
 * Kraken's public REST API: `GET /0/public/Ticker?pair=XBTUSD` answers
 * `{"error":[],"result":{"XXBTZUSD":{"c":["<last price>","<lot volume>"],…}}}`, the result keyed
 * by Kraken's own name of the pair (not the one asked), so its one entry is taken whatever its key.
 * Public endpoints allow about one call a second per IP.
 */
export const kraken: TickerAdapter = {
  name: 'kraken',
  defaultBaseUrl: 'https://api.kraken.com',
  market(pair: Pair): Market | null {
    const [base, quote] = sidesOf(pair);
    const ticker = (symbol: string, inverted: boolean): Market => ({ path: `/0/public/Ticker?pair=${symbol}`, inverted });
    if (base === 'BTC' && bitcoinQuotes.has(quote)) return ticker(`${krakenAsset(base)}${quote}`, false);
    if (quote === 'USD' && fiatPerUsd.has(base)) return ticker(`${base}USD`, false);
    if (quote === 'USD' && usdPerFiat.has(base)) return ticker(`USD${base}`, true);
    return null;
  },
  price(answer) {
    const errors = field(answer, 'error');
    if (!Array.isArray(errors) || errors.length > 0) throw new TickerShapeError(`kraken answered error ${JSON.stringify(errors)}`.slice(0, 200));
    const result = field(answer, 'result');
    const entries = typeof result === 'object' && result !== null ? Object.values(result) : [];
    if (entries.length !== 1) throw new TickerShapeError('kraken result does not hold one pair');
    const last = field(entries[0], 'c');
    if (!Array.isArray(last)) throw new TickerShapeError('kraken c is not an array');
    return priceText(last[0], 'kraken c[0]');
  },
};
