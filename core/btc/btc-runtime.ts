import { tuningOf, type ChainRuntime, type ListenerChainParts, type PlatformChainRuntime } from '../chain-runtime.ts';
import { peekNextChildIndex } from '../invoices/invoice.repository.ts';
import { watchObserver } from '../metrics.ts';
import type { AccountKey } from './account-key.ts';
import { btcReceiver } from './btc-adapter.ts';
import { btcModule } from './btc-module.ts';
import { merchantScope, networksScope } from './btc-payment.repository.ts';
import { btcWatchingFor, type BtcSourceOptions, type BtcWatching } from './chain-source-factory.ts';
import type { BtcNetwork } from '../../shared/index.ts';
import { createVerifiedEsplora } from './verified-esplora.ts';
import { createMempoolSocket, mempoolSocketUrl } from './mempool-socket.ts';
import { createSharedChainSource } from './shared-chain-source.ts';
import { createReceiveAddressBook, type AddressDeriver } from './receive-address-book.ts';
import { createBtcWatcher } from './watcher.ts';
import { btcChainHealth } from './btc-health.ts';
import { createRelayPool, type RelayPool } from './lightning/relay-pool.ts';
import { createLightningWallet, LightningConnectionRefused, type LightningWallet } from './lightning/lightning-wallet.ts';
import { createLightningWatcher } from './lightning/lightning-watcher.ts';
import type { NwcConnection } from './lightning/nwc-connection.ts';
import { lightningReceiver } from './methods/lightning.ts';

/** The listener's Bitcoin settings (MERCHANT_BTC_XPUB, MERCHANT_NWC_URL and the BTC_ source settings). */
export interface BtcListenerSettings extends BtcSourceOptions {
  /** On-chain: the merchant's account key; null when it takes Lightning only. */
  accountKey: AccountKey | null;
  network: BtcNetwork;
  /** Lightning: the merchant's own wallet over Nostr Wallet Connect; null when on-chain only. */
  lightning: NwcConnection | null;
  explorerUrl: string;
}

/**
 * The listener's one Lightning wallet and the relay sockets it speaks through, made once for its
 * settings and shared by the receiver (invoices) and the watcher (settlements).
 */
const lightningParts = new WeakMap<BtcListenerSettings, { pool: RelayPool; wallet: LightningWallet }>();
function lightningOf(settings: BtcListenerSettings, parts: Pick<ListenerChainParts, 'db' | 'clock' | 'logger'>) {
  let made = lightningParts.get(settings);
  if (!made && settings.lightning) {
    const pool = createRelayPool({ clock: parts.clock, logger: parts.logger });
    const wallet = createLightningWallet(settings.lightning, { db: parts.db, pool, clock: parts.clock, logger: parts.logger, network: settings.network, setting: 'MERCHANT_NWC_URL' });
    made = { pool, wallet };
    lightningParts.set(settings, made);
  }
  return made ?? null;
}

/** The on-chain watcher of the merchant's account key, or null (with a warning) without a source or a key. */
function onchainWatch(settings: BtcListenerSettings, parts: ListenerChainParts) {
  const { db, feed, clock, logger, metrics, budgets, fetch, merchantId, tuning } = parts;
  if (!settings.accountKey) return null;
  const watching = btcWatchingFor(settings, {
    network: settings.network,
    fetch,
    budgets,
    db,
    clock,
    logger,
    onRejected: (source, reason) => metrics?.chainSourceRejections.inc({ chain: btcModule.chain, source, reason }),
  });
  if (!watching) {
    logger.warn('no Bitcoin chain source: set BTC_ESPLORA_URL or BTC_RPC_URL; payments are not watched');
    return null;
  }
  const watcher = createBtcWatcher({
    db,
    feed,
    scope: merchantScope(merchantId),
    keyId: settings.accountKey.keyId,
    ...watching,
    clock,
    logger,
    pollIntervalMs: tuningOf(tuning, btcModule.chain, btcModule.facts).pollIntervalMs,
    observer: watchObserver(metrics, btcModule.chain),
  });
  return { watcher, socket: watching.socket };
}

/** Bitcoin as the listener runs it for its merchant: the key's addresses and one watcher on the configured source, the wallet's Lightning invoices and their settlements. */
export const btcRuntime: ChainRuntime<BtcListenerSettings> = {
  async prepare(db, settings, context) {
    const lightning = lightningOf(settings, { db, ...context });
    if (!lightning) return null;
    try {
      await lightning.wallet.check();
    } catch (error) {
      if (error instanceof LightningConnectionRefused) {
        // The listener will not start: nothing of the refused connection stays open.
        lightning.wallet.close();
        lightning.pool.close();
        lightningParts.delete(settings);
        return error.message;
      }
      // A wallet that is offline now is not a wrong setting: invoices go on-chain only until it answers.
      context.logger.warn('the Lightning wallet did not answer at start; invoices are on-chain only until it does', { error: (error as Error).message });
    }
    return null;
  },
  explorerUrl: (settings) => settings.explorerUrl,
  network: (settings) => settings.network,
  async receiver(settings, parts) {
    const { db, worker } = parts;
    const onchain = settings.accountKey
      ? btcReceiver({
          accountKey: settings.accountKey,
          explorerUrl: settings.explorerUrl,
          ...createReceiveAddressBook(worker() as AddressDeriver, settings.accountKey, {
            nextIndex: await peekNextChildIndex(db, btcModule.chain, settings.accountKey.keyId),
          }),
        })
      : null;
    const lightning = lightningOf(settings, parts);
    if (!lightning) return onchain!;
    return lightningReceiver({ onchain, wallet: lightning.wallet, network: settings.network, explorerUrl: settings.explorerUrl });
  },
  watch(settings, parts) {
    const onchain = onchainWatch(settings, parts);
    const lightning = lightningOf(settings, parts);
    const ln = lightning && createLightningWatcher({ ...parts, wallet: lightning.wallet, pool: lightning.pool });
    if (!onchain && !ln) return null;
    const onchainStatus = () => onchain?.watcher.status();
    return {
      chain: btcModule.chain,
      start() {
        onchain?.watcher.start();
        ln?.start();
      },
      async stop() {
        await onchain?.watcher.stop();
        onchain?.socket?.close();
        await ln?.stop();
        lightning?.pool.close();
      },
      async syncOnce() {
        await onchain?.watcher.syncOnce();
        await ln?.syncOnce();
      },
      problem: () => onchain?.watcher.problem() ?? ln?.problem() ?? null,
      progress: () => onchainStatus()?.btc_progress ?? ln!.progress(),
      health() {
        const sections = ln ? { lightning: ln.health() } : {};
        const status = onchainStatus();
        // Lightning only: no addresses or blocks are watched; the wallet's state is in `lightning`.
        if (!status) return { headline: {}, sections, entry: { chain: btcModule.chain, health: { watched_addresses: 0, last_event_at: null, last_block_height: null, progress: ln!.progress() } } };
        // The count of merchants left out is Cloud's concern: the listener has one merchant.
        const { refused_merchants: _oneMerchant, ...headline } = status;
        return { headline, sections, entry: { chain: btcModule.chain, health: btcChainHealth(headline) } };
      },
    };
  },
};

/** The platform's Bitcoin settings: Esplora sources per network (several networks may share them). */
export interface BtcPlatformSettings {
  /** The network a merchant's tpub/vpub is taken for (regtest in the sandbox). */
  testKeyNetwork: BtcNetwork;
  /** Block-explorer base URL per network, for the checkout page. */
  explorerUrls: Record<string, string>;
  esploraUrls: Record<string, string[]>;
  /** The chain behind a URL that serves several networks' invoices: its headers are checked by this network's rules. */
  esploraNetwork: BtcNetwork;
  esploraSelfHosted: boolean;
  /** mempool.space WebSocket when not derived from the Esplora URL; 'off': poll only. */
  wsUrl: string | null;
  wsMaxAddresses: number;
  wsMaxConnections: number;
}

/**
 * Bitcoin on a multi-merchant platform: one watcher per Esplora URL, for every merchant's invoices
 * of the networks it serves, started once the first invoice of those networks exists: a platform
 * whose merchants take no Bitcoin never asks a public Esplora anything. With a third-party Esplora
 * (address-scoped watching) the watcher uses one mempool.space WebSocket, which tracks the newest
 * open invoices up to its limit, merchants in turns.
 */
export const btcPlatformRuntime: PlatformChainRuntime<BtcPlatformSettings> = {
  watches(settings, { db, feed, clock, logger, metrics, budgets, fetch, tuning }) {
    const networksByUrl = new Map<string, string[]>();
    for (const [network, urls] of Object.entries(settings.esploraUrls)) {
      const key = urls.join(',');
      networksByUrl.set(key, [...(networksByUrl.get(key) ?? []), network]);
    }
    const observer = metrics && watchObserver(metrics, btcModule.chain);

    function watching(urls: string[], network: BtcNetwork): BtcWatching {
      const { source, headers, first } = createVerifiedEsplora({
        network,
        urls,
        fetchFor: (u) => budgets.fetchFor(fetch, btcModule.chain, u, settings.esploraSelfHosted),
        sprintFor: (u) => budgets.sprintFor(btcModule.chain, u, settings.esploraSelfHosted),
        db,
        clock,
        logger,
        wrap: (esplora) => createSharedChainSource(esplora, { clock }),
        onRejected: (source, reason) => metrics?.chainSourceRejections.inc({ chain: btcModule.chain, source, reason }),
      });
      if (settings.esploraSelfHosted) return { source, headers, mode: 'full' };
      const wsUrl = settings.wsUrl === 'off' ? null : (settings.wsUrl ?? mempoolSocketUrl(urls[0]));
      const socket = wsUrl ? createMempoolSocket({ url: wsUrl, clock, logger, maxAddresses: settings.wsMaxAddresses, maxConnections: settings.wsMaxConnections }) : null;
      return { source, headers, mode: 'address', addresses: first, socket };
    }

    return [...networksByUrl].map(([urls, networks]) => {
      const scope = networksScope(networks);
      return {
        key: `${btcModule.chain}:${scope.networks!.join(',')}`,
        needed: async () =>
          Boolean(await db.selectFrom('invoices').select('invoice_id').where('chain', '=', btcModule.chain).where('network', 'in', scope.networks!).limit(1).executeTakeFirst()),
        start() {
          const watcher = createBtcWatcher({
            observer,
            db,
            feed,
            scope,
            ...watching(urls.split(','), networks.length === 1 ? (networks[0] as BtcNetwork) : settings.esploraNetwork),
            clock,
            logger: logger.child({ watch_scope: scope.key }),
            pollIntervalMs: tuningOf(tuning, btcModule.chain, btcModule.facts).pollIntervalMs,
          });
          watcher.start();
          return watcher;
        },
      };
    });
  },
};
