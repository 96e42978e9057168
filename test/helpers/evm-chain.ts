import { defaultChains } from '../../core/chains/default-chains.ts';
import { HDNodeWallet } from 'ethers';
import { systemClock, type Clock } from '../../core/clock.ts';
import type { CoreDatabase } from '../../core/schema.ts';
import { evmReceiver } from '../../core/evm/evm-adapter.ts';
import { evmSpecsIn } from '../../core/evm/evm-definition.ts';
import type { EvmChainSpec } from '../../core/evm/evm-chain-spec.ts';
import { chainIn } from '../../core/chain-definition.ts';
import type { EvmChainName } from '../../shared/index.ts';
import { parseEvmConfig, type EvmConfig } from '../../core/evm/evm-config.ts';
import { createRpcSource, type RpcSource } from '../../core/evm/rpc.ts';
import { createEvmWatcher, type EvmWatcherDeps } from '../../core/evm/watcher.ts';
import { merchantEvmScope } from '../../core/evm/evm-transfer.repository.ts';
import { createInvoiceService, type InvoiceServiceDeps } from '../../core/invoices/invoice.service.ts';
import { silentLogger } from '../../core/log.ts';
import { watchObserver, type ServiceMetrics } from '../../core/metrics.ts';
import { testDatabases, type TestDatabase } from './databases.ts';
import { startAnvil, type Anvil } from '../../sandbox/anvil.ts';
import { deployTestToken, type TestToken } from '../../sandbox/test-token.ts';
import { createMemoryStatusFeed } from '../../core/invoices/status-feed.ts';

export const MERCHANT = 'm_test';
/** The merchant's fixed receive address (EIP-55's first example; not one of the xpub's children). */
export const FIXED_ADDRESS = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
export const ACCOUNT_XPUB = HDNodeWallet.fromPhrase(
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about',
  undefined,
  "m/44'/60'/0'",
).neuter().extendedKey;

/** The facts of the EVM chains of the default list, in its order. */
export const evmSpecs = (): EvmChainSpec[] => evmSpecsIn(defaultChains);

/** The facts of one EVM chain of the default list. */
export const evmSpecOf = (chain: string): EvmChainSpec => chainIn(evmSpecs(), chain);

/**
 * The EVM chains every Base test runs on, each on an anvil node started with that chain's mainnet
 * id (so the URIs and the settings are the chain's own): one module, one test matrix.
 */
export const evmTestChains: readonly EvmChainName[] = evmSpecs().map((spec) => spec.chain);

/**
 * Settings written for Base (MERCHANT_BASE_XPUB, BASE_RPC_URL, …) as `chain`'s own
 * (MERCHANT_ETH_XPUB, ETH_RPC_URL, …), so one test body serves every EVM chain.
 */
export function settingsFor(chain: EvmChainName, env: Record<string, string>): Record<string, string> {
  const prefix = evmSpecOf(chain).envPrefix;
  return Object.fromEntries(Object.entries(env).map(([name, value]) => [name.replace(/^(MERCHANT_)?BASE_/, `$1${prefix}_`), value]));
}

export interface EvmTestChain {
  /** The EVM chain the node stands in for. */
  name: EvmChainName;
  anvil: Anvil;
  usdc: TestToken;
  usdt: TestToken;
  database: CoreDatabase;
  /** The database's URL, for a listener that opens it itself. */
  databaseUrl: string;
  config(env: Record<string, string>): EvmConfig;
  source(url?: string): RpcSource;
  close(): Promise<void>;
}

/**
 * A real anvil node with a test USDC and USDT deployed, and a fresh migrated database of `kind`
 * (SQLite by default). Base's node keeps anvil's local id unless `mainnetId` is asked; any other
 * chain's runs with its mainnet id.
 */
export async function startEvmTestChain(kind: TestDatabase = testDatabases[0], name: EvmChainName = 'base', options: { mainnetId?: boolean } = {}): Promise<EvmTestChain> {
  const anvil = await startAnvil(name === 'base' && !options.mainnetId ? {} : { chainId: evmSpecOf(name).mainnetChainId });
  let usdc: TestToken, usdt: TestToken, created: Awaited<ReturnType<TestDatabase['create']>>, database: CoreDatabase;
  try {
    usdc = await deployTestToken(anvil, 'USDC', { fundAccounts: 3 });
    usdt = await deployTestToken(anvil, 'USDT', { fundAccounts: 3 });
    created = await kind.create();
    database = await created.open();
  } catch (error) {
    // A half-started chain must not outlive the test: a live anvil child keeps the test file's process running.
    await anvil.stop();
    throw error;
  }
  return {
    name,
    anvil,
    usdc,
    usdt,
    database,
    databaseUrl: created.url,
    config(env) {
      const problems: string[] = [];
      const config = parseEvmConfig(
        evmSpecOf(name),
        settingsFor(name, {
          // USDT is served in fixed-address mode only, so it is enabled only with a fixed address.
          BASE_TOKENS: env.MERCHANT_BASE_ADDRESS ? `usdc:${usdc.address},usdt:${usdt.address}` : `usdc:${usdc.address}`,
          BASE_RPC_URL: anvil.url,
          // The test's own node: trusted alone unless a test lists a second source.
          BASE_MIN_SOURCES: '1',
          BASE_CHAIN_ID: String(anvil.chainId),
          BASE_CONFIRMATIONS: '3',
          // anvil finalizes 64 blocks behind its head; the finality rule has its own test.
          BASE_FINALITY: 'count',
          ...env,
        }),
        problems,
      );
      if (!config) throw new Error(problems.join('; '));
      return config;
    },
    source: (url = anvil.url) => createRpcSource(url, { fetch, sleep: (ms) => new Promise((r) => setTimeout(r, ms)), attempts: 2, backoffMs: 10 }),
    async close() {
      await database.close();
      await created.drop();
      await anvil.stop();
    },
  };
}

export function evmServices(
  chain: EvmTestChain,
  config: EvmConfig,
  options: {
    sources?: RpcSource[];
    clock?: Clock;
    watcherClock?: Clock;
    nonceDigits?: number;
    quarantineMs?: number;
    recipientsPerCall?: number;
    metrics?: ServiceMetrics;
    /** When the watcher's loop reads the chain (its pace, a head subscription). */
    pace?: Pick<EvmWatcherDeps, 'pollIntervalMs' | 'blockTimeMs' | 'heads' | 'headsCheckMs'>;
    /** The exchange rates invoices priced in a fiat currency are converted at. */
    rates?: InvoiceServiceDeps['rates'];
  } = {},
) {
  const clock = options.clock ?? systemClock;
  const db = chain.database.db;
  const feed = createMemoryStatusFeed();
  const invoices = createInvoiceService({
    db,
    feed,
    clock,
    logger: silentLogger,
    chains: [chainIn(defaultChains, config.chain).adapter],
    merchantId: MERCHANT,
    receivers: { [config.chain]: evmReceiver({ base: config, nonceDigits: options.nonceDigits, quarantineMs: options.quarantineMs }) },
    rates: options.rates,
  });
  const watcher = createEvmWatcher({
    db,
    feed,
    clock: options.watcherClock ?? systemClock,
    logger: silentLogger,
    scope: merchantEvmScope(MERCHANT, config.chain),
    base: config,
    sources: options.sources ?? [chain.source()],
    recipientsPerCall: options.recipientsPerCall,
    observer: options.metrics && watchObserver(options.metrics, config.chain),
    ...options.pace,
  });
  const create = (body: Record<string, unknown>) => invoices.create({ chain: config.chain, ...body });
  const invoice = (id: string) => invoices.get(id);
  const events = async () =>
    (await db.selectFrom('events').select(['event_id', 'type', 'payload']).where('merchant_id', '=', MERCHANT).orderBy('seq').execute()).map((e) => ({
      eventId: e.event_id,
      type: e.type,
      payload: JSON.parse(e.payload) as Record<string, unknown>,
    }));
  return { invoices, watcher, create, invoice, events };
}
