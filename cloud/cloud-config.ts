import * as z from 'zod';
import { parseX402Settings, x402Secrets, x402SettingNames, type X402Settings } from '../core/x402/x402-settings.ts';
import { configurePlatformChains, platformSettingNames, platformSettingsShape, type ChainDefinition, type ConfiguredChain } from '../core/chain-definition.ts';
import { blankToUndefined, ConfigError, databaseWaitSetting, httpBoundSettings, httpBoundsOf, mcpAllowedOriginsSetting, mcpInitializeRateLimitSetting, mcpListenStreamMaxSSetting, mcpMaxSessionsPerOwnerSetting, mcpMaxListenStreamsSetting, mcpMaxSessionsSetting, mcpStateSecretSetting, metricsTokenSetting, parseRateLimit, parseSettings, publicUrlSetting, wholeNumber, x402RateLimitSetting, x402RateLimitOf, rateSettingsOf, rateSettingsShape, type Env, type HttpBounds, type InitializeRateLimit, type RateLimitConfig } from '../edge/settings.ts';
import { fairShareSettings, fairShareSettingsOf, type FairShareSettings } from './billing/plan-shares.ts';
import type { RateSettings } from '../core/rates/rates.ts';
import { budgetSettingsFrom, budgetSettingsSchema, type BudgetSettings } from '../core/net/source-budgets.ts';

/** The EVM zero address stands in for a merchant's own receive setting while the shared Base settings are checked. */

export interface CloudConfig {
  port: number;
  host: string;
  databaseUrl: string;
  /** DATABASE_WAIT_S: how long to wait at start for an unreachable Postgres database. */
  databaseWaitS: number;
  trustProxy: boolean;
  nodeEnv: string;
  /** `<base>/pay/<invoice_id>` is each invoice's hosted page; null = hosted checkout off. */
  checkoutBaseUrl: string | null;
  /** Per API key, POST /api/v1/invoice per minute; null = off (benchmarks only). */
  invoiceRateLimit: number | null;
  /** POST /api/v1/signup per client IP and overall, per minute. */
  signupRateLimit: RateLimitConfig;
  /** Dashboard sign-in attempts per client IP and overall, per minute; null = off. */
  signInRateLimit: RateLimitConfig | null;
  /** Development/tests only: webhook URLs may be plain http to loopback (see webhook-target.ts). */
  webhookAllowLoopback: boolean;
  /** Every chain the service serves (a merchant's stored receive methods name them). */
  chainDefinitions: readonly ChainDefinition[];
  /** The chains the platform's settings enable (Bitcoin always; an EVM chain once its RPC URL is set), with their settings. */
  chains: ConfiguredChain[];
  /** The operator's own Cloud merchant: plan purchases are invoices it owns. Null: crypto billing off. */
  billingMerchantId: string | null;
  /** Browser origins allowed to call /api/v1/mcp (MCP_ALLOWED_ORIGINS); a request without Origin is always allowed. */
  mcpAllowedOrigins: string[];
  /** Open MCP sessions at most on this instance (MCP_MAX_SESSIONS). */
  mcpMaxSessions: number;
  /** Open MCP sessions at most per merchant on this instance (MCP_MAX_SESSIONS_PER_OWNER). */
  mcpMaxSessionsPerOwner: number;
  /** Open 2026-07-28 subscriptions/listen streams at most on this instance (MCP_MAX_LISTEN_STREAMS). */
  mcpMaxListenStreams: number;
  /** Seals MCP state across requests and instances (MCP_STATE_SECRET); null: a random secret of this instance. */
  mcpStateSecret: string | null;
  /** MCP sessions started per minute per merchant and per client address, across instances (MCP_INITIALIZE_RATE_LIMIT); null: unlimited. */
  mcpInitializeRateLimit: InitializeRateLimit | null;
  /** A subscriptions/listen stream's lifetime, in ms (MCP_LISTEN_STREAM_MAX_S). */
  mcpListenStreamMaxMs: number;
  /** How each instance's sessions and streams, and the x402 budget, are shared between merchants by plan (CLOUD_FAIR_SHARE_RESERVE, CLOUD_*_PER_PLAN). */
  fairShares: FairShareSettings;
  /** Bearer token that opens GET /metrics to non-loopback callers (METRICS_TOKEN); null: loopback only. */
  metricsToken: string | null;
  /** PUBLIC_URL: the base URL clients reach Cloud at (OAuth issuer, MCP resource); null: loopback only. */
  publicUrl: string | null;
  /** Whether this instance runs chain watchers when elected (false: serve HTTP and deliver only). */
  watch: boolean;
  /** Card plans through Stripe Checkout; null: card billing off (409 method_unavailable). */
  stripe: StripeConfig | null;
  /** Request budget of each chain source URL, shared by all merchants (docs/chains.md, "Request budgets"). */
  sourceBudgets: BudgetSettings;
  /** RATE_SOURCES, RATE_MIN_SOURCES, RATE_MAX_SPREAD: what fiat prices are converted at; null when RATE_SOURCES is off. */
  rates: RateSettings | null;
  /** The HTTP server's and the checkout streams' bounds (HTTP_*, CHECKOUT_STREAM*). */
  httpBounds: HttpBounds;
  /** How each EVM chain settles x402 payments, for every merchant (none: x402 off there). */
  x402: X402Settings;
  /** X402_RATE_LIMIT: requests to the public x402 URLs per client IP and overall; null: off. */
  x402RateLimit: RateLimitConfig | null;
}

export interface StripeConfig {
  secretKey: string;
  webhookSecret: string;
  successUrl: string;
  cancelUrl: string;
  /** Stripe Price ids per plan; without one a plan is billed from the catalogue price (price_data). */
  priceIds: { starter?: string; pro?: string };
}

const flag = z.preprocess(blankToUndefined, z.enum(['true', 'false', '1', '0']).default('false')).transform((v) => v === 'true' || v === '1');

/** Cloud's own settings around the chains' (their order is the order problems are told in). */
const settingsBeforeChains = {
  PORT: z.preprocess(blankToUndefined, wholeNumber(0, 65535, ' (0 picks a free port)').default(8788)),
  HOST: z.preprocess(blankToUndefined, z.string().default('127.0.0.1')),
  DATABASE_URL: z.preprocess(
    blankToUndefined,
    z.string().regex(/^(sqlite:.+|postgres(ql)?:\/\/.+)$/, 'must be sqlite:<path> or postgres://…').default('sqlite:./data/cloud.db'),
  ),
  DATABASE_WAIT_S: databaseWaitSetting,
  TRUST_PROXY: flag,
  MCP_ALLOWED_ORIGINS: mcpAllowedOriginsSetting,
  MCP_MAX_SESSIONS: mcpMaxSessionsSetting,
  MCP_MAX_SESSIONS_PER_OWNER: mcpMaxSessionsPerOwnerSetting,
  MCP_MAX_LISTEN_STREAMS: mcpMaxListenStreamsSetting,
  MCP_STATE_SECRET: mcpStateSecretSetting,
  MCP_INITIALIZE_RATE_LIMIT: mcpInitializeRateLimitSetting,
  MCP_LISTEN_STREAM_MAX_S: mcpListenStreamMaxSSetting,
  ...fairShareSettings,
  METRICS_TOKEN: metricsTokenSetting,
  PUBLIC_URL: publicUrlSetting,
  ...httpBoundSettings,
  NODE_ENV: z.preprocess(blankToUndefined, z.string().default('development')),
  CLOUD_CHECKOUT_BASE_URL: z.preprocess(blankToUndefined, z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).transform((u) => u.replace(/\/+$/, '')).optional()),
  CLOUD_INVOICE_RATE_LIMIT: z.preprocess(blankToUndefined, z.union([z.literal('off'), wholeNumber(1, 1_000_000)]).default(60)),
  CLOUD_SIGNUP_RATE_LIMIT: z.preprocess(blankToUndefined, z.string().default('5,60')),
  CLOUD_SIGNIN_RATE_LIMIT: z.preprocess(blankToUndefined, z.string().default('10,300')),
  CLOUD_WEBHOOK_ALLOW_LOOPBACK: flag,
  CLOUD_BILLING_MERCHANT_ID: z.preprocess(blankToUndefined, z.string().optional()),
  CLOUD_WATCH: z.preprocess(blankToUndefined, z.enum(['true', 'false', '1', '0']).default('true')).transform((v) => v === 'true' || v === '1'),
};

const settingsAfterChains = {
  STRIPE_SECRET_KEY: z.preprocess(blankToUndefined, z.string().regex(/^(sk|rk)_(test|live)_[A-Za-z0-9]+$/, 'must be a Stripe secret key (sk_test_…, sk_live_…)').optional()),
  STRIPE_WEBHOOK_SECRET: z.preprocess(blankToUndefined, z.string().regex(/^whsec_\S+$/, 'must be a Stripe webhook signing secret (whsec_…)').optional()),
  STRIPE_SUCCESS_URL: z.preprocess(blankToUndefined, z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional()),
  STRIPE_CANCEL_URL: z.preprocess(blankToUndefined, z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional()),
  STRIPE_PRICE_STARTER: z.preprocess(blankToUndefined, z.string().regex(/^price_[A-Za-z0-9]+$/, 'must be a Stripe Price id (price_…)').optional()),
  STRIPE_PRICE_PRO: z.preprocess(blankToUndefined, z.string().regex(/^price_[A-Za-z0-9]+$/, 'must be a Stripe Price id (price_…)').optional()),
  X402_RATE_LIMIT: x402RateLimitSetting,
  ...rateSettingsShape,
  ...budgetSettingsSchema,
};

const CloudEnv = z.object({ ...settingsBeforeChains, ...settingsAfterChains });
const cloudEnv = (chains: readonly ChainDefinition[]) => z.object({ ...settingsBeforeChains, ...platformSettingsShape(chains), ...settingsAfterChains });

/** Every setting Cloud reads (the Base ones are shared by its merchants). */
export const cloudSettingNames = (chains: readonly ChainDefinition[]): string[] => [...Object.keys(CloudEnv.shape), ...platformSettingNames(chains), ...x402SettingNames(chains)];

export function loadCloudConfig(env: Env, chains: readonly ChainDefinition[]): CloudConfig {
  const problems: string[] = [];
  const raw = parseSettings(cloudEnv(chains), env, problems);

  let signupRateLimit: RateLimitConfig = { perClient: 5, overall: 60 };
  try {
    signupRateLimit = parseRateLimit(raw.CLOUD_SIGNUP_RATE_LIMIT) ?? { perClient: Number.MAX_SAFE_INTEGER, overall: Number.MAX_SAFE_INTEGER };
  } catch (error) {
    problems.push(`CLOUD_SIGNUP_RATE_LIMIT ${(error as Error).message}`);
  }

  let signInRateLimit: RateLimitConfig | null = null;
  try {
    signInRateLimit = parseRateLimit(raw.CLOUD_SIGNIN_RATE_LIMIT);
  } catch (error) {
    problems.push(`CLOUD_SIGNIN_RATE_LIMIT ${(error as Error).message}`);
  }

  const configured = configurePlatformChains(chains, env, problems, raw);
  if (raw.NODE_ENV === 'production' && raw.CLOUD_WEBHOOK_ALLOW_LOOPBACK) {
    problems.push('CLOUD_WEBHOOK_ALLOW_LOOPBACK is for development only and is refused with NODE_ENV=production');
  }
  const stripe = parseStripe(raw, problems);
  const httpBounds = httpBoundsOf(raw, problems);
  const x402 = parseX402Settings(chains, env, problems);
  const x402RateLimit = x402RateLimitOf(raw.X402_RATE_LIMIT, problems);
  const rates = rateSettingsOf(raw, problems);
  if (problems.length) throw new ConfigError(problems);

  return {
    port: raw.PORT,
    host: raw.HOST,
    databaseUrl: raw.DATABASE_URL,
    databaseWaitS: raw.DATABASE_WAIT_S,
    trustProxy: raw.TRUST_PROXY,
    mcpAllowedOrigins: raw.MCP_ALLOWED_ORIGINS,
    mcpMaxSessions: raw.MCP_MAX_SESSIONS,
    mcpMaxSessionsPerOwner: raw.MCP_MAX_SESSIONS_PER_OWNER,
    mcpMaxListenStreams: raw.MCP_MAX_LISTEN_STREAMS,
    mcpStateSecret: raw.MCP_STATE_SECRET ?? null,
    mcpInitializeRateLimit: raw.MCP_INITIALIZE_RATE_LIMIT,
    mcpListenStreamMaxMs: raw.MCP_LISTEN_STREAM_MAX_S * 1_000,
    fairShares: fairShareSettingsOf(raw),
    metricsToken: raw.METRICS_TOKEN ?? null,
    nodeEnv: raw.NODE_ENV,
    checkoutBaseUrl: raw.CLOUD_CHECKOUT_BASE_URL ?? null,
    publicUrl: raw.PUBLIC_URL ?? null,
    httpBounds,
    invoiceRateLimit: raw.CLOUD_INVOICE_RATE_LIMIT === 'off' ? null : raw.CLOUD_INVOICE_RATE_LIMIT,
    signupRateLimit,
    signInRateLimit,
    webhookAllowLoopback: raw.CLOUD_WEBHOOK_ALLOW_LOOPBACK,
    chainDefinitions: chains,
    chains: configured,
    billingMerchantId: raw.CLOUD_BILLING_MERCHANT_ID ?? null,
    watch: raw.CLOUD_WATCH,
    stripe,
    sourceBudgets: budgetSettingsFrom(raw),
    x402,
    x402RateLimit,
    rates,
  };
}

/** Settings that must never reach a log line (the logger scrubs them). */
export function cloudSecrets(config: CloudConfig): string[] {
  return [...(config.stripe ? [config.stripe.secretKey, config.stripe.webhookSecret] : []), ...(config.metricsToken ? [config.metricsToken] : []), ...x402Secrets(config.x402)];
}

/** STRIPE_SECRET_KEY turns card billing on; it then needs the webhook secret and both return URLs. */
function parseStripe(raw: Pick<z.infer<typeof CloudEnv>, 'STRIPE_SECRET_KEY' | 'STRIPE_WEBHOOK_SECRET' | 'STRIPE_SUCCESS_URL' | 'STRIPE_CANCEL_URL' | 'STRIPE_PRICE_STARTER' | 'STRIPE_PRICE_PRO'>, problems: string[]): StripeConfig | null {
  if (!raw.STRIPE_SECRET_KEY) return null;
  const missing = (['STRIPE_WEBHOOK_SECRET', 'STRIPE_SUCCESS_URL', 'STRIPE_CANCEL_URL'] as const).filter((name) => !raw[name]);
  for (const name of missing) problems.push(`${name} is required when STRIPE_SECRET_KEY is set`);
  if (missing.length) return null;
  return {
    secretKey: raw.STRIPE_SECRET_KEY,
    webhookSecret: raw.STRIPE_WEBHOOK_SECRET!,
    successUrl: raw.STRIPE_SUCCESS_URL!,
    cancelUrl: raw.STRIPE_CANCEL_URL!,
    priceIds: { starter: raw.STRIPE_PRICE_STARTER, pro: raw.STRIPE_PRICE_PRO },
  };
}
