import type { AssetId } from '../../shared/index.ts';
import type { ChainReceiver } from '../../core/invoices/chain-adapter.ts';
import { settingsOf } from '../../core/chain-definition.ts';
import type { LightningPlatform } from '../../core/merchant-chain.ts';
import type { CloudConfig } from '../cloud-config.ts';
import type { MerchantRow } from './merchant.repository.ts';
import { receiveMethodsOf } from './receive-methods.ts';

interface Receivers {
  /** The engine's receivers of the merchant, by chain. */
  chains: Partial<Record<string, ChainReceiver>>;
  /** The assets the merchant's receive methods let an invoice be created in, in the platform's chain order. */
  assets: AssetId[];
  /**
   * A Lightning wallet is the merchant's only way to be paid in Bitcoin (no Bitcoin key): its assets
   * still read `btc` and `btc-lightning`, but a Bitcoin invoice cannot ask for `onchain`.
   */
  lightningOnly: boolean;
}

/**
 * Builds the engine's receive methods of a Cloud merchant from its stored public keys, each by its
 * chain; a chain the platform has no settings for (an EVM chain without an RPC URL) stays off for
 * every merchant. Parsing a key costs more than a request, so results are kept per merchant and key
 * text (a changed key makes a new entry); the cache is bounded.
 */
export function createMerchantReceivers(
  deps: {
    config: CloudConfig;
    /** The chain's worker the engine started (Bitcoin's address deriver), given to its merchant part. */
    workerOf(chain: string): unknown;
    sharedDatabase: boolean;
    /** Lightning through each merchant's own wallet, on the chain that offers it; null where none does. */
    lightning: { chain: string; platform: LightningPlatform } | null;
  },
  maxEntries = 10_000,
) {
  const cache = new Map<string, Receivers>();
  const builders = deps.config.chainDefinitions.flatMap((chain) => {
    const settings = settingsOf(deps.config.chains, chain.chain);
    const parts = { worker: () => deps.workerOf(chain.chain), sharedDatabase: deps.sharedDatabase, maxEntries };
    return settings ? [{ chain: chain.chain, build: chain.merchant.receivers(settings, parts) }] : [];
  });

  function build(row: MerchantRow): Receivers {
    const methods = receiveMethodsOf(row);
    const receivers: Receivers = { chains: {}, assets: [], lightningOnly: false };
    for (const { chain, build } of builders) {
      const method = methods.find((candidate) => candidate.chain === chain);
      const built = method && build(method);
      if (!built) continue;
      receivers.chains[chain] = built.receiver;
      receivers.assets.push(...built.assets);
    }
    const lightning = deps.lightning;
    if (lightning && row.lightning_nwc_url) {
      const connection = { merchantId: row.merchant_id, connection: row.lightning_nwc_url, network: row.lightning_network ?? 'mainnet' };
      const onchain = receivers.chains[lightning.chain] ?? null;
      const built = lightning.platform.receiver(onchain, connection);
      receivers.lightningOnly = onchain === null;
      receivers.chains[lightning.chain] = built.receiver;
      receivers.assets.push(...built.assets.filter((asset) => !receivers.assets.includes(asset)));
    }
    return receivers;
  }

  return {
    receivers(row: MerchantRow): Receivers {
      const cacheKey = `${row.merchant_id}\n${row.btc_xpub}\n${row.base_xpub}\n${row.base_address}\n${row.receive_methods}\n${row.lightning_nwc_url}`;
      let entry = cache.get(cacheKey);
      if (!entry) {
        entry = build(row);
        if (cache.size >= maxEntries) cache.delete(cache.keys().next().value!);
        cache.set(cacheKey, entry);
      }
      return entry;
    },
  };
}
