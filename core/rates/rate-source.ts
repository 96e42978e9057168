import type { Ratio } from './ratio.ts';

/**
 * A market a rate is read from: `BASE/QUOTE`, the price of one BASE in QUOTE ("BTC/USD": dollars
 * per bitcoin; "EUR/USD": dollars per euro).
 */
export type Pair = `${string}/${string}`;

export const pairOf = (base: string, quote: string): Pair => `${base}/${quote}`;
export const sidesOf = (pair: Pair): [string, string] => pair.split('/') as [string, string];

/** Where a source lists a pair: the path of its ticker, and whether it quotes the pair the other way round (USD/JPY for JPY/USD). */
export interface Market {
  path: string;
  inverted: boolean;
}

/**
 * One public ticker API, in its documented shape: which markets it lists and how its answer gives
 * the last price. An adapter reads; the quote book decides when to ask and the aggregation whom to
 * believe.
 */
export interface TickerAdapter {
  /** The name RATE_SOURCES uses. */
  name: string;
  /** Its public API's base URL; RATE_SOURCES may name a mirror (`kraken=http://…`). */
  defaultBaseUrl: string;
  /** The market of `pair` under the base URL, or null when the source lists none. */
  market(pair: Pair): Market | null;
  /** The last price in its answer to the market of `pair`, as decimal text; throws TickerShapeError for any other answer. */
  price(answer: unknown, pair: Pair): string;
}

/** An answer that is not the source's documented shape, or holds no usable price. */
export class TickerShapeError extends Error {}

/** A source as configured: its adapter, under a name, at a base URL. */
export interface RateSource {
  /** The name quotes are credited to (`rate_sources`, /health, the metrics). */
  name: string;
  adapter: TickerAdapter;
  baseUrl: string;
}

/** One source's price of a pair, and when it was read. */
export interface Quote {
  source: string;
  price: Ratio;
  at: number;
}

/** Reads `record[key]` of an answer that must be an object. */
export function field(answer: unknown, key: string): unknown {
  if (typeof answer !== 'object' || answer === null || Array.isArray(answer)) throw new TickerShapeError(`expected an object with "${key}"`);
  return (answer as Record<string, unknown>)[key];
}

/** A price field: decimal text (or a JSON number, as Bitfinex answers) above zero. */
export function priceText(value: unknown, what: string): string {
  const text = typeof value === 'number' && Number.isFinite(value) ? String(value) : value;
  if (typeof text !== 'string' || !/^\d+(\.\d+)?(e[+-]?\d+)?$/i.test(text) || !/[1-9]/.test(text.split(/e/i)[0]!)) {
    throw new TickerShapeError(`${what} is not a positive decimal`);
  }
  return text;
}
