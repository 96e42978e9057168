import type { TickerAdapter } from '../rate-source.ts';
import { bitstamp } from './bitstamp.ts';
import { coinbase } from './coinbase.ts';
import { gemini } from './gemini.ts';
import { kraken } from './kraken.ts';

/** The built-in ticker adapters, by the name RATE_SOURCES uses. */
export const tickerAdapters: Readonly<Record<string, TickerAdapter>> = { kraken, coinbase, bitstamp, gemini };
