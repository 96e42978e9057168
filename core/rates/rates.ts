import type { RateSourceHealth } from '../../shared/index.ts';
import type { Clock } from '../clock.ts';
import { ServiceError } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { ServiceMetrics } from '../metrics.ts';
import type { Fetch } from '../net/fetch.ts';
import { sourceLabel } from '../net/request-budget.ts';
import { aggregate, type AggregateRules } from './aggregate.ts';
import { createQuoteBook, type AskOutcome } from './quote-book.ts';
import { toDecimalText, type Ratio } from './ratio.ts';
import type { Pair, RateSource } from './rate-source.ts';

export interface RateSettings extends AggregateRules {
  sources: readonly RateSource[];
}

/** A rate the sources agree on, as an invoice records it. */
export interface AgreedRate {
  rate: Ratio;
  sources: string[];
  at: number;
}

interface SourceState {
  state: RateSourceHealth['state'];
  problem: string | null;
  lastQuoteAt: number | null;
  requests: number;
}

const MAX_RETRY_AFTER_S = 30;

/**
 * Exchange rates no single source sets: each pair asked of every source that lists it (through the
 * quote book's budget), agreed by median, spread and quorum (aggregate), each source's standing
 * kept for /health and the metrics.
 */
export function createRates(deps: { settings: RateSettings; fetch: Fetch; clock: Clock; logger: Logger; metrics?: ServiceMetrics }) {
  const { settings, clock, logger, metrics } = deps;
  const states = new Map<string, SourceState>(settings.sources.map((source) => [source.name, { state: 'idle', problem: null, lastQuoteAt: null, requests: 0 }]));
  const counted = new WeakSet<object>();
  const book = createQuoteBook({
    fetch: deps.fetch,
    clock,
    observer: {
      asked(source: string, outcome: AskOutcome, error?: string) {
        const state = states.get(source)!;
        state.requests++;
        metrics?.rateSourceAsks.inc({ source, outcome });
        if (outcome === 'ok') Object.assign(state, { state: 'ok', problem: null, lastQuoteAt: clock.now() });
        else {
          Object.assign(state, { state: outcome === 'garbage' ? 'garbage' : 'silent', problem: error ?? null });
          logger.warn('rate source failed', { source, outcome, error });
        }
      },
    },
  });

  return {
    /** The agreed price of one BASE in QUOTE; throws `rate_unavailable` (503, Retry-After) when the sources do not agree. */
    async rate(pair: Pair): Promise<AgreedRate> {
      const listing = settings.sources.filter((source) => source.adapter.market(pair));
      const quotes = await Promise.all(listing.map((source) => book.quote(source, pair)));
      const agreed = aggregate(quotes, clock.now(), settings);
      for (const quote of quotes) {
        if (!quote || !agreed.outliers.includes(quote.source) || counted.has(quote)) continue;
        // Counted once per quote, however many invoices it was set aside for.
        counted.add(quote);
        metrics?.rateSourceOutliers.inc({ source: quote.source });
        Object.assign(states.get(quote.source)!, { state: 'outlier', problem: `${pair} quoted ${toDecimalText(quote.price, 8)}, beyond the spread of the others' median` });
      }
      if (agreed.ok) return { rate: agreed.rate, sources: agreed.sources, at: agreed.at };
      const retryAfterS = Math.min(MAX_RETRY_AFTER_S, Math.max(1, Math.ceil((book.nextAskAt(listing, pair) - clock.now()) / 1000)));
      logger.warn('no agreed rate', { pair, why: agreed.why });
      throw new ServiceError('rate_unavailable', `No exchange rate for ${pair} right now (${agreed.why}); retry in ${retryAfterS} s. Invoices in the asset's own amount still work.`, { retryAfterS });
    },
    health(): RateSourceHealth[] {
      return settings.sources.map((source) => {
        const state = states.get(source.name)!;
        return {
          name: source.name,
          url: sourceLabel(source.baseUrl),
          state: state.state,
          problem: state.problem,
          last_quote_at: state.lastQuoteAt === null ? null : new Date(state.lastQuoteAt).toISOString(),
          requests: state.requests,
        };
      });
    },
  };
}

export type Rates = ReturnType<typeof createRates>;
