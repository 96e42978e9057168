import { tuningOf, type ChainRuntime, type PlatformChainRuntime } from '../chain-runtime.ts';
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

/** The listener's Bitcoin settings (MERCHANT_BTC_XPUB and the BTC_ source settings). */
export interface BtcListenerSettings extends BtcSourceOptions {
  accountKey: AccountKey;
  explorerUrl: string;
}

/** Bitcoin as the listener runs it for its merchant: the key's addresses, one watcher on the configured source. */
export const btcRuntime: ChainRuntime<BtcListenerSettings> = {
  prepare: async () => null,
  explorerUrl: (settings) => settings.explorerUrl,
  network: (settings) => settings.accountKey.network,
  async receiver(settings, { db, worker }) {
    return btcReceiver({
      accountKey: settings.accountKey,
      explorerUrl: settings.explorerUrl,
      ...createReceiveAddressBook(worker() as AddressDeriver, settings.accountKey, {
        nextIndex: await peekNextChildIndex(db, btcModule.chain, settings.accountKey.keyId),
      }),
    });
  },
  watch(settings, { db, feed, clock, logger, metrics, budgets, fetch, merchantId, tuning }) {
    const watching = btcWatchingFor(settings, {
      network: settings.accountKey.network,
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
    return {
      chain: btcModule.chain,
      start: () => watcher.start(),
      async stop() {
        await watcher.stop();
        watching.socket?.close();
      },
      async syncOnce() {
        await watcher.syncOnce();
      },
      problem: () => watcher.problem(),
      progress: () => watcher.status().btc_progress,
      health() {
        // The count of merchants left out is Cloud's concern: the listener has one merchant.
        const { refused_merchants: _oneMerchant, ...headline } = watcher.status();
        return { headline, sections: {}, entry: { chain: btcModule.chain, health: btcChainHealth(headline) } };
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
