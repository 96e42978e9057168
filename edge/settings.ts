import * as z from 'zod';
import { DEFAULT_DATABASE_WAIT_S } from '../core/db/wait-for-database.ts';
import type { Env } from './environment.ts';

export { readEnvironment, type Env } from './environment.ts';
export { blankToUndefined, describeSettingIssue, httpUrlListSetting, parseSettings, wholeNumber } from '../core/settings.ts';
import { blankToUndefined, wholeNumber } from '../core/settings.ts';
import { tickerAdapters } from '../core/rates/adapters/index.ts';
import { div, parseDecimal, ratio } from '../core/rates/ratio.ts';
import type { RateSource } from '../core/rates/rate-source.ts';
import type { RateSettings } from '../core/rates/rates.ts';

/**
 * The settings both editions read alike, and how a setting is parsed and refused: every problem
 * named by its setting, all reported together, a secret never echoed.
 */


export interface RateLimitConfig {
  perClient: number;
  overall: number;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}


/**
 * MCP_ALLOWED_ORIGINS: comma-separated browser origins (`https://app.example.com`) that may call the
 * MCP endpoint. Empty (the default): no browser page may; clients that send no Origin always can.
 */
export const mcpAllowedOriginsSetting = z.preprocess(
  blankToUndefined,
  z
    .string()
    .default('')
    .transform((text) => text.split(',').map((origin) => origin.trim()).filter(Boolean))
    .refine((origins) => origins.every((origin) => URL.canParse(origin) && new URL(origin).origin === origin), 'must be comma-separated origins such as https://app.example.com'),
);

/** METRICS_TOKEN: a bearer token of 16 or more characters for GET /metrics from other hosts; unset, loopback only. */

export const metricsTokenSetting = z.preprocess(blankToUndefined, z.string().min(16, 'must be at least 16 characters').optional());

/**
 * PUBLIC_URL: the origin (and optional path prefix) clients reach the server at, behind a proxy
 * (`https://pay.example.com`): the OAuth issuer and the MCP endpoint's canonical URL are built on it.
 */
export const publicUrlSetting = z.preprocess(
  blankToUndefined,
  z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL such as https://pay.example.com' })
    .refine((text) => { const url = new URL(text); return !url.search && !url.hash && !url.username; }, 'must have no query, fragment or credentials')
    .transform((url) => url.replace(/\/+$/, ''))
    .optional(),
);

/**
 * Whether the server's cookies carry `Secure`: as PUBLIC_URL's scheme says, never as a request
 * says (a proxy on this host passes a loopback Host and plain http). Without PUBLIC_URL, Secure
 * unless the server listens on loopback only (development on this machine, over plain http).
 */
export function secureCookies(publicUrl: string | null, onLoopback: boolean): boolean {
  return publicUrl ? new URL(publicUrl).protocol === 'https:' : !onLoopback;
}

/**
 * The HTTP server's bounds and the checkout event streams', both editions (docs/security.md):
 * connections at most, how long a client may take to send its headers and its whole request, and
 * the live streams of the checkout page, per client address, in total and in lifetime.
 */
export interface HttpBounds {
  /**
   * HTTP_MAX_CONNECTIONS: open connections at most; a connection beyond it is closed at once. The
   * default leaves room for every MCP session's stream (MCP_MAX_SESSIONS, 1000) and every checkout
   * stream (CHECKOUT_STREAMS_MAX, 500) besides the API's requests.
   */
  maxConnections: number;
  /** HTTP_HEADERS_TIMEOUT_S: a request whose headers are not all in by then gets 400 `bad_body` and is closed. */
  headersTimeoutMs: number;
  /** HTTP_REQUEST_TIMEOUT_S: a request (headers and body) not all in by then gets 400 `bad_body` and is closed. */
  requestTimeoutMs: number;
  /** CHECKOUT_STREAMS_PER_CLIENT: open checkout event streams per client address. */
  streamsPerClient: number;
  /** CHECKOUT_STREAMS_MAX: open checkout event streams in total on this server. */
  streamsTotal: number;
  /** CHECKOUT_STREAM_MAX_S: a stream's lifetime; then the server ends it and the page opens a new one. */
  streamMaxMs: number;
}

export const httpBoundSettings = {
  HTTP_MAX_CONNECTIONS: z.preprocess(blankToUndefined, wholeNumber(10, 1_000_000).default(4_000)),
  HTTP_HEADERS_TIMEOUT_S: z.preprocess(blankToUndefined, wholeNumber(1, 600).default(20)),
  HTTP_REQUEST_TIMEOUT_S: z.preprocess(blankToUndefined, wholeNumber(1, 3_600).default(60)),
  CHECKOUT_STREAMS_PER_CLIENT: z.preprocess(blankToUndefined, wholeNumber(1, 100_000).default(20)),
  CHECKOUT_STREAMS_MAX: z.preprocess(blankToUndefined, wholeNumber(1, 1_000_000).default(500)),
  CHECKOUT_STREAM_MAX_S: z.preprocess(blankToUndefined, wholeNumber(1, 86_400).default(300)),
};
export const httpBoundSettingNames = Object.keys(httpBoundSettings) as (keyof typeof httpBoundSettings)[];

/** The bounds from the parsed settings; a headers timeout over the request timeout is a problem. */
export function httpBoundsOf(raw: z.infer<z.ZodObject<typeof httpBoundSettings>>, problems: string[]): HttpBounds {
  if (raw.HTTP_HEADERS_TIMEOUT_S > raw.HTTP_REQUEST_TIMEOUT_S) {
    problems.push(`HTTP_HEADERS_TIMEOUT_S (${raw.HTTP_HEADERS_TIMEOUT_S}) must not exceed HTTP_REQUEST_TIMEOUT_S (${raw.HTTP_REQUEST_TIMEOUT_S})`);
  }
  return {
    maxConnections: raw.HTTP_MAX_CONNECTIONS,
    headersTimeoutMs: raw.HTTP_HEADERS_TIMEOUT_S * 1_000,
    requestTimeoutMs: raw.HTTP_REQUEST_TIMEOUT_S * 1_000,
    streamsPerClient: raw.CHECKOUT_STREAMS_PER_CLIENT,
    streamsTotal: raw.CHECKOUT_STREAMS_MAX,
    streamMaxMs: raw.CHECKOUT_STREAM_MAX_S * 1_000,
  };
}

/**
 * A start that cannot go on (the port cannot be bound): one line naming what to change. The CLI
 * prints it and the process ends, before anything else has started.
 */
export class StartFailure extends Error {}

/** MCP_MAX_SESSIONS: open MCP sessions at most, each a few kilobytes of memory (default 1000). */
export const mcpMaxSessionsSetting = z.preprocess(blankToUndefined, wholeNumber(1, 100_000).default(1_000));

/**
 * MCP_STATE_SECRET: what MCP seals across requests (2026-07-28 tasks, the checkout hand-off's
 * rounds) is sealed with keys from it; every instance of a deployment needs the same one. Unset: a
 * random secret of the process (enough for one listener; its tasks end with the process).
 */
export const mcpStateSecretSetting = z.preprocess(blankToUndefined, z.string().min(32, 'must be at least 32 characters').optional());

/**
 * MCP_MAX_LISTEN_STREAMS: open 2026-07-28 `subscriptions/listen` streams at most (default 1000),
 * each an open HTTP response; per owner they count against MCP_MAX_SESSIONS_PER_OWNER.
 */
export const mcpMaxListenStreamsSetting = z.preprocess(blankToUndefined, wholeNumber(1, 100_000).default(1_000));

/**
 * MCP_MAX_SESSIONS_PER_OWNER: open MCP sessions at most per merchant (Cloud) or per credential
 * (listener: the key, each OAuth grant), default 100: one owner cannot take the sessions of all.
 */
export const mcpMaxSessionsPerOwnerSetting = z.preprocess(blankToUndefined, wholeNumber(1, 100_000).default(100));

/**
 * MCP_LISTEN_STREAM_MAX_S: a 2026-07-28 `subscriptions/listen` stream's lifetime (default 600 s);
 * then the server ends it and its client listens again, as a checkout stream at CHECKOUT_STREAM_MAX_S.
 */
export const mcpListenStreamMaxSSetting = z.preprocess(blankToUndefined, wholeNumber(1, 86_400).default(600));

/** MCP sessions started per minute by one owner, and from one client address. */
export interface InitializeRateLimit {
  perOwner: number;
  perAddress: number;
}

/**
 * MCP_INITIALIZE_RATE_LIMIT: MCP sessions started per minute, `<per owner>` or `<per owner>,<per
 * address>` (default 60,600; a single number allows ten times as many per address, where the
 * users of one agent platform or NAT share addresses); `off`: unlimited.
 */
export const mcpInitializeRateLimitSetting = z.preprocess(
  blankToUndefined,
  z
    .string()
    .default('60,600')
    .refine((text) => text === 'off' || /^[1-9]\d{0,6}(,[1-9]\d{0,6})?$/.test(text), 'must be off, <per owner> or <per owner>,<per address> per minute, e.g. 60,600')
    .transform((text): InitializeRateLimit | null => {
      if (text === 'off') return null;
      const [perOwner, perAddress] = text.split(',').map(Number) as [number, number | undefined];
      return { perOwner, perAddress: perAddress ?? perOwner * 10 };
    }),
);

export function parseRateLimit(text: string): RateLimitConfig | null {
  if (text === 'off') return null;
  const match = /^(\d+)(?:,(\d+))?$/.exec(text);
  if (!match) throw new Error('must be "off", "<per client>" or "<per client>,<overall>" per minute, e.g. 30,300');
  const perClient = Number(match[1]);
  const overall = match[2] === undefined ? Math.max(300, perClient) : Number(match[2]);
  if (perClient < 1 || overall < 1) throw new Error('limits must be at least 1 per minute');
  return { perClient, overall };
}

/** X402_RATE_LIMIT, both editions: requests to the public x402 URLs per client IP and overall, per minute (default 60,600; `off`). */
export const x402RateLimitSetting = z.preprocess(blankToUndefined, z.string().default('60,600'));

/** X402_RATE_LIMIT as a rate limit, both editions; a bad value is added to `problems`. */
export function x402RateLimitOf(text: string, problems: string[]): RateLimitConfig | null {
  try {
    return parseRateLimit(text);
  } catch (error) {
    problems.push(`X402_RATE_LIMIT ${(error as Error).message}`);
    return null;
  }
}

/** DATABASE_WAIT_S, both editions: seconds to wait at start for an unreachable database (0: give up at once). */
export const databaseWaitSetting = z.preprocess(blankToUndefined, z.coerce.number().int().min(0).max(86_400).default(DEFAULT_DATABASE_WAIT_S));


/** RATE_SOURCES by default: three public ticker APIs, no key needed. */
export const DEFAULT_RATE_SOURCES = 'kraken,coinbase,bitstamp';

/**
 * The exchange rate settings: RATE_SOURCES (comma-separated adapter names, each optionally
 * `name=base_url` for a mirror or a local server and after a label, `label-name`; `off`: no fiat prices), RATE_MIN_SOURCES
 * (fresh quotes that must agree, default 2) and RATE_MAX_SPREAD (how far from the median a quote
 * may lie, in percent, default 1 %).
 */
export const rateSettingsShape = {
  RATE_SOURCES: z.preprocess(blankToUndefined, z.string().default(DEFAULT_RATE_SOURCES)),
  RATE_MIN_SOURCES: z.preprocess(blankToUndefined, wholeNumber(1, 10).default(2)),
  RATE_MAX_SPREAD: z.preprocess(
    blankToUndefined,
    z
      .string()
      .regex(/^\d{1,2}(\.\d{1,4})?\s*%?$/, 'must be a percentage such as 1% or 0.5')
      .refine((text) => { const value = Number.parseFloat(text); return value > 0 && value <= 50; }, 'must be above 0 % and at most 50 %')
      .default('1%'),
  ),
};

export const rateSettingNames = Object.keys(rateSettingsShape) as (keyof typeof rateSettingsShape)[];

/** The rate settings as the engine takes them; null when RATE_SOURCES is `off`. Problems are named by their setting. */
export function rateSettingsOf(raw: z.infer<z.ZodObject<typeof rateSettingsShape>>, problems: string[]): RateSettings | null {
  if (raw.RATE_SOURCES.trim() === 'off') return null;
  const sources: RateSource[] = [];
  for (const entry of raw.RATE_SOURCES.split(',').map((part) => part.trim()).filter(Boolean)) {
    const [name = '', url] = entry.split(/=(.*)/s, 2).map((part) => part.trim());
    // A label may come before the adapter's name (`sandbox-kraken`, `eu-kraken`): the source is named so.
    const adapterName = /^(?:[a-z0-9]+-)?([a-z0-9]+)$/.exec(name)?.[1] ?? '';
    const adapter = Object.hasOwn(tickerAdapters, adapterName) ? tickerAdapters[adapterName] : undefined;
    if (!adapter) {
      problems.push(`RATE_SOURCES names "${name}", which is none of ${Object.keys(tickerAdapters).join(', ')} (each optionally after a label: sandbox-kraken), or off`);
      continue;
    }
    if (url !== undefined && !/^https?:\/\/[^/\s?#]+(\/[^\s?#]*)?$/.test(url)) {
      problems.push(`RATE_SOURCES gives ${name} "${url}", which is not an http(s) base URL`);
      continue;
    }
    if (sources.some((source) => source.name === name)) problems.push(`RATE_SOURCES names ${name} twice`);
    else sources.push({ name, adapter, baseUrl: (url ?? adapter.defaultBaseUrl).replace(/\/+$/, '') });
  }
  if (sources.length && raw.RATE_MIN_SOURCES > sources.length) {
    problems.push(`RATE_MIN_SOURCES is ${raw.RATE_MIN_SOURCES}, more than the ${sources.length} source(s) RATE_SOURCES names`);
  }
  const percent = parseDecimal(raw.RATE_MAX_SPREAD.replace('%', '').trim())!;
  return { sources, minSources: raw.RATE_MIN_SOURCES, maxSpread: div(percent, ratio(100n)) };
}
