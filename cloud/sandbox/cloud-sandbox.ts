import type { ChainDefinition } from '../../core/chain-definition.ts';
import { legacyChains, legacyColumnsOf, type StoredReceiveMethod } from '../merchants/receive-methods.ts';
import { createServer } from 'node:net';
import type { ReceivedWebhook } from '../../core/webhooks/receiver.ts';
import type { Env } from '../../edge/settings.ts';
import { startSandbox, type Sandbox } from '../../sandbox/sandbox.ts';
import { newApiKey } from '../keys/api-keys.ts';
import { startCloud, type RunningCloud } from '../cloud-app.ts';
import type { ChainWithMerchants } from '../../core/merchant-chain.ts';
import { loadCloudConfig, type CloudConfig } from '../cloud-config.ts';
import { openCloudDatabase } from '../storage/cloud.schema.ts';
import type { CloudTables } from '../storage/cloud.tables.ts';
import type { Database } from '../../core/db/database.ts';
import { insertMerchant } from '../merchants/merchant.repository.ts';

/** The Cloud sandbox's database, relative to the directory it runs in: made afresh at start, removed at stop. */
export const CLOUD_SANDBOX_DATABASE_PATH = './data/cloud-sandbox.db';

/**
 * Settings that make `start --cloud` a real deployment: where its data lives, which chains it
 * watches, where payers and billing go. With none of them set (and NODE_ENV not production) it
 * runs the Cloud sandbox instead of watching mainnet through a public API.
 */
export const REAL_CLOUD_SETTINGS = [
  'DATABASE_URL',
  'BTC_ESPLORA_URL',
  'BTC_ESPLORA_WS_URL',
  'BASE_RPC_URL',
  'CLOUD_CHECKOUT_BASE_URL',
  'CLOUD_BILLING_MERCHANT_ID',
  'STRIPE_SECRET_KEY',
] as const;

export function wantsCloudSandbox(env: Env): boolean {
  if (env.NODE_ENV === 'production') return false;
  return !REAL_CLOUD_SETTINGS.some((name) => env[name]?.trim());
}

export interface CloudSandbox {
  sandbox: Sandbox;
  cloud: RunningCloud;
  /** The demo merchant: its id, shop and the API key, which exists only here and in the banner. */
  merchant: { merchantId: string; email: string; shopName: string; apiKey: string };
  /** Stops Cloud (requests under way get `graceMs`), then removes the sandbox's database and chains. */
  stop(options?: { graceMs?: number }): Promise<void>;
}

/** A loopback port free now, so the checkout URL can name the port before Cloud listens on it (PORT=0). */
async function freePort(host: string): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, resolve);
  });
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * The Cloud settings on the sandbox's chains: SQLite, Bitcoin through the local Esplora (test keys
 * read as regtest keys, explorer links to the sandbox's pages), Base on the local node with its two
 * sources, webhooks allowed to the loopback receiver, and hosted checkout on Cloud's own /pay.
 */
async function sandboxCloudConfig(sandbox: Sandbox, chains: readonly ChainDefinition[]): Promise<CloudConfig> {
  // sandbox.env: the user's settings with the sandbox's database, chains and keys over them.
  const loaded = loadCloudConfig({ ...sandbox.env, CLOUD_WEBHOOK_ALLOW_LOOPBACK: 'true' }, chains);
  const port = loaded.port || (await freePort(loaded.host));
  const explorer = sandbox.env.BTC_EXPLORER_URL!;
  // Listening on every interface (HOST=0.0.0.0 in a container), the links still name one a browser can open.
  const linkHost = ['0.0.0.0', '::', '[::]'].includes(loaded.host) ? '127.0.0.1' : loaded.host;
  return {
    ...loaded,
    port,
    checkoutBaseUrl: `http://${linkHost}:${port}`,
    chains: loaded.chains.map((entry) => {
      // Bitcoin's settings: the chain whose test keys are read on a network of the instance's choosing.
      if (!('testKeyNetwork' in (entry.settings as object))) return entry;
      const btc = entry.settings as { explorerUrls: Record<string, string> };
      return { ...entry, settings: { ...btc, testKeyNetwork: 'regtest', esploraNetwork: 'regtest', explorerUrls: { ...btc.explorerUrls, regtest: explorer } } };
    }),
  };
}

/**
 * The demo merchant, with the sandbox's throwaway keys: its Bitcoin key, on every EVM chain its xpub
 * (USDC, an address per invoice) and the sandbox's fixed address (USDT, and USDC with
 * SANDBOX_USDC_MODE=fixed-address), the simulated Lightning wallet, its webhooks to the sandbox's
 * receiver with that receiver's secret.
 */
async function insertDemoMerchant(database: Database<CloudTables>, chains: readonly ChainWithMerchants[], sandbox: Sandbox, now: number) {
  const key = newApiKey();
  // One Bitcoin key, and the sandbox's one EVM key and fixed address on every EVM chain it runs.
  const methods: StoredReceiveMethod[] = [
    ...(sandbox.env.MERCHANT_BTC_XPUB ? [{ chain: legacyChains.bitcoin, xpub: sandbox.env.MERCHANT_BTC_XPUB, address: null }] : []),
    ...sandbox.evms.map((evm) => ({ chain: evm.chain, xpub: sandbox.env.MERCHANT_EVM_XPUB ?? null, address: evm.fixedAddress })),
  ];
  const merchant = { merchantId: 'm_sandbox_demo', email: 'demo@example.com', shopName: 'Sandbox Demo Shop', apiKey: key.key };
  const stored = await insertMerchant(
    database.db,
    chains,
    {
      merchant_id: merchant.merchantId,
      email: merchant.email,
      shop_name: merchant.shopName,
      ...legacyColumnsOf(methods),
      receive_methods: JSON.stringify(methods),
      webhook_url: sandbox.webhookReceiver?.url ?? null,
      webhook_secret: sandbox.webhookReceiver ? sandbox.env.MERCHANT_WEBHOOK_SECRET! : null,
      // The sandbox's simulated Lightning wallet (regtest), on its local relay.
      lightning_nwc_url: sandbox.env.MERCHANT_NWC_URL ?? null,
      lightning_network: sandbox.env.MERCHANT_NWC_URL ? 'regtest' : null,
      plan: 'free',
      plan_expires_at: null,
      created_at: now,
    },
    { key_hash: key.hash, merchant_id: merchant.merchantId, prefix: key.prefix, label: 'sandbox demo', revoked: 0, scopes: null, created_at: now },
  );
  if (stored !== 'inserted') throw new Error(`the sandbox's demo merchant could not be stored (${stored}) in a fresh database`);
  return merchant;
}

/**
 * `service start --cloud` with no settings: Cloud on the listener sandbox's local chains, with one
 * demo merchant and the sandbox's webhook receiver. It never touches a public network.
 */
export async function startCloudSandbox(env: Env, chains: readonly ChainDefinition[], options: { onWebhook(event: ReceivedWebhook): void }): Promise<CloudSandbox> {
  // Cloud's webhook settings are per merchant; the sandbox's receiver is the demo merchant's.
  const sandbox = await startSandbox({ ...env, MERCHANT_WEBHOOK_URL: undefined }, { chains, onWebhook: options.onWebhook, edition: 'cloud', database: CLOUD_SANDBOX_DATABASE_PATH });
  let database: Database<CloudTables> | undefined;
  try {
    const config = await sandboxCloudConfig(sandbox, chains);
    database = await openCloudDatabase(config.databaseUrl, chains, { backgroundCheckpoints: true });
    const merchant = await insertDemoMerchant(database, chains, sandbox, Date.now());
    // Polls as the listener sandbox does, and merchants signed up on the dashboard are watched within seconds.
    const cloud = await startCloud(config, { database, chainWatch: { tuning: { bitcoin: { pollIntervalMs: 2_000 }, evm: { pollIntervalMs: 1_000 } }, refreshMs: 2_000 } });
    sandbox.announce(`${cloud.url}/api/v1`);
    const opened = database;
    return {
      sandbox,
      cloud,
      merchant,
      async stop(options) {
        await cloud.stop(options);
        await opened.close();
        await sandbox.close();
      },
    };
  } catch (error) {
    await database?.close();
    await sandbox.close();
    throw error;
  }
}
