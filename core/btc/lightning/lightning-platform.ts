import type { Kysely } from 'kysely';
import { ServiceError } from '../../errors.ts';
import type { LightningPlatform, LightningPlatformParts, MerchantLightningConnection } from '../../merchant-chain.ts';
import { createPollLoop } from '../../poll-loop.ts';
import type { CoreTables } from '../../schema.ts';
import { createWatchProgress, type WatcherProblem } from '../../watch-progress.ts';
import { exponentialBackoffMs } from '../../net/backoff.ts';
import { lightningReceiver } from '../methods/lightning.ts';
import type { BtcNetwork } from '../../../shared/index.ts';
import { reportOf, settleLightningPayment } from './lightning-settlement.ts';
import { createLightningWallet, type LightningWallet } from './lightning-wallet.ts';
import { createNwcClient, type NwcTransaction, type NwcWalletInfo } from './nwc-client.ts';
import { NwcConnectionError, parseNwcConnection, shortWalletKey } from './nwc-connection.ts';
import { connectionRefusal } from './wallet-permissions.ts';
import { createRelayPool, publicOnlyConnect, type RelayPool } from './relay-pool.ts';
import { createLookupPlanner, type PlannedLookup } from './lookup-planner.ts';
import type { Clock } from '../../clock.ts';

/** How long a merchant's wallet may take to answer when its connection is saved. */
const CHECK_TIMEOUT_MS = 10_000;
/** Merchants' wallets looked up at once in a pass. */
const LOOKUP_LANES = 8;

export interface LightningPlatformSettings {
  /** Block-explorer base URL per network the platform serves: a wallet on any other network is refused. */
  explorerUrls: Record<string, string>;
  /** How often the merchants' connections are read again and open invoices looked up. */
  refreshMs?: number;
  /** lookup_invoice requests one pass may make, shared evenly by the merchants whose turn it is. */
  lookupsPerPass?: number;
  /** Wallets kept open at once (LRU). */
  maxWallets?: number;
}

/**
 * Lightning for every merchant of a platform, each through its own wallet: one relay pool for the
 * instance (a socket per relay whatever the number of merchants, their subscriptions folded into a
 * bounded number of REQs), a wallet per merchant kept while used, and on the elected instance one
 * watcher for all of them: their notifications settle invoices as they come, and each pass looks up
 * at most `lookupsPerPass` open invoices, the merchants taking turns (lookup-planner.ts).
 */
export function createLightningPlatform(settings: LightningPlatformSettings, parts: LightningPlatformParts): LightningPlatform {
  const { db, clock, logger } = parts;
  // Relays are the merchants' choice: on a platform that takes no loopback relay, every dial may reach only public addresses.
  const pool = createRelayPool({ clock, logger, ...(parts.loopbackRelays ? {} : { connect: publicOnlyConnect(parts.resolve) }) });
  const listening = new Map<string, () => void>();
  const wallets = walletRegistry({ db, pool, clock, logger, loopbackRelays: parts.loopbackRelays, maxWallets: settings.maxWallets ?? 10_000, inUse: (key) => listening.has(key) });
  const progress = createWatchProgress(clock);
  const planLookups = createLookupPlanner(db, settings.lookupsPerPass ?? 50);
  const issueReporting = problemReporter(parts);
  let refused = 0;
  let lastProblem: string | null = null;

  async function settle(merchantId: string, transaction: NwcTransaction, how: string) {
    const report = reportOf(transaction);
    if (!report) return;
    const outcome = await settleLightningPayment({ db, feed: parts.feed, clock }, merchantId, report);
    if (outcome === 'refused') {
      refused += 1;
      lastProblem = `${refused} settlement(s) refused: ${how} with a preimage that does not hash to the payment hash`;
      logger.warn('lightning settlement refused', { merchant_id: merchantId, payment_hash: transaction.payment_hash });
    }
  }

  /** Listens to every saved connection, and stops listening to those no longer saved. */
  async function refreshConnections(): Promise<Map<string, LightningWallet>> {
    const byMerchant = new Map<string, LightningWallet>();
    const current = new Set<string>();
    for (const m of await parts.connections()) {
      let wallet: LightningWallet;
      try {
        wallet = wallets.walletOf(m);
      } catch {
        continue; // A connection saved by an older release that no longer parses: that merchant alone goes without.
      }
      const key = walletKey(m);
      current.add(key);
      byMerchant.set(m.merchantId, wallet);
      if (listening.has(key)) continue;
      listening.set(
        key,
        wallet.client.onNotification((n) => {
          if (n.notification_type === 'payment_received') settle(m.merchantId, n.notification, 'payment_received').catch((error) => logger.error('lightning settlement failed', { error }));
        }),
      );
    }
    for (const [key, stop] of listening) {
      if (current.has(key)) continue;
      stop();
      listening.delete(key);
      wallets.drop(key);
    }
    return byMerchant;
  }

  async function pass() {
    progress.step('reading the merchants’ Lightning connections');
    const byMerchant = await refreshConnections();
    progress.step('looking up open Lightning invoices');
    const turns = await planLookups((merchantId) => byMerchant.has(merchantId));
    // Merchants' wallets side by side, a few at a time: a silent wallet holds one lane for one timeout, not the pass.
    await eachWithin(turns, LOOKUP_LANES, (lookups) => lookUpTurn(byMerchant.get(lookups[0].merchantId)!, lookups, (merchantId, found) => settle(merchantId, found, 'lookup_invoice')));
  }

  const loop = createPollLoop({
    pass: () => progress.track(pass),
    waitMs: (failures) => (failures ? exponentialBackoffMs(failures, 2_000, 60_000) : (parts.refreshMs ?? settings.refreshMs ?? 15_000)),
    failed: (error, failures) => {
      if (failures === 1) logger.warn('lightning pass failed', { error: (error as Error).message });
    },
    progress,
  });

  return {
    check: (text, field) => checkConnection(text, field, { pool, clock, loopbackRelays: parts.loopbackRelays, explorerUrls: settings.explorerUrls }),
    describe(text) {
      try {
        return describe(parseNwcConnection(text, { loopbackRelays: parts.loopbackRelays }));
      } catch {
        return null;
      }
    },
    receiver(onchain, merchant) {
      const issue = (params: Parameters<LightningWallet['issue']>[0]) => issueReporting(wallets.walletOf(merchant), merchant, params);
      const receiver = lightningReceiver({ onchain, wallet: { issue }, network: merchant.network as BtcNetwork, explorerUrl: settings.explorerUrls[merchant.network] ?? '' });
      return { receiver, assets: onchain ? ['btc-lightning'] : ['btc', 'btc-lightning'] };
    },
    start: () => loop.start(),
    async stop() {
      await loop.stop();
      for (const stop of listening.values()) stop();
      listening.clear();
    },
    problems: () => platformProblems(pool, lastProblem, clock.now()),
    close() {
      wallets.closeAll();
      pool.close();
    },
  };
}

/** The refused settlements, and each relay down (being retried) or cut off: the merchants on it hear no notifications until it is back. */
function platformProblems(pool: RelayPool, lastProblem: string | null, now: number): WatcherProblem[] {
  const since = new Date(now).toISOString();
  const relays = pool
    .health()
    .filter((relay) => relay.problem && relay.problem !== 'connecting')
    .map((relay): WatcherProblem => ({ component: 'lightning', kind: 'failing', reason: `relay ${relay.relay}: ${relay.problem}`, since }));
  return [...(lastProblem ? [{ component: 'lightning', kind: 'invalid-source' as const, reason: lastProblem, since }] : []), ...relays];
}

function describe(connection: { walletPubkey: string; relays: string[] }) {
  return { wallet: shortWalletKey(connection.walletPubkey), relays: connection.relays };
}

/**
 * Issues through a merchant's wallet and tells `reportProblem` when the outcome changes: the
 * wallet's problem on a failure, null on a success. Each wallet's first outcome is told too, so a
 * problem stored before a restart is cleared by the next invoice that works.
 */
function problemReporter(parts: LightningPlatformParts) {
  const told = new WeakMap<LightningWallet, string | null>();
  const tell = async (wallet: LightningWallet, merchant: MerchantLightningConnection, problem: string | null) => {
    if (told.has(wallet) && told.get(wallet) === problem) return;
    told.set(wallet, problem);
    // Awaited, so the merchant's next read sees it; a failed write costs the invoice nothing.
    await parts.reportProblem?.(merchant, problem).catch((error) => parts.logger.warn('lightning problem not recorded', { merchant_id: merchant.merchantId, error: String(error) }));
  };
  return async (wallet: LightningWallet, merchant: MerchantLightningConnection, params: Parameters<LightningWallet['issue']>[0]) => {
    try {
      const issued = await wallet.issue(params);
      await tell(wallet, merchant, null);
      return issued;
    } catch (error) {
      await tell(wallet, merchant, wallet.problem() ?? (error as Error).message);
      throw error;
    }
  };
}

/** One merchant's turn of lookups, in order; a wallet that fails one keeps the rest for its next turn. */
async function lookUpTurn(wallet: LightningWallet, lookups: PlannedLookup[], settle: (merchantId: string, found: NwcTransaction) => Promise<void>) {
  for (const { merchantId, paymentHash } of lookups) {
    let found;
    try {
      found = await wallet.client.lookupInvoice(paymentHash);
    } catch {
      return;
    }
    if (found && (found.state === 'settled' || found.settled_at)) await settle(merchantId, { ...found, payment_hash: paymentHash });
  }
}

/** Runs `work` on every item, at most `lanes` at once. */
async function eachWithin<T>(items: readonly T[], lanes: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await work(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(lanes, items.length) }, lane));
}

const walletKey = (m: MerchantLightningConnection) => `${m.merchantId}\n${m.connection}`;

/** The merchants' wallets kept open, at most `maxWallets` (least recently used first out, unless a listener still uses it). */
function walletRegistry(deps: { db: Kysely<CoreTables>; pool: RelayPool; clock: Clock; logger: LightningPlatformParts['logger']; loopbackRelays: boolean; maxWallets: number; inUse(key: string): boolean }) {
  const wallets = new Map<string, LightningWallet>();
  return {
    walletOf(m: MerchantLightningConnection): LightningWallet {
      const key = walletKey(m);
      let wallet = wallets.get(key);
      if (wallet) {
        wallets.delete(key);
        wallets.set(key, wallet);
        return wallet;
      }
      const connection = parseNwcConnection(m.connection, { loopbackRelays: deps.loopbackRelays });
      wallet = createLightningWallet(connection, { db: deps.db, pool: deps.pool, clock: deps.clock, logger: deps.logger, network: m.network, setting: 'the Lightning connection' });
      if (wallets.size >= deps.maxWallets) {
        const [oldestKey, oldest] = wallets.entries().next().value!;
        if (!deps.inUse(oldestKey)) oldest.close();
        wallets.delete(oldestKey);
      }
      wallets.set(key, wallet);
      return wallet;
    },
    drop(key: string) {
      wallets.get(key)?.close();
      wallets.delete(key);
    },
    closeAll() {
      for (const wallet of wallets.values()) wallet.close();
      wallets.clear();
    },
  };
}

/** Parses and checks a connection a merchant saves: it answers get_info, may only receive, and its wallet is on a network served. */
async function checkConnection(text: string, field: string, deps: { pool: RelayPool; clock: Clock; loopbackRelays: boolean; explorerUrls: Record<string, string> }) {
  let connection;
  try {
    connection = parseNwcConnection(text, { loopbackRelays: deps.loopbackRelays });
  } catch (error) {
    if (error instanceof NwcConnectionError) throw new ServiceError('invalid_lightning_connection', `${field} ${error.message}.`);
    throw error;
  }
  const client = createNwcClient(connection, { pool: deps.pool, clock: deps.clock });
  let info: NwcWalletInfo;
  try {
    info = await client.walletInfo(CHECK_TIMEOUT_MS);
  } catch (error) {
    throw new ServiceError('lightning_unavailable', `The Lightning wallet did not answer over its relays (${(error as Error).message}); nothing was saved. Check that the wallet is online and retry.`, { retryAfterS: 10 });
  } finally {
    client.close();
  }
  const refusal = connectionRefusal(info, field);
  if (refusal) throw new ServiceError('invalid_lightning_connection', refusal);
  const network = info.network ?? 'mainnet';
  if (!deps.explorerUrls[network]) throw new ServiceError('invalid_lightning_connection', `${field}: the wallet is on ${network}, a network this service does not serve.`);
  return { ...describe(connection), network };
}
