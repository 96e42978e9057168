import { abs, add, compare, mul, ratio, sub, type Ratio } from './ratio.ts';
import type { Quote } from './rate-source.ts';

/** A quote older than this does not count. */
export const QUOTE_FRESH_MS = 60_000;

export interface AggregateRules {
  /** RATE_MIN_SOURCES: fresh quotes that must agree. */
  minSources: number;
  /** RATE_MAX_SPREAD as a fraction (0.01 for 1 %): how far from the median a quote may lie and still count. */
  maxSpread: Ratio;
}

export type Aggregate =
  | { ok: true; rate: Ratio; sources: string[]; outliers: string[]; at: number }
  | { ok: false; why: string; outliers: string[] };

export function median(values: readonly Ratio[]): Ratio {
  const sorted = [...values].sort(compare);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : mul(add(sorted[middle - 1]!, sorted[middle]!), ratio(1n, 2n));
}

/**
 * The rate no single source sets: of the fresh quotes, those within maxSpread of their median count,
 * the others are outliers; with at least minSources counted, the rate is the median of those.
 * One source alone can neither move it (its quote is outvoted or dropped) nor stop it while
 * minSources others agree.
 */
export function aggregate(quotes: readonly (Quote | null)[], now: number, rules: AggregateRules): Aggregate {
  const fresh = quotes.filter((quote): quote is Quote => quote !== null && now - quote.at < QUOTE_FRESH_MS);
  if (fresh.length < rules.minSources) return { ok: false, why: `${fresh.length} fresh quote(s), ${rules.minSources} needed`, outliers: [] };
  const middle = median(fresh.map((quote) => quote.price));
  const allowed = mul(middle, rules.maxSpread);
  const within = (quote: Quote) => compare(abs(sub(quote.price, middle)), allowed) <= 0;
  const counted = fresh.filter(within);
  const outliers = fresh.filter((quote) => !within(quote)).map((quote) => quote.source);
  if (counted.length < rules.minSources) {
    return { ok: false, why: `${counted.length} of ${fresh.length} fresh quotes within the spread of their median, ${rules.minSources} needed`, outliers };
  }
  return {
    ok: true,
    rate: median(counted.map((quote) => quote.price)),
    sources: counted.map((quote) => quote.source).sort(),
    outliers,
    at: Math.min(...counted.map((quote) => quote.at)),
  };
}
