import type { Clock } from '../clock.ts';
import { readBoundedJson } from '../net/bounded-body.ts';
import type { Fetch } from '../net/fetch.ts';
import { sourceLabel } from '../net/request-budget.ts';
import { inverse, parseDecimal } from './ratio.ts';
import { TickerShapeError, type Pair, type Quote, type RateSource } from './rate-source.ts';

/** One request per pair per source at most this often, however many invoices ask: well inside every source's documented limit. */
export const ASK_INTERVAL_MS = 30_000;
/** A ticker answer is a few hundred bytes; Coinbase's exchange rates a few KB. */
const MAX_TICKER_BYTES = 64 * 1024;
const TICKER_TIMEOUT_MS = 5_000;

/** How a source's last ask went: `garbage` is an answer not in its documented shape, `error` no answer (refused, timed out, not 200). */
export type AskOutcome = 'ok' | 'garbage' | 'error';

export interface QuoteBookObserver {
  asked(source: string, outcome: AskOutcome, error?: string): void;
}

interface Entry {
  askedAt: number;
  quote: Quote | null;
  inFlight: Promise<Quote | null> | null;
}

/**
 * The last quote of each pair from each source, asked again at most once per ASK_INTERVAL_MS: the
 * invoices that want a rate meanwhile share the quote or the request under way (single flight), so
 * a burst of fiat-priced invoices costs one request per pair per source.
 */
export function createQuoteBook(deps: { fetch: Fetch; clock: Clock; observer: QuoteBookObserver }) {
  const entries = new Map<string, Entry>();

  async function ask(source: RateSource, pair: Pair): Promise<Quote | null> {
    const market = source.adapter.market(pair)!;
    const url = `${source.baseUrl}${market.path}`;
    try {
      const res = await deps.fetch(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(TICKER_TIMEOUT_MS) });
      if (res.status !== 200) {
        await res.body?.cancel().catch(() => {});
        throw new Error(`HTTP ${res.status}`);
      }
      const answer = await readBoundedJson(res, { source: sourceLabel(url), what: `GET ${market.path}`, maxBytes: MAX_TICKER_BYTES, timeoutMs: TICKER_TIMEOUT_MS });
      const price = parseDecimal(source.adapter.price(answer, pair));
      if (!price) throw new TickerShapeError('price is not decimal text');
      deps.observer.asked(source.name, 'ok');
      return { source: source.name, price: market.inverted ? inverse(price) : price, at: deps.clock.now() };
    } catch (error) {
      const outcome = error instanceof TickerShapeError || error instanceof SyntaxError ? 'garbage' : 'error';
      deps.observer.asked(source.name, outcome, error instanceof Error ? error.message : String(error));
      return null;
    }
  }

  return {
    /** The source's quote of the pair: the last one while it is younger than the ask interval, else a new one (null: none). */
    async quote(source: RateSource, pair: Pair): Promise<Quote | null> {
      const key = `${source.name}\n${pair}`;
      const now = deps.clock.now();
      let entry = entries.get(key);
      if (entry?.inFlight) return entry.inFlight;
      if (entry && now - entry.askedAt < ASK_INTERVAL_MS) return entry.quote;
      entry = { askedAt: now, quote: entry?.quote ?? null, inFlight: null };
      entries.set(key, entry);
      const asked = entry;
      asked.inFlight = ask(source, pair).then((quote) => {
        // A failed ask keeps the last quote: freshness decides whether it still counts.
        if (quote) asked.quote = quote;
        asked.inFlight = null;
        return asked.quote;
      });
      return asked.inFlight;
    },
    /** When the pair may next be asked of any source that lists it (for Retry-After). */
    nextAskAt(sources: readonly RateSource[], pair: Pair): number {
      const times = sources.map((source) => (entries.get(`${source.name}\n${pair}`)?.askedAt ?? -Infinity) + ASK_INTERVAL_MS);
      return Math.min(...times);
    },
  };
}

export type QuoteBook = ReturnType<typeof createQuoteBook>;
