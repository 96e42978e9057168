import * as z from 'zod';
import { BtcNetwork } from '../../shared/index.ts';
import type { ChainEnv } from '../chain-definition.ts';
import { blankToUndefined, httpUrlListSetting, wholeNumber } from '../settings.ts';
import { AccountKeyError, parseAccountKey } from './account-key.ts';
import { NwcConnectionError, parseNwcConnection, type NwcConnection } from './lightning/nwc-connection.ts';
import type { BtcListenerSettings, BtcPlatformSettings } from './btc-runtime.ts';
import { defaultEsploraUrls } from './esplora-defaults.ts';
import { DEFAULT_MAX_CONNECTIONS, DEFAULT_MAX_TRACKED_ADDRESSES, mempoolSocketUrl } from './mempool-socket.ts';

/** The block explorer the checkout page links a network's payments to. */
export const defaultBtcExplorers: Record<BtcNetwork, string> = {
  mainnet: 'https://mempool.space',
  testnet: 'https://mempool.space/testnet',
  signet: 'https://mempool.space/signet',
  regtest: 'http://127.0.0.1:8787/explorer',
};

const flag = z.preprocess(blankToUndefined, z.enum(['true', 'false', '1', '0']).default('false')).transform((v) => v === 'true' || v === '1');
const httpUrl = z.preprocess(
  blankToUndefined,
  z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
    .transform((url) => url.replace(/\/+$/, ''))
    .optional(),
);

/** The settings of the Esplora WebSocket both editions read. */
const socketSettings = {
  BTC_ESPLORA_SELF_HOSTED: flag,
  BTC_ESPLORA_WS_URL: z.preprocess(
    blankToUndefined,
    z.union([z.literal('off'), z.url({ protocol: /^wss?$/, error: 'must be a ws:// or wss:// URL, or off' })]).optional(),
  ),
  BTC_WS_MAX_ADDRESSES: z.preprocess(blankToUndefined, wholeNumber(1, 100_000).default(DEFAULT_MAX_TRACKED_ADDRESSES)),
  BTC_WS_MAX_CONNECTIONS: z.preprocess(blankToUndefined, wholeNumber(1, 100).default(DEFAULT_MAX_CONNECTIONS)),
};

const ListenerEnv = z.object({
  MERCHANT_BTC_XPUB: z.preprocess(blankToUndefined, z.string().trim().optional()),
  MERCHANT_NWC_URL: z.preprocess(blankToUndefined, z.string().trim().optional()),
  BTC_NETWORK: z.preprocess(blankToUndefined, BtcNetwork.optional()),
  BTC_ESPLORA_URL: httpUrlListSetting,
  BTC_RPC_URL: httpUrl,
  BTC_EXPLORER_URL: httpUrl,
  ...socketSettings,
});

export const btcListenerSettingNames: readonly string[] = Object.keys(ListenerEnv.shape);

/** The listener's Bitcoin settings: on once MERCHANT_BTC_XPUB or MERCHANT_NWC_URL is set. */
export const btcListenerShape = ListenerEnv.shape;

/** MERCHANT_NWC_URL: the merchant's own Lightning wallet, receive-only (checked at start). */
function lightningSetting(env: ChainEnv, problems: string[], text: string | undefined): NwcConnection | null {
  if (!text) return null;
  try {
    return parseNwcConnection(text, { loopbackRelays: env.NODE_ENV?.trim() !== 'production' });
  } catch (error) {
    if (!(error instanceof NwcConnectionError)) throw error;
    problems.push(`MERCHANT_NWC_URL ${error.message}`);
    return null;
  }
}

export function parseBtcListenerSettings(env: ChainEnv, problems: string[], values: Readonly<Record<string, unknown>>): BtcListenerSettings | null {
  const raw = values as z.infer<typeof ListenerEnv>;
  if (!raw.MERCHANT_BTC_XPUB && !raw.MERCHANT_NWC_URL) return null;
  const lightning = lightningSetting(env, problems, raw.MERCHANT_NWC_URL);
  try {
    const accountKey = raw.MERCHANT_BTC_XPUB ? parseAccountKey(raw.MERCHANT_BTC_XPUB, raw.BTC_NETWORK) : null;
    const network = accountKey?.network ?? raw.BTC_NETWORK ?? 'mainnet';
    if (!accountKey && !lightning) return null;
    const esploraUrls = raw.BTC_ESPLORA_URL ?? defaultEsploraUrls[network];
    const esploraUrl = esploraUrls[0] ?? null;
    return {
      accountKey,
      network,
      lightning,
      esploraUrls,
      explorerUrl: raw.BTC_EXPLORER_URL ?? defaultBtcExplorers[network],
      rpcUrl: raw.BTC_RPC_URL ?? null,
      esploraSelfHosted: raw.BTC_ESPLORA_SELF_HOSTED,
      wsUrl: raw.BTC_ESPLORA_WS_URL === 'off' ? null : (raw.BTC_ESPLORA_WS_URL ?? (esploraUrl ? mempoolSocketUrl(esploraUrl) : null)),
      wsMaxAddresses: raw.BTC_WS_MAX_ADDRESSES,
      wsMaxConnections: raw.BTC_WS_MAX_CONNECTIONS,
    };
  } catch (error) {
    if (!(error instanceof AccountKeyError)) throw error;
    problems.push(`MERCHANT_BTC_XPUB ${error.message}`);
    return null;
  }
}

/** BTC_RPC_URL's password and the Lightning connection's secret: never in a log line. */
export const btcListenerSecrets = (settings: BtcListenerSettings): string[] => [
  ...(settings.rpcUrl ? [decodeURIComponent(new URL(settings.rpcUrl).password)] : []),
  ...(settings.lightning ? [Buffer.from(settings.lightning.secret).toString('hex')] : []),
];

const PlatformEnv = z.object({
  BTC_ESPLORA_URL: httpUrlListSetting,
  BTC_ESPLORA_NETWORK: z.preprocess(blankToUndefined, z.enum(['mainnet', 'testnet', 'signet', 'regtest']).default('mainnet')),
  ...socketSettings,
});

export const btcPlatformShape = PlatformEnv.shape;
export const btcPlatformSettingNames: readonly string[] = Object.keys(PlatformEnv.shape);

/** The platform's Bitcoin settings: always on (merchants bring their own keys), Esplora per network. */
export function parseBtcPlatformSettings(env: ChainEnv, problems: string[], values: Readonly<Record<string, unknown>>): BtcPlatformSettings {
  const raw = values as z.infer<typeof PlatformEnv>;
  // Regtest's rules accept blocks anyone can mine in a moment: never for the invoices of a real deployment.
  if (env.NODE_ENV?.trim() === 'production' && raw.BTC_ESPLORA_NETWORK === 'regtest') {
    problems.push('BTC_ESPLORA_NETWORK=regtest is for a local test chain only and is refused with NODE_ENV=production');
  }
  const esplora = raw.BTC_ESPLORA_URL;
  return {
    esploraUrls: esplora
      ? { mainnet: esplora, testnet: esplora, signet: esplora, regtest: esplora }
      : { mainnet: defaultEsploraUrls.mainnet, testnet: defaultEsploraUrls.testnet, signet: defaultEsploraUrls.signet },
    explorerUrls: { ...defaultBtcExplorers },
    testKeyNetwork: 'testnet',
    esploraNetwork: raw.BTC_ESPLORA_NETWORK,
    esploraSelfHosted: raw.BTC_ESPLORA_SELF_HOSTED,
    wsUrl: raw.BTC_ESPLORA_WS_URL ?? null,
    wsMaxAddresses: raw.BTC_WS_MAX_ADDRESSES,
    wsMaxConnections: raw.BTC_WS_MAX_CONNECTIONS,
  };
}
