import { createHash } from 'node:crypto';
import { parseEvmAccountXpub } from '../base/keys.ts';
import { parseAccountKey, receiveAddress } from '../btc/account-key.ts';
import type { MerchantContext } from '../invoices/invoice.service.ts';
import type { CloudConfig } from './cloud-config.ts';
import type { MerchantRow } from './merchant.repository.ts';

type Receivers = Pick<MerchantContext, 'btc' | 'base'>;

/**
 * Builds the engine's receive methods of a Cloud merchant from its stored public keys. Parsing a
 * key costs more than a request, so results are kept per merchant and key text (a changed key
 * makes a new entry); the cache is bounded.
 */
export function createMerchantReceivers(config: CloudConfig, maxEntries = 10_000) {
  const cache = new Map<string, Receivers>();

  function build(row: MerchantRow): Receivers {
    let btc: MerchantContext['btc'] = null;
    if (row.btc_xpub) {
      const accountKey = parseAccountKey(row.btc_xpub);
      btc = { accountKey, explorerUrl: config.btc.explorerUrls[accountKey.network], addressAt: (index) => receiveAddress(accountKey, index) };
    }
    let base: MerchantContext['base'] = null;
    if (config.base && (row.base_xpub || row.base_address)) {
      const xpub = row.base_xpub
        ? { key: parseEvmAccountXpub(row.base_xpub), keyId: createHash('sha256').update(row.base_xpub).digest('hex').slice(0, 16) }
        : null;
      const tokens = new Map(config.base.tokens);
      // USDT is served in fixed-address mode only.
      if (!row.base_address) tokens.delete('usdt');
      base = { base: { ...config.base, tokens, xpub, fixedAddress: row.base_xpub ? null : row.base_address } };
    }
    return { btc, base };
  }

  return {
    receivers(row: MerchantRow): Receivers {
      const cacheKey = `${row.merchant_id}\n${row.btc_xpub}\n${row.base_xpub}\n${row.base_address}`;
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
