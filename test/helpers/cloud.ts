import { defaultChains } from '../../core/chains/default-chains.ts';
import { startCloud, type CloudDeps, type RunningCloud } from '../../cloud/cloud-app.ts';
import { loadCloudConfig } from '../../cloud/cloud-config.ts';
import type { Env } from '../../edge/settings.ts';
import { silentLogger } from '../../core/log.ts';
import { LocalBtcChain } from '../../sandbox/local-btc-chain.ts';
import { startLocalChainServer } from '../../sandbox/local-chain-server.ts';
import { NO_CHAIN_ESPLORA_URL, postJson, tempSqliteUrl } from './listener.ts';
import { releasedPort } from './ports.ts';

/** A real Cloud instance on a random loopback port; a fresh SQLite file unless told otherwise. */
export async function startTestCloud(options: { env?: Env; deps?: CloudDeps } = {}): Promise<RunningCloud> {
  const config = loadCloudConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATABASE_URL: tempSqliteUrl(),
    BTC_ESPLORA_URL: NO_CHAIN_ESPLORA_URL,
    CLOUD_WATCH: 'false',
    ...options.env,
  }, defaultChains);
  return startCloud(config, { logger: silentLogger, resolve: async () => [{ address: '93.184.216.34', family: 4 }], ...options.deps });
}

let signups = 0;

/** Signs a merchant up and returns its key and id. */
export async function signupMerchant(baseUrl: string, body: Record<string, unknown>) {
  const response = await postJson(`${baseUrl}/api/v1/signup`, { email: `m${++signups}-${Date.now()}@example.com`, shop_name: 'Test Shop', ...body });
  if (response.status !== 201) throw new Error(`signup failed: ${response.status} ${response.text}`);
  return response.json as { merchant_id: string; api_key: string; key_prefix: string; webhook_secret?: string; plan: string };
}

export async function getJson(url: string, headers: Record<string, string> = {}) {
  const response = await fetch(url, { headers });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: text ? JSON.parse(text) : undefined };
}

/**
 * A Cloud on a port known before it starts (so `checkout_url` points at it) that watches the local
 * regtest chain through its Esplora API, leading at once and polling fast; merchants sign up with a
 * testnet key (`testAccountKey`) and are paid with `payeeOf(address)`.
 */
export async function startLocalChainCloud(options: { env?: Env; deps?: CloudDeps } = {}) {
  const chain = new LocalBtcChain();
  const chainServer = await startLocalChainServer(chain);
  const port = await releasedPort();
  const cloud = await startTestCloud({
    env: {
      PORT: String(port),
      CLOUD_CHECKOUT_BASE_URL: `http://127.0.0.1:${port}`,
      BTC_ESPLORA_URL: chainServer.esploraUrl,
      BTC_ESPLORA_NETWORK: 'regtest',
      CLOUD_WATCH: 'true',
      ...options.env,
    },
    deps: { leaderRetryMs: 100, chainWatch: { tuning: { bitcoin: { pollIntervalMs: 100 } }, refreshMs: 100 }, ...options.deps },
  });
  return {
    cloud,
    chain,
    /** The watcher's view, for a wait that times out. */
    watcher: () => ({ tip: chain.tip.height, leader: cloud.isLeader(), watchers: cloud.watcherStates() }),
    async close() {
      await cloud.stop();
      await chainServer.close();
    },
  };
}
