import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inverse, parseDecimal, toDecimalText } from '../core/rates/ratio.ts';

/** How the server answers: as the exchange does, multiplied by `lieFactor`; `down`: 503, as an exchange behind an outage; `garbage`: an HTML error page. */
export type TickerMode = 'ok' | 'down' | 'garbage';

export interface LocalTickers {
  /** The base URL, as RATE_SOURCES takes it (`kraken=<url>`). */
  readonly url: string;
  /** Sets a rate, `BASE/QUOTE` ("BTC/USD" dollars per bitcoin, "EUR/USD" dollars per euro), as decimal text. */
  setRate(pair: string, value: string): void;
  /** From now on every price is multiplied by this (1.2: the source lies 20 % high); 1: honest. */
  lie(factor: number): void;
  setMode(mode: TickerMode): void;
  /** Ticker requests answered so far, by path and query ("/0/public/Ticker?pair=XBTUSD"). */
  requests(): Map<string, number>;
  close(): Promise<void>;
}

/**
 * A local server answering the public ticker APIs of Kraken, Coinbase, Bitstamp and Gemini in
 * their documented shapes (their paths do not overlap, so one server serves all four), from rates
 * set by hand: the sandbox's rate source, and the tests' stand-in for each exchange, which can move
 * a rate, lie, fall silent or answer garbage.
 */
export async function startLocalTickers(options: { rates?: Record<string, string>; host?: string } = {}): Promise<LocalTickers> {
  const rates = new Map(Object.entries(options.rates ?? {}));
  const counts = new Map<string, number>();
  let factor = 1;
  let mode: TickerMode = 'ok';

  /** The price of `base` in `quote` as decimal text, from the pair or its inverse; null when neither is set. */
  const price = (base: string, quote: string): string | null => {
    const direct = rates.get(`${base}/${quote}`);
    const reverse = rates.get(`${quote}/${base}`);
    const value = direct !== undefined ? parseDecimal(direct) : reverse !== undefined ? inverse(parseDecimal(reverse)!) : null;
    if (!value) return null;
    const lied = factor === 1 ? value : { n: value.n * BigInt(Math.round(factor * 1_000_000)), d: value.d * 1_000_000n };
    return toDecimalText(lied, 8);
  };

  function answer(url: URL): unknown {
    const kraken = url.pathname === '/0/public/Ticker' && /^(XBT|[A-Z]{3})([A-Z]{3})$/.exec(url.searchParams.get('pair') ?? '');
    if (kraken) {
      const [base, quote] = [kraken[1] === 'XBT' ? 'BTC' : kraken[1]!, kraken[2]!];
      const last = price(base, quote);
      if (!last) return { error: ['EQuery:Unknown asset pair'] };
      const key = `${kraken[1] === 'XBT' ? 'XXBT' : `Z${base}`}Z${quote}`;
      return { error: [], result: { [key]: { a: [last, '1', '1.000'], b: [last, '1', '1.000'], c: [last, '0.01000000'], v: ['100', '1000'], p: [last, last], t: [10, 100], l: [last, last], h: [last, last], o: last } } };
    }
    const spot = /^\/v2\/prices\/([A-Z]+)-([A-Z]+)\/spot$/.exec(url.pathname);
    if (spot) {
      const amount = price(spot[1]!, spot[2]!);
      return amount ? { data: { amount, base: spot[1], currency: spot[2] } } : { errors: [{ id: 'not_found', message: 'Invalid currency' }] };
    }
    if (url.pathname === '/v2/exchange-rates') {
      const currency = url.searchParams.get('currency') ?? 'USD';
      const quotes = ['USD', 'EUR', 'GBP', 'CHF', 'CAD', 'AUD', 'JPY'].flatMap((other) => (other === currency ? [] : [[other, price(currency, other)] as const])).filter(([, rate]) => rate);
      return { data: { currency, rates: Object.fromEntries(quotes) } };
    }
    const bitstamp = /^\/api\/v2\/ticker\/([a-z]{3})([a-z]{3})\/$/.exec(url.pathname);
    if (bitstamp) {
      const last = price(bitstamp[1]!.toUpperCase(), bitstamp[2]!.toUpperCase());
      if (!last) return { errors: [{ message: 'Invalid market' }] };
      return { timestamp: String(Math.floor(Date.now() / 1000)), open: last, high: last, low: last, last, volume: '100.0', vwap: last, bid: last, ask: last, side: '0', open_24: last, percent_change_24: '0.00' };
    }
    const gemini = /^\/v1\/pubticker\/([a-z]{3})([a-z]{3})$/.exec(url.pathname);
    if (gemini) {
      const last = price(gemini[1]!.toUpperCase(), gemini[2]!.toUpperCase());
      return last ? { bid: last, ask: last, last, volume: { timestamp: Date.now() } } : { result: 'error', reason: 'Bad Request' };
    }
    return null;
  }

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://local');
    const key = `${url.pathname}${url.search}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
    if (mode === 'down') return res.writeHead(503, { 'content-type': 'text/plain' }).end('Service Unavailable');
    if (mode === 'garbage') return res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>Cloudflare: checking your browser</body></html>');
    const body = answer(url);
    if (body === null) return res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, options.host ?? '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    setRate: (pair, value) => void rates.set(pair, value),
    lie: (f) => void (factor = f),
    setMode: (m) => void (mode = m),
    requests: () => new Map(counts),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
