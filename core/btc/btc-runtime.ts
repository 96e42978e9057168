import type { ChainRuntime } from '../chain-runtime.ts';
import { peekNextChildIndex } from '../invoices/invoice.repository.ts';
import { watchObserver } from '../metrics.ts';
import type { AccountKey } from './account-key.ts';
import { btcReceiver } from './btc-adapter.ts';
import { btcModule } from './btc-module.ts';
import { merchantScope } from './btc-payment.repository.ts';
import { btcWatchingFor, type BtcSourceOptions } from './chain-source-factory.ts';
import { createReceiveAddressBook } from './receive-address-book.ts';
import { createBtcWatcher } from './watcher.ts';

/** The listener's Bitcoin settings (MERCHANT_BTC_XPUB and the BTC_ source settings). */
export interface BtcListenerSettings extends BtcSourceOptions {
  accountKey: AccountKey;
  explorerUrl: string;
}

/** Bitcoin as the listener runs it for its merchant: the key's addresses, one watcher on the configured source. */
export const btcRuntime: ChainRuntime<BtcListenerSettings> = {
  chain: btcModule.chain,
  explorerUrl: (settings) => settings.explorerUrl,
  network: (settings) => settings.accountKey.network,
  async receiver(settings, { db, addressDeriver }) {
    return btcReceiver({
      accountKey: settings.accountKey,
      explorerUrl: settings.explorerUrl,
      ...createReceiveAddressBook(addressDeriver(), settings.accountKey, {
        nextIndex: await peekNextChildIndex(db, btcModule.chain, settings.accountKey.keyId),
      }),
    });
  },
  watch(settings, { db, feed, clock, logger, metrics, budgets, fetch, merchantId, tuning }) {
    const watching = btcWatchingFor(settings, { fetch, budgets, clock, logger });
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
      pollIntervalMs: tuning.btcPollIntervalMs,
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
        return { headline, sections: {} };
      },
    };
  },
};
