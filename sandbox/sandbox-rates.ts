import type { Env } from '../edge/settings.ts';
import { SandboxRefusal } from './local-evm.ts';
import { startLocalTickers, type LocalTickers } from './local-tickers.ts';

/**
 * The sandbox's made-up exchange rates, roughly those of late 2026: bitcoin in every accepted
 * currency, and each currency in dollars (for stablecoin invoices priced in it).
 */
export const SANDBOX_RATES: Readonly<Record<string, string>> = {
  'BTC/USD': '100000',
  'BTC/EUR': '92000',
  'BTC/GBP': '79000',
  'BTC/CHF': '88000',
  'BTC/CAD': '140000',
  'BTC/AUD': '155000',
  'BTC/JPY': '15000000',
  'EUR/USD': '1.087',
  'GBP/USD': '1.266',
  'CHF/USD': '1.136',
  'CAD/USD': '0.714',
  'AUD/USD': '0.645',
  'JPY/USD': '0.00667',
};

const SOURCES = ['kraken', 'coinbase', 'bitstamp'] as const;

/**
 * The sandbox's rate sources: three local servers answering as Kraken, Coinbase and Bitstamp do,
 * named `sandbox-kraken`, `sandbox-coinbase` and `sandbox-bitstamp` (on /health, in `rate_sources`,
 * and on the checkout page, which says the rate is the sandbox's), unless RATE_SOURCES names
 * sources of the user's own. Its control actions move a rate on all three (`rates/set`) or make one
 * lie (`rates/lie`), to try what the service does with a source that lies.
 */
export async function startSandboxRates(env: Env): Promise<{ tickers: LocalTickers[]; env: Env; control: Record<string, (input: Record<string, unknown>) => Promise<unknown>> }> {
  if (env.RATE_SOURCES?.trim()) return { tickers: [], env: {}, control: {} };
  const tickers = await Promise.all(SOURCES.map(() => startLocalTickers({ rates: { ...SANDBOX_RATES } })));
  const sources = SOURCES.map((name, i) => `sandbox-${name}=${tickers[i]!.url}`).join(',');
  return {
    tickers,
    env: { RATE_SOURCES: sources },
    control: {
      'rates/set': async (input) => {
        if (typeof input.pair !== 'string' || !/^[A-Z]{3}\/[A-Z]{3}$/.test(input.pair) || typeof input.value !== 'string' || !/^\d+(\.\d+)?$/.test(input.value)) {
          throw new SandboxRefusal('give pair ("BTC/USD") and value (decimal text)');
        }
        for (const source of tickers) source.setRate(input.pair, input.value);
        return { [input.pair]: input.value };
      },
      'rates/lie': async (input) => {
        const factor = Number(input.factor);
        const index = SOURCES.indexOf(String(input.source) as (typeof SOURCES)[number]);
        if (index < 0 || !(factor > 0 && factor < 100)) throw new SandboxRefusal(`give source (${SOURCES.join(', ')}) and factor, a number above 0 (1: honest, 1.2: 20 % high)`);
        tickers[index]!.lie(factor);
        return { source: `sandbox-${SOURCES[index]}`, factor };
      },
    },
  };
}
