import * as z from 'zod';
import { configureListenerChains, listenerSettingNames, listenerSettingsShape, type ChainDefinition, type ConfiguredChain } from '../core/chain-definition.ts';
import { budgetSettingNames, budgetSettingsFrom, budgetSettingsSchema, type BudgetSettings } from '../core/net/source-budgets.ts';
import type { RateSettings } from '../core/rates/rates.ts';
import {
  blankToUndefined,
  ConfigError,
  databaseWaitSetting,
  mcpAllowedOriginsSetting,
  mcpInitializeRateLimitSetting,
  mcpListenStreamMaxSSetting,
  mcpMaxSessionsPerOwnerSetting,
  mcpMaxListenStreamsSetting,
  mcpStateSecretSetting,
  mcpMaxSessionsSetting,
  metricsTokenSetting,
  httpBoundSettingNames,
  httpBoundSettings,
  httpBoundsOf,
  type HttpBounds,
  parseRateLimit,
  parseSettings,
  publicUrlSetting,
  wholeNumber,
  x402RateLimitSetting,
  x402RateLimitOf,
  rateSettingNames,
  rateSettingsOf,
  rateSettingsShape,
  type Env,
  type InitializeRateLimit,
  type RateLimitConfig,
} from '../edge/settings.ts';
import { parseX402Settings, x402Secrets, x402SettingNames, type X402Settings } from '../core/x402/x402-settings.ts';
import { optInEventsFrom } from '../core/events/lifecycle-events.ts';
import { optInWebhookEvents, type OptInWebhookEvent } from '../shared/index.ts';

// The sandbox reads these as the listener's.
export { ConfigError, type Env };

export interface Config {
  port: number;
  host: string;
  databaseUrl: string;
  /** DATABASE_WAIT_S: how long to wait at start for an unreachable Postgres database. */
  databaseWaitS: number;
  merchantId: string;
  /** Every chain the service serves: the schema holds their tables, the engine their stored invoices. */
  chainDefinitions: readonly ChainDefinition[];
  /** The chains the settings enable (a key or address set), in the given list's order, with their settings. */
  chains: ConfiguredChain[];
  apiKey: string | null;
  rateLimit: RateLimitConfig | null;
  trustProxy: boolean;
  /** Browser origins allowed to call /mcp (MCP_ALLOWED_ORIGINS); a request without Origin is always allowed. */
  mcpAllowedOrigins: string[];
  /** Open MCP sessions at most (MCP_MAX_SESSIONS). */
  mcpMaxSessions: number;
  /** Open MCP sessions at most per credential: the key, each OAuth grant (MCP_MAX_SESSIONS_PER_OWNER). */
  mcpMaxSessionsPerOwner: number;
  /** Open 2026-07-28 subscriptions/listen streams at most (MCP_MAX_LISTEN_STREAMS). */
  mcpMaxListenStreams: number;
  /** Seals MCP state across requests (MCP_STATE_SECRET); null: a random secret of this process. */
  mcpStateSecret: string | null;
  /** MCP sessions started per minute, per credential and per client address (MCP_INITIALIZE_RATE_LIMIT); null: unlimited. */
  mcpInitializeRateLimit: InitializeRateLimit | null;
  /** A subscriptions/listen stream's lifetime, in ms (MCP_LISTEN_STREAM_MAX_S). */
  mcpListenStreamMaxMs: number;
  /** Bearer token that opens GET /metrics to non-loopback callers (METRICS_TOKEN); null: loopback only. */
  metricsToken: string | null;
  /** PUBLIC_URL: the base URL clients reach this server at (OAuth issuer and resource); null: loopback only. */
  publicUrl: string | null;
  webhook: { url: string; secret: string } | null;
  /** MERCHANT_WEBHOOK_EVENTS: the opt-in lifecycle events sent besides the specified ones; none by default. */
  webhookEvents: OptInWebhookEvent[];
  nodeEnv: string;
  /** Shown to payers on the checkout page. */
  shopName: string;
  /** Request budget of each chain source (docs/chains.md, "Request budgets"). */
  sourceBudgets: BudgetSettings;
  /** The HTTP server's and the checkout streams' bounds (HTTP_*, CHECKOUT_STREAM*). */
  httpBounds: HttpBounds;
  /** How each EVM chain settles x402 payments (none: x402 off there). */
  x402: X402Settings;
  /** X402_RATE_LIMIT: requests to the public x402 URLs per client IP and overall; null: off. */
  x402RateLimit: RateLimitConfig | null;
  /** RATE_SOURCES, RATE_MIN_SOURCES, RATE_MAX_SPREAD: what fiat prices are converted at; null when RATE_SOURCES is off. */
  rates: RateSettings | null;
}

/** Every setting the listener reads but the chains' (chainSettingNames); documented in docs/self-hosting.md. */
const ownSettingNames = [
  'PORT',
  'HOST',
  'DATABASE_URL',
  'DATABASE_WAIT_S',
  'MERCHANT_ID',
  'SERVICE_API_KEY',
  'SERVICE_RATE_LIMIT',
  'TRUST_PROXY',
  'MCP_ALLOWED_ORIGINS',
  'MCP_MAX_SESSIONS',
  'MCP_MAX_SESSIONS_PER_OWNER',
  'MCP_MAX_LISTEN_STREAMS',
  'MCP_STATE_SECRET',
  'MCP_INITIALIZE_RATE_LIMIT',
  'MCP_LISTEN_STREAM_MAX_S',
  'METRICS_TOKEN',
  'PUBLIC_URL',
  ...httpBoundSettingNames,
  'MERCHANT_WEBHOOK_URL',
  'MERCHANT_WEBHOOK_SECRET',
  'MERCHANT_WEBHOOK_EVENTS',
  'SERVICE_WEBHOOK_SECRET',
  'NODE_ENV',
  'SHOP_NAME',
  'X402_RATE_LIMIT',
  ...rateSettingNames,
  ...budgetSettingNames,
] as const;

/** Every setting the listener reads with these chains. */
export const settingNames = (chains: readonly ChainDefinition[]): string[] => [...ownSettingNames, ...x402SettingNames(chains), ...listenerSettingNames(chains)];

const optionalText = z.preprocess(blankToUndefined, z.string().trim().optional());

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** The spec allows plain http only to loopback, for development. */
export function webhookUrlProblem(text: string): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'is not a URL';
  }
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)) return null;
  return 'must be https (plain http is accepted only for localhost, 127.0.0.1 or [::1])';
}

/** The listener's own settings around the chains' (their order is the order problems are told in). */
const ownSettingsBeforeChains = {
  PORT: z.preprocess(blankToUndefined, wholeNumber(0, 65535, ' (0 picks a free port)').default(8787)),
  HOST: z.preprocess(blankToUndefined, z.string().default('127.0.0.1')),
  DATABASE_URL: z.preprocess(
    blankToUndefined,
    z
      .string()
      .regex(/^(sqlite:.+|postgres(ql)?:\/\/.+)$/, 'must be sqlite:<path> or postgres://…')
      .default('sqlite:./data/service.db'),
  ),
  DATABASE_WAIT_S: databaseWaitSetting,
  MERCHANT_ID: z.preprocess(
    blankToUndefined,
    z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1-64 letters, digits, _ or -').default('default'),
  ),
};

const ownSettingsAfterChains = {
  SERVICE_API_KEY: z.preprocess(blankToUndefined, z.string().min(16, 'must be at least 16 characters').optional()),
  SERVICE_RATE_LIMIT: z.preprocess(blankToUndefined, z.string().default('30,300')),
  TRUST_PROXY: z.preprocess(blankToUndefined, z.enum(['true', 'false', '1', '0']).default('false')),
  MCP_ALLOWED_ORIGINS: mcpAllowedOriginsSetting,
  MCP_MAX_SESSIONS: mcpMaxSessionsSetting,
  MCP_MAX_SESSIONS_PER_OWNER: mcpMaxSessionsPerOwnerSetting,
  MCP_MAX_LISTEN_STREAMS: mcpMaxListenStreamsSetting,
  MCP_STATE_SECRET: mcpStateSecretSetting,
  MCP_INITIALIZE_RATE_LIMIT: mcpInitializeRateLimitSetting,
  MCP_LISTEN_STREAM_MAX_S: mcpListenStreamMaxSSetting,
  METRICS_TOKEN: metricsTokenSetting,
  PUBLIC_URL: publicUrlSetting,
  ...httpBoundSettings,
  MERCHANT_WEBHOOK_URL: optionalText,
  MERCHANT_WEBHOOK_SECRET: optionalText,
  MERCHANT_WEBHOOK_EVENTS: optionalText,
  SERVICE_WEBHOOK_SECRET: optionalText,
  NODE_ENV: z.preprocess(blankToUndefined, z.string().default('development')),
  SHOP_NAME: z.preprocess(blankToUndefined, z.string().trim().min(2, 'must be 2-80 characters').max(80, 'must be 2-80 characters').default('Shop')),
  X402_RATE_LIMIT: x402RateLimitSetting,
  ...rateSettingsShape,
  ...budgetSettingsSchema,
};

const envSchema = (chains: readonly ChainDefinition[]) => z.object({ ...ownSettingsBeforeChains, ...listenerSettingsShape(chains), ...ownSettingsAfterChains });

/**
 * Reads and validates every setting once. All problems are reported together; a value that holds
 * an extended private key is named but never echoed.
 */
export function loadConfig(env: Env, chains: readonly ChainDefinition[]): Config {
  const problems: string[] = [];
  for (const name of settingNames(chains)) {
    const value = env[name];
    if (value && chains.some((chain) => chain.merchant.containsPrivateKey(value))) {
      problems.push(`${name} holds an extended private key. Refusing to start: give only public keys (xpub/zpub); the listener never needs a private key.`);
    }
  }
  if (problems.length) throw new ConfigError(problems);

  const raw = parseSettings(envSchema(chains), env, problems);

  const configured = configureListenerChains(chains, env, problems, raw);
  const x402 = parseX402Settings(chains, env, problems);
  const x402RateLimit = x402RateLimitOf(raw.X402_RATE_LIMIT, problems);
  const rates = rateSettingsOf(raw, problems);

  let rateLimit: RateLimitConfig | null = null;
  try {
    rateLimit = parseRateLimit(raw.SERVICE_RATE_LIMIT);
  } catch (error) {
    problems.push(`SERVICE_RATE_LIMIT ${(error as Error).message}`);
  }

  let webhook: Config['webhook'] = null;
  const webhookSecret = raw.MERCHANT_WEBHOOK_SECRET ?? raw.SERVICE_WEBHOOK_SECRET;
  if (raw.MERCHANT_WEBHOOK_URL) {
    const problem = webhookUrlProblem(raw.MERCHANT_WEBHOOK_URL);
    if (problem) problems.push(`MERCHANT_WEBHOOK_URL ${problem}`);
    if (!webhookSecret) problems.push('MERCHANT_WEBHOOK_URL is set but MERCHANT_WEBHOOK_SECRET is not (run `service init` to make one)');
    if (!problem && webhookSecret) webhook = { url: raw.MERCHANT_WEBHOOK_URL, secret: webhookSecret };
  }

  const subscribed = optInEventsFrom((raw.MERCHANT_WEBHOOK_EVENTS ?? '').split(',').map((name) => name.trim()).filter(Boolean));
  if (subscribed.unknown.length) {
    problems.push(`MERCHANT_WEBHOOK_EVENTS names ${subscribed.unknown.map((name) => `"${name}"`).join(', ')}: not an opt-in event (${optInWebhookEvents.join(', ')})`);
  }

  const httpBounds = httpBoundsOf(raw, problems);
  if (raw.NODE_ENV === 'production' && !raw.SERVICE_API_KEY) {
    problems.push('SERVICE_API_KEY must be set when NODE_ENV=production (POST /invoice would be open to anyone)');
  }

  if (problems.length) throw new ConfigError(problems);
  return {
    port: raw.PORT,
    host: raw.HOST,
    databaseUrl: raw.DATABASE_URL,
    databaseWaitS: raw.DATABASE_WAIT_S,
    merchantId: raw.MERCHANT_ID,
    chainDefinitions: chains,
    chains: configured,
    apiKey: raw.SERVICE_API_KEY ?? null,
    rateLimit,
    trustProxy: raw.TRUST_PROXY === 'true' || raw.TRUST_PROXY === '1',
    mcpAllowedOrigins: raw.MCP_ALLOWED_ORIGINS,
    mcpMaxSessions: raw.MCP_MAX_SESSIONS,
    mcpMaxSessionsPerOwner: raw.MCP_MAX_SESSIONS_PER_OWNER,
    mcpMaxListenStreams: raw.MCP_MAX_LISTEN_STREAMS,
    mcpStateSecret: raw.MCP_STATE_SECRET ?? null,
    mcpInitializeRateLimit: raw.MCP_INITIALIZE_RATE_LIMIT,
    mcpListenStreamMaxMs: raw.MCP_LISTEN_STREAM_MAX_S * 1_000,
    metricsToken: raw.METRICS_TOKEN ?? null,
    publicUrl: raw.PUBLIC_URL ?? null,
    httpBounds,
    webhook,
    webhookEvents: subscribed.events,
    nodeEnv: raw.NODE_ENV,
    shopName: raw.SHOP_NAME,
    sourceBudgets: budgetSettingsFrom(raw),
    x402,
    x402RateLimit,
    rates,
  };
}

/** Values that must never appear in a log line. */
export function configSecrets(config: Config): string[] {
  const chainSecrets = config.chains.flatMap(({ definition, settings }) => definition.listener.secrets?.(settings) ?? []);
  return [config.apiKey, config.webhook?.secret, config.metricsToken, ...chainSecrets, ...x402Secrets(config.x402)].filter((s): s is string => Boolean(s));
}
