import type { Config } from '../config.ts';
import { createBitcoinCoreSource } from './bitcoin-core-source.ts';
import type { ChainSource, Fetch } from './chain-source.ts';
import { createEsploraSource } from './esplora-source.ts';

/** BTC_RPC_URL (the merchant's own node) wins over Esplora; null when neither is known (regtest without a URL). */
export function chainSourceFor(btc: NonNullable<Config['btc']>, fetch: Fetch): ChainSource | null {
  if (btc.rpcUrl) return createBitcoinCoreSource({ url: btc.rpcUrl, fetch });
  if (btc.esploraUrl) return createEsploraSource({ baseUrl: btc.esploraUrl, fetch });
  return null;
}
