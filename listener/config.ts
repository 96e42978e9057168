import * as z from 'zod';
import { BtcNetwork } from '../shared/index.ts';
import { evmSettingNames, parseEvmConfigs, type BaseConfig, type EvmConfig } from '../core/evm/evm-config.ts';
import { defaultEsploraUrls } from '../core/btc/esplora-defaults.ts';
import { DEFAULT_MAX_CONNECTIONS, DEFAULT_MAX_TRACKED_ADDRESSES, mempoolSocketUrl } from '../core/btc/mempool-socket.ts';
import { AccountKeyError, containsExtendedPrivateKey, parseAccountKey, type AccountKey } from '../core/btc/account-key.ts';
import { budgetSettingNames, budgetSettingsFrom, budgetSettingsSchema, type BudgetSettings } from '../core/net/source-budgets.ts';
import {
  blankToUndefined,
  ConfigError,
  databaseWaitSetting,
  httpUrlListSetting,
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
  type Env,
  type InitializeRateLimit,
  type RateLimitConfig,
} from '../edge/settings.ts';
import { parseX402Settings, x402Secrets, x402SettingNames, type X402Settings } from '../core/x402/x402-settings.ts';

// The sandbox reads these as the listener's.
export { ConfigError, type Env };

export interface Config {
  port: number;
  host: string;
  databaseUrl: string;
  /** DATABASE_WAIT_S: how long to wait at start for an unreachable Postgres database. */
  databaseWaitS: number;
  merchantId: string;
  btc: {
    accountKey: AccountKey;
    esploraUrls: string[];
    explorerUrl: string;
    rpcUrl: string | null;
    /** BTC_ESPLORA_SELF_HOSTED: the Esplora is yours, so the whole mempool is scanned rather than the invoices' addresses. */
    esploraSelfHosted: boolean;
    /** mempool.space WebSocket for address-scoped watching; null: poll the addresses only. */
    wsUrl: string | null;
    wsMaxAddresses: number;
    wsMaxConnections: number;
  } | null;
  /** Base's settings when Base is enabled: the first of `evm` then. */
  base: BaseConfig | null;
  /** Every enabled EVM chain (Base, Ethereum, …), in registry order. */
  evm: EvmConfig[];
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
}

/** Every setting the listener reads; documented in docs/self-hosting.md. */
export const settingNames = [
  'PORT',
  'HOST',
  'DATABASE_URL',
  'DATABASE_WAIT_S',
  'MERCHANT_ID',
  'MERCHANT_BTC_XPUB',
  'BTC_NETWORK',
  'BTC_ESPLORA_URL',
  'BTC_RPC_URL',
  'BTC_EXPLORER_URL',
  'BTC_ESPLORA_SELF_HOSTED',
  'BTC_ESPLORA_WS_URL',
  'BTC_WS_MAX_ADDRESSES',
  'BTC_WS_MAX_CONNECTIONS',
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
  'SERVICE_WEBHOOK_SECRET',
  'NODE_ENV',
  'SHOP_NAME',
  'X402_RATE_LIMIT',
  ...budgetSettingNames,
  ...evmSettingNames,
  ...x402SettingNames,
] as const;

const defaultExplorer: Record<BtcNetwork, string> = {
  mainnet: 'https://mempool.space',
  testnet: 'https://mempool.space/testnet',
  signet: 'https://mempool.space/signet',
  regtest: 'http://127.0.0.1:8787/explorer',
};

const optionalText = z.preprocess(blankToUndefined, z.string().trim().optional());

const httpUrl = z.preprocess(
  blankToUndefined,
  z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
    .transform((url) => url.replace(/\/+$/, ''))
    .optional(),
);

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

const EnvSchema = z.object({
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
  MERCHANT_BTC_XPUB: optionalText,
  BTC_NETWORK: z.preprocess(blankToUndefined, BtcNetwork.optional()),
  BTC_ESPLORA_URL: httpUrlListSetting,
  BTC_RPC_URL: httpUrl,
  BTC_EXPLORER_URL: httpUrl,
  BTC_ESPLORA_SELF_HOSTED: z.preprocess(blankToUndefined, z.enum(['true', 'false', '1', '0']).default('false')),
  BTC_ESPLORA_WS_URL: z.preprocess(
    blankToUndefined,
    z.union([z.literal('off'), z.url({ protocol: /^wss?$/, error: 'must be a ws:// or wss:// URL, or off' })]).optional(),
  ),
  BTC_WS_MAX_ADDRESSES: z.preprocess(blankToUndefined, wholeNumber(1, 100_000).default(DEFAULT_MAX_TRACKED_ADDRESSES)),
  BTC_WS_MAX_CONNECTIONS: z.preprocess(blankToUndefined, wholeNumber(1, 100).default(DEFAULT_MAX_CONNECTIONS)),
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
  SERVICE_WEBHOOK_SECRET: optionalText,
  NODE_ENV: z.preprocess(blankToUndefined, z.string().default('development')),
  SHOP_NAME: z.preprocess(blankToUndefined, z.string().trim().min(2, 'must be 2-80 characters').max(80, 'must be 2-80 characters').default('Shop')),
  X402_RATE_LIMIT: x402RateLimitSetting,
  ...budgetSettingsSchema,
});

/**
 * Reads and validates every setting once. All problems are reported together; a value that holds
 * an extended private key is named but never echoed.
 */
export function loadConfig(env: Env): Config {
  const problems: string[] = [];
  for (const name of settingNames) {
    const value = env[name];
    if (value && containsExtendedPrivateKey(value)) {
      problems.push(`${name} holds an extended private key. Refusing to start: give only public keys (xpub/zpub); the listener never needs a private key.`);
    }
  }
  if (problems.length) throw new ConfigError(problems);

  const raw = parseSettings(EnvSchema, env, problems);

  let btc: Config['btc'] = null;
  if (raw.MERCHANT_BTC_XPUB) {
    try {
      const accountKey = parseAccountKey(raw.MERCHANT_BTC_XPUB, raw.BTC_NETWORK);
      const esploraUrls = raw.BTC_ESPLORA_URL ?? defaultEsploraUrls[accountKey.network];
      const esploraUrl = esploraUrls[0] ?? null;
      btc = {
        accountKey,
        esploraUrls,
        explorerUrl: raw.BTC_EXPLORER_URL ?? defaultExplorer[accountKey.network],
        rpcUrl: raw.BTC_RPC_URL ?? null,
        esploraSelfHosted: raw.BTC_ESPLORA_SELF_HOSTED === 'true' || raw.BTC_ESPLORA_SELF_HOSTED === '1',
        wsUrl: raw.BTC_ESPLORA_WS_URL === 'off' ? null : (raw.BTC_ESPLORA_WS_URL ?? (esploraUrl ? mempoolSocketUrl(esploraUrl) : null)),
        wsMaxAddresses: raw.BTC_WS_MAX_ADDRESSES,
        wsMaxConnections: raw.BTC_WS_MAX_CONNECTIONS,
      };
    } catch (error) {
      if (!(error instanceof AccountKeyError)) throw error;
      problems.push(`MERCHANT_BTC_XPUB ${error.message}`);
    }
  }

  const evm = parseEvmConfigs(env, problems);
  const x402 = parseX402Settings(env, problems);
  const x402RateLimit = x402RateLimitOf(raw.X402_RATE_LIMIT, problems);
  const base = evm.find((chain) => chain.chain === 'base') ?? null;

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
    btc,
    base,
    evm,
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
    nodeEnv: raw.NODE_ENV,
    shopName: raw.SHOP_NAME,
    sourceBudgets: budgetSettingsFrom(raw),
    x402,
    x402RateLimit,
  };
}

/** Values that must never appear in a log line. */
export function configSecrets(config: Config): string[] {
  const rpcPassword = config.btc?.rpcUrl ? decodeURIComponent(new URL(config.btc.rpcUrl).password) : null;
  return [config.apiKey, config.webhook?.secret, config.metricsToken, rpcPassword, ...x402Secrets(config.x402)].filter((s): s is string => Boolean(s));
}
