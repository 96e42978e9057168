import { evmReceiver } from '../../core/evm/evm-adapter.ts';
import type { EvmReceiverOptions } from '../../core/evm/evm-invoices.ts';
import { parseEvmAccountXpub } from '../../core/evm/keys.ts';
import { parseAccountKey, type AccountKey } from '../../core/btc/account-key.ts';
import { btcReceiver, type BtcReceiverOptions } from '../../core/btc/btc-adapter.ts';
import { createReceiveAddressBook, onDemandAddresses, type AddressDeriver } from '../../core/btc/receive-address-book.ts';
import type { ChainReceiver } from '../../core/invoices/chain-adapter.ts';
import type { CloudConfig } from '../cloud-config.ts';
import { settingsOf } from '../../core/chain-definition.ts';
import type { BtcPlatformSettings } from '../../core/btc/btc-runtime.ts';
import type { EvmPlatformSettings } from '../../core/evm/evm-runtime.ts';

/** The platform's Bitcoin settings (Bitcoin is always on). */
const btcSettings = (config: CloudConfig) => settingsOf<BtcPlatformSettings>(config.chains, 'btc')!;
import type { MerchantRow } from './merchant.repository.ts';
import { receiveMethodsOf } from './receive-methods.ts';
import { btcModule } from '../../core/btc/btc-module.ts';

interface Receivers {
  /** The merchant's Base settings, which its Base watcher reads too. */
  base: EvmReceiverOptions | null;
  /** The merchant's settings on every EVM chain it receives on (Base's among them). */
  evm: EvmReceiverOptions[];
  /** The engine's receivers of the merchant, by chain. */
  chains: Partial<Record<string, ChainReceiver>>;
}

/** A merchant's Bitcoin key, a test-network key read on the instance's test network (regtest in the sandbox). */
export function merchantBtcKey(config: CloudConfig, text: string): AccountKey {
  const key = parseAccountKey(text);
  return key.network === 'testnet' && btcSettings(config).testKeyNetwork !== 'testnet' ? parseAccountKey(text, btcSettings(config).testKeyNetwork) : key;
}

/** SQLite (one instance): per merchant key, a small buffer; the first invoice after a start derives inline. */
const CLOUD_AHEAD = 64;
const CLOUD_BATCH = 32;

/**
 * Builds the engine's receive methods of a Cloud merchant from its stored public keys. Parsing a
 * key costs more than a request, so results are kept per merchant and key text (a changed key
 * makes a new entry); the cache is bounded. Bitcoin addresses come from the instance's one derive
 * worker: buffered ahead per key on SQLite; on Postgres, which several instances share, one at a
 * time when needed (a buffer per instance would derive every index on every instance).
 */
export function createMerchantReceivers(config: CloudConfig, workerOf: (chain: string) => unknown, sharedDatabase: boolean, maxEntries = 10_000) {
  // Bitcoin's worker is its address deriver (core/btc/bitcoin.ts).
  const deriver = workerOf(btcModule.chain) as AddressDeriver;
  const cache = new Map<string, Receivers>();
  // One buffer per key, not per merchant: merchants who registered the same key draw from one sequence.
  const books = new Map<string, ReturnType<typeof createReceiveAddressBook>>();
  const bookOf = (key: AccountKey) => {
    const bookKey = `${key.network}:${key.keyId}`;
    let book = books.get(bookKey);
    if (!book) {
      book = createReceiveAddressBook(deriver, key, { ahead: CLOUD_AHEAD, batch: CLOUD_BATCH });
      if (books.size >= maxEntries) books.delete(books.keys().next().value!);
      books.set(bookKey, book);
    }
    return book;
  };
  const addressesOf = (key: AccountKey) => (sharedDatabase ? onDemandAddresses(deriver, key) : bookOf(key));

  function build(row: MerchantRow): Receivers {
    const chains: Receivers['chains'] = {};
    const evm: EvmReceiverOptions[] = [];
    for (const method of receiveMethodsOf(row)) {
      if (method.chain === btcModule.chain && method.xpub) {
        const accountKey = merchantBtcKey(config, method.xpub);
        const btc: BtcReceiverOptions = { accountKey, explorerUrl: btcSettings(config).explorerUrls[accountKey.network], ...addressesOf(accountKey) };
        chains[method.chain] = btcReceiver(btc);
        continue;
      }
      // An EVM chain the platform has no RPC URL for stays off for every merchant.
      const shared = settingsOf<EvmPlatformSettings>(config.chains, method.chain);
      if (!shared) continue;
      const key = method.xpub ? parseEvmAccountXpub(method.xpub) : null;
      const tokens = new Map(shared.tokens);
      // USDT is served in fixed-address mode only. A merchant with both an xpub and an address
      // (the sandbox's demo merchant) takes USDC per address and USDT at the fixed one.
      if (!method.address) tokens.delete('usdt');
      const options: EvmReceiverOptions = { base: { ...shared, tokens, xpub: key && { key, keyId: key.keyId }, fixedAddress: method.address } };
      evm.push(options);
      chains[method.chain] = evmReceiver(options);
    }
    return { base: evm.find((options) => options.base.chain === 'base') ?? null, evm, chains };
  }

  return {
    receivers(row: MerchantRow): Receivers {
      const cacheKey = `${row.merchant_id}\n${row.btc_xpub}\n${row.base_xpub}\n${row.base_address}\n${row.receive_methods}`;
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
