import { HDNodeWallet } from 'ethers';
import { systemClock, type Clock } from '../../core/clock.ts';
import type { CoreDatabase } from '../../core/schema.ts';
import { baseAdapter, baseReceiver } from '../../core/base/base-adapter.ts';
import { parseBaseConfig, type BaseConfig } from '../../core/base/base-config.ts';
import { createRpcSource, type RpcSource } from '../../core/base/rpc.ts';
import { createBaseWatcher } from '../../core/base/watcher.ts';
import { merchantBaseScope } from '../../core/base/base-transfer.repository.ts';
import { createInvoiceService } from '../../core/invoices/invoice.service.ts';
import { silentLogger } from '../../core/log.ts';
import { watchObserver, type ServiceMetrics } from '../../core/metrics.ts';
import { testDatabases, type TestDatabase } from '../support/databases.ts';
import { startAnvil, type Anvil } from '../../listener/sandbox/anvil.ts';
import { deployTestToken, type TestToken } from '../../listener/sandbox/test-token.ts';
import { createMemoryStatusFeed } from '../../core/invoices/status-feed.ts';

export const MERCHANT = 'm_test';
/** The merchant's fixed receive address (EIP-55's first example; not one of the xpub's children). */
export const FIXED_ADDRESS = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
export const ACCOUNT_XPUB = HDNodeWallet.fromPhrase(
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about',
  undefined,
  "m/44'/60'/0'",
).neuter().extendedKey;

export interface BaseTestChain {
  anvil: Anvil;
  usdc: TestToken;
  usdt: TestToken;
  database: CoreDatabase;
  /** The database's URL, for a listener that opens it itself. */
  databaseUrl: string;
  config(env: Record<string, string>): BaseConfig;
  source(url?: string): RpcSource;
  close(): Promise<void>;
}

/** A real anvil node with a test USDC and USDT deployed, and a fresh migrated database of `kind` (SQLite by default). */
export async function startBaseTestChain(kind: TestDatabase = testDatabases[0]): Promise<BaseTestChain> {
  const anvil = await startAnvil();
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
    anvil,
    usdc,
    usdt,
    database,
    databaseUrl: created.url,
    config(env) {
      const problems: string[] = [];
      const config = parseBaseConfig(
        {
          // USDT is served in fixed-address mode only, so it is enabled only with a fixed address.
          MERCHANT_EVM_TOKENS: env.MERCHANT_BASE_ADDRESS ? `usdc:${usdc.address},usdt:${usdt.address}` : `usdc:${usdc.address}`,
          BASE_RPC_URL: anvil.url,
          BASE_CHAIN_ID: String(anvil.chainId),
          BASE_CONFIRMATIONS: '3',
          ...env,
        },
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

export function baseServices(
  chain: BaseTestChain,
  config: BaseConfig,
  options: { sources?: RpcSource[]; clock?: Clock; watcherClock?: Clock; nonceDigits?: number; quarantineMs?: number; recipientsPerCall?: number; metrics?: ServiceMetrics } = {},
) {
  const clock = options.clock ?? systemClock;
  const db = chain.database.db;
  const feed = createMemoryStatusFeed();
  const invoices = createInvoiceService({
    db,
    feed,
    clock,
    logger: silentLogger,
    chains: [baseAdapter],
    merchantId: MERCHANT,
    receivers: { base: baseReceiver({ base: config, nonceDigits: options.nonceDigits, quarantineMs: options.quarantineMs }) },
  });
  const watcher = createBaseWatcher({
    db,
    feed,
    clock: options.watcherClock ?? systemClock,
    logger: silentLogger,
    scope: merchantBaseScope(MERCHANT),
    base: config,
    sources: options.sources ?? [chain.source()],
    recipientsPerCall: options.recipientsPerCall,
    observer: options.metrics && watchObserver(options.metrics, 'base'),
  });
  const create = (body: Record<string, unknown>) => invoices.create({ chain: 'base', ...body });
  const invoice = (id: string) => invoices.get(id);
  const events = async () =>
    (await db.selectFrom('events').select(['type', 'payload']).where('merchant_id', '=', MERCHANT).orderBy('seq').execute()).map((e) => ({
      type: e.type,
      payload: JSON.parse(e.payload) as Record<string, unknown>,
    }));
  return { invoices, watcher, create, invoice, events };
}
