/**
 * What 1,000 merchants' Lightning wallets cost a Cloud instance at rest: the platform's relay pool
 * (one socket, their subscriptions folded 100 to a REQ) and its watcher (a pass every 15 s reading
 * the connections and looking up open invoices; none here), against the same process with the
 * platform not started, in one run. The relay and the simulated wallet run in this process too and
 * sit idle in both windows. Target: at most 2 % of a core, Cloud's idle target.
 */
import { defaultChains } from '../core/chains/default-chains.ts';
import { systemClock } from '../core/clock.ts';
import { silentLogger } from '../core/log.ts';
import { createMemoryStatusFeed } from '../core/invoices/status-feed.ts';
import { openCoreDatabase } from '../core/schema.ts';
import { createLightningPlatform } from '../core/btc/lightning/lightning-platform.ts';
import type { MerchantLightningConnection } from '../core/merchant-chain.ts';
import { startNostrRelay } from '../sandbox/nostr-relay.ts';
import { startLightningWallet } from '../sandbox/lightning-wallet.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { progress, report, round } from './support/report.ts';

const MERCHANTS = Number(process.env.BENCH_MERCHANTS ?? 1_000);
const WINDOW_MS = Number(process.env.BENCH_IDLE_WINDOW_MS ?? 30_000);
const TARGET_PERCENT = 2;

/** CPU of this process over `ms` of wall time, as a percentage of one core. */
async function cpuPercentOver(ms: number): Promise<number> {
  const before = process.cpuUsage();
  const started = performance.now();
  await new Promise((resolve) => setTimeout(resolve, ms));
  const used = process.cpuUsage(before);
  return ((used.user + used.system) / 1000 / (performance.now() - started)) * 100;
}

const dataDir = mkdtempSync(join(tmpdir(), 'bench-lightning-idle-'));
const relay = await startNostrRelay({ maxSubscriptionsPerConnection: 64 });
const wallet = await startLightningWallet({ relayUrls: [relay.url], network: 'regtest' });
const database = await openCoreDatabase(`sqlite:${join(dataDir, 'service.db')}`, defaultChains);
const connections: MerchantLightningConnection[] = Array.from({ length: MERCHANTS }, (_, i) => ({ merchantId: `m${i}`, connection: wallet.connectionUri(), network: 'regtest' }));
const platform = createLightningPlatform(
  { explorerUrls: { regtest: 'http://127.0.0.1:9/explorer' } },
  { db: database.db, feed: createMemoryStatusFeed(), clock: systemClock, logger: silentLogger, loopbackRelays: true, connections: async () => connections },
);

try {
  progress(`baseline: ${WINDOW_MS / 1000} s at rest without the platform…`);
  const baseline = await cpuPercentOver(WINDOW_MS);
  progress(`${MERCHANTS} merchants' wallets: subscribing…`);
  platform.start();
  const deadline = Date.now() + 60_000;
  while (relay.subscriptionCount() < 1 + MERCHANTS / 100 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  progress(`${relay.subscriptionCount()} subscriptions on ${relay.connectionCount()} sockets; ${WINDOW_MS / 1000} s at rest…`);
  const idle = await cpuPercentOver(WINDOW_MS);
  report(
    [
      `Lightning at rest, ${MERCHANTS} merchants' wallets on one relay (${relay.connectionCount() - 1} socket from the platform, ${relay.subscriptionCount() - 1} REQs):`,
      `  CPU with the platform: ${round(idle, 2)} % of a core (target <= ${TARGET_PERCENT} %)`,
      `  CPU without it:        ${round(baseline, 2)} % of a core`,
      `  RSS: ${round(process.memoryUsage().rss / 1e6, 1)} MB (relay, wallet and platform in one process)`,
    ],
    {
      bench: 'lightning-idle',
      value: round(idle, 3),
      unit: '% of a core',
      baseline: round(baseline, 3),
      ratio: round(idle / Math.max(baseline, 0.001), 2),
      target: `<= ${TARGET_PERCENT}`,
      merchants: MERCHANTS,
      platform_sockets: relay.connectionCount() - 1,
      platform_subscriptions: relay.subscriptionCount() - 1,
      rss_mb: round(process.memoryUsage().rss / 1e6, 1),
    },
  );
} finally {
  await platform.stop();
  platform.close();
  await database.close();
  await wallet.close();
  await relay.close();
  rmSync(dataDir, { recursive: true, force: true });
}
process.exit(0);
