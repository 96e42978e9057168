import type { BtcNetwork } from '../../shared/index.ts';
import { ServiceError } from '../errors.ts';
import type { MerchantChain } from '../merchant-chain.ts';
import { AccountKeyError, containsExtendedPrivateKey, parseAccountKey, type AccountKey } from './account-key.ts';
import { btcReceiver } from './btc-adapter.ts';
import { createLightningPlatform } from './lightning/lightning-platform.ts';
import { createReceiveAddressBook, onDemandAddresses, type AddressDeriver, type ReceiveAddressBook } from './receive-address-book.ts';

/** The platform's Bitcoin settings its merchants' receivers read. */
export interface BtcMerchantSettings {
  /** The network a test-network key (tpub/vpub) is read on: testnet, or regtest in the Cloud sandbox. */
  testKeyNetwork: BtcNetwork;
  /** Block-explorer base URL per network. */
  explorerUrls: Record<string, string>;
  /** The networks the platform watches (its Esplora URLs by network): a Lightning wallet on another is refused. */
  esploraUrls?: Record<string, string[]>;
}

/** A merchant's Bitcoin key, a test-network key read on the platform's test network (regtest in the sandbox). */
export function merchantAccountKey(settings: BtcMerchantSettings, text: string): AccountKey {
  const key = parseAccountKey(text);
  const testKeyNetwork = settings.testKeyNetwork;
  return key.network === 'testnet' && testKeyNetwork !== 'testnet' ? parseAccountKey(text, testKeyNetwork) : key;
}

/**
 * One instance with its own database: per merchant key, a small buffer that grows with the key's
 * use (most of a platform's keys make a few invoices); the first invoice after a start derives inline.
 */
const MERCHANT_AHEAD = 64;
const MERCHANT_BATCH = 32;

/** Bitcoin for a multi-merchant platform: an account key per merchant, never a fixed address. */
export const btcMerchant: MerchantChain<BtcMerchantSettings> = {
  checkMethod({ xpub, address }, field) {
    if (address) throw new ServiceError('invalid_address', `${field('address')}: a fixed address is for EVM chains only.`);
    if (!xpub) throw new ServiceError('invalid_xpub', `${field('xpub')} is required for btc.`);
    try {
      parseAccountKey(xpub);
    } catch (error) {
      if (!(error instanceof AccountKeyError)) throw error;
      throw new ServiceError('invalid_xpub', `${field('xpub')} ${error.message}.`);
    }
    return { xpub, address: null };
  },
  containsPrivateKey: containsExtendedPrivateKey,
  // Bitcoin key ids always were the key's own.
  keyIdRename: () => null,
  explorerUrl: (settings, network) => settings?.explorerUrls[network ?? 'mainnet'] ?? null,
  /**
   * Addresses come from the instance's one derive worker: buffered ahead per key when the
   * instance has the database to itself; one at a time when needed when several instances share
   * it (a buffer per instance would derive every index on every instance).
   */
  lightning: (settings, parts) =>
    createLightningPlatform(
      { explorerUrls: Object.fromEntries(Object.entries(settings.explorerUrls).filter(([network]) => !settings.esploraUrls || network in settings.esploraUrls)) },
      parts,
    ),
  receivers(settings, { worker, sharedDatabase, maxEntries }) {
    // Bitcoin's worker is its address deriver.
    const addressDeriver = () => worker() as AddressDeriver;
    // One buffer per key, not per merchant: merchants who registered the same key draw from one sequence.
    const books = new Map<string, ReceiveAddressBook>();
    const bookOf = (key: AccountKey) => {
      const bookKey = `${key.network}:${key.keyId}`;
      let book = books.get(bookKey);
      if (!book) {
        book = createReceiveAddressBook(addressDeriver(), key, { ahead: MERCHANT_AHEAD, batch: MERCHANT_BATCH, ramp: true });
        if (books.size >= maxEntries) books.delete(books.keys().next().value!);
        books.set(bookKey, book);
      }
      return book;
    };
    return ({ xpub }) => {
      if (!xpub) return null;
      const accountKey = merchantAccountKey(settings, xpub);
      const addresses = sharedDatabase ? onDemandAddresses(addressDeriver(), accountKey) : bookOf(accountKey);
      return { receiver: btcReceiver({ accountKey, explorerUrl: settings.explorerUrls[accountKey.network], ...addresses }), assets: ['btc'] };
    };
  },
};
