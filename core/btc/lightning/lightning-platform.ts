import type { Kysely } from 'kysely';
import { ServiceError } from '../../errors.ts';
import type { LightningPlatform, LightningPlatformParts, MerchantLightningConnection } from '../../merchant-chain.ts';
import { createPollLoop } from '../../poll-loop.ts';
import type { CoreTables } from '../../schema.ts';
import { createWatchProgress, type WatcherProblem } from '../../watch-progress.ts';
import { exponentialBackoffMs } from '../../net/backoff.ts';
import { lightningReceiver } from '../methods/lightning.ts';
import type { BtcNetwork } from '../../../shared/index.ts';
import { settleLightningPayment } from './lightning-settlement.ts';
import { createLightningWallet, type LightningWallet } from './lightning-wallet.ts';
import { createNwcClient, type NwcTransaction, type NwcWalletInfo } from './nwc-client.ts';
import { NwcConnectionError, parseNwcConnection } from './nwc-connection.ts';
import { connectionRefusal } from './wallet-permissions.ts';
import { createRelayPool } from './relay-pool.ts';

/** How long a merchant's wallet may take to answer when its connection is saved. */
const CHECK_TIMEOUT_MS = 10_000;

export interface LightningPlatformSettings {
  /** Block-explorer base URL per network the platform serves: a wallet on any other network is refused. */
  explorerUrls: Record<string, string>;
  /** How often the merchants' connections are read again and open invoices looked up. */
  refreshMs?: number;
  /** lookup_invoice requests one pass may make, over every merchant (newest invoices first). */
  lookupsPerPass?: number;
  /** Wallets kept open at once (LRU). */
  maxWallets?: number;
}

/**
 * Lightning for every merchant of a platform, each through its own wallet: one relay pool for the
 * instance (a socket per relay whatever the number of merchants, their subscriptions folded into a
 * bounded number of REQs), a wallet per merchant kept while used, and on the elected instance one
 * watcher for all of them: their notifications settle invoices as they come, and each pass looks up
 * at most `lookupsPerPass` open invoices across all merchants, newest first.
 */
export function createLightningPlatform(settings: LightningPlatformSettings, parts: LightningPlatformParts): LightningPlatform {
  const { db, clock, logger } = parts;
  const pool = createRelayPool({ clock, logger });
  const wallets = new Map<string, LightningWallet>();
  const listening = new Map<string, () => void>();
  const maxWallets = settings.maxWallets ?? 10_000;
  const progress = createWatchProgress(clock);
  let refused = 0;
  let lastProblem: string | null = null;

  const keyOf = (m: MerchantLightningConnection) => `${m.merchantId}\n${m.connection}`;
  function walletOf(m: MerchantLightningConnection): LightningWallet {
    const key = keyOf(m);
    let wallet = wallets.get(key);
    if (wallet) {
      wallets.delete(key);
      wallets.set(key, wallet);
      return wallet;
    }
    const connection = parseNwcConnection(m.connection, { loopbackRelays: parts.loopbackRelays });
    wallet = createLightningWallet(connection, { db, pool, clock, logger, network: m.network, setting: 'the Lightning connection' });
    if (wallets.size >= maxWallets) {
      const [oldestKey, oldest] = wallets.entries().next().value!;
      if (!listening.has(oldestKey)) oldest.close();
      wallets.delete(oldestKey);
    }
    wallets.set(key, wallet);
    return wallet;
  }

  async function settle(merchantId: string, transaction: NwcTransaction, how: string) {
    if (typeof transaction.payment_hash !== 'string' || typeof transaction.preimage !== 'string' || !Number.isSafeInteger(transaction.amount)) return;
    const outcome = await settleLightningPayment({ db, feed: parts.feed, clock }, merchantId, {
      paymentHash: transaction.payment_hash,
      preimage: transaction.preimage,
      amountMsat: BigInt(transaction.amount),
      settledAt: Number.isSafeInteger(transaction.settled_at) ? transaction.settled_at! * 1000 : null,
    });
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
        wallet = walletOf(m);
      } catch {
        continue; // A connection saved by an older release that no longer parses: that merchant alone goes without.
      }
      const key = keyOf(m);
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
      wallets.get(key)?.close();
      wallets.delete(key);
    }
    return byMerchant;
  }

  async function pass() {
    progress.step('reading the merchants’ Lightning connections');
    const byMerchant = await refreshConnections();
    progress.step('looking up open Lightning invoices');
    for (const row of await openLightningInvoices(db, settings.lookupsPerPass ?? 50)) {
      const wallet = byMerchant.get(row.merchant_id);
      const found = wallet ? await wallet.client.lookupInvoice(row.payment_hash!).catch(() => null) : null;
      if (found && (found.state === 'settled' || found.settled_at)) await settle(row.merchant_id, { ...found, payment_hash: row.payment_hash! }, 'lookup_invoice');
    }
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
    async check(text, field) {
      let connection;
      try {
        connection = parseNwcConnection(text, { loopbackRelays: parts.loopbackRelays });
      } catch (error) {
        if (error instanceof NwcConnectionError) throw new ServiceError('invalid_lightning_connection', `${field} ${error.message}.`);
        throw error;
      }
      const client = createNwcClient(connection, { pool, clock });
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
      if (!settings.explorerUrls[network]) throw new ServiceError('invalid_lightning_connection', `${field}: the wallet is on ${network}, a network this service does not serve.`);
      return { ...describe(connection), network };
    },
    describe(text) {
      try {
        return describe(parseNwcConnection(text, { loopbackRelays: parts.loopbackRelays }));
      } catch {
        return null;
      }
    },
    receiver(onchain, merchant) {
      const receiver = lightningReceiver({ onchain, wallet: { issue: (params) => walletOf(merchant).issue(params) }, network: merchant.network as BtcNetwork, explorerUrl: settings.explorerUrls[merchant.network] ?? '' });
      return { receiver, assets: onchain ? ['btc-lightning'] : ['btc', 'btc-lightning'] };
    },
    start: () => loop.start(),
    async stop() {
      await loop.stop();
      for (const stop of listening.values()) stop();
      listening.clear();
    },
    problems(): WatcherProblem[] {
      const now = new Date(clock.now()).toISOString();
      return lastProblem ? [{ component: 'lightning', kind: 'invalid-source', reason: lastProblem, since: now }] : [];
    },
    close() {
      for (const wallet of wallets.values()) wallet.close();
      wallets.clear();
      pool.close();
    },
  };
}

function describe(connection: { walletPubkey: string; relays: string[] }) {
  return { wallet: `${connection.walletPubkey.slice(0, 8)}…${connection.walletPubkey.slice(-4)}`, relays: connection.relays };
}

/** Open invoices of any merchant with a Lightning invoice, newest first. */
function openLightningInvoices(db: Kysely<CoreTables>, limit: number) {
  return db
    .selectFrom('invoices')
    .select(['merchant_id', 'payment_hash'])
    .where('status', 'in', ['pending', 'partial'])
    .where('payment_hash', 'is not', null)
    .orderBy('created_at', 'desc')
    .limit(limit)
    .execute();
}
