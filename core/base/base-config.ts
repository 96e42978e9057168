import { KeyError, parseChecksummedAddress, parseEvmAccountXpub, textKeyId, type EvmAccountKey } from './keys.ts';
import { DEFAULT_EVM_TOKENS, parseEvmTokens, type TokenSymbol } from './tokens.ts';

/**
 * Blocks a Transfer needs (its own block counts as one) before it settles an invoice: 12 blocks
 * is about 24 s at Base's 2 s block time, well past the depth of reorgs seen on Base.
 */
export const DEFAULT_BASE_CONFIRMATIONS = 12;
export const BASE_MAINNET_CHAIN_ID = 8453;

const explorers: Record<number, string> = {
  8453: 'https://basescan.org',
  84532: 'https://sepolia.basescan.org',
};
const LOCAL_EXPLORER = 'http://127.0.0.1:8787/explorer';

export interface BaseConfig {
  chainId: number;
  /** Independent JSON-RPC sources; the first reachable one scans, the others corroborate. */
  rpcUrls: string[];
  confirmations: number;
  tokens: Map<TokenSymbol, string>;
  /** `legacyKeyId`: the id this key's invoices were stored under before migration 0009, adopted at start. */
  xpub: { key: EvmAccountKey; keyId: string; legacyKeyId?: string } | null;
  fixedAddress: string | null;
  explorerUrl: string;
}

export interface BaseEnv {
  MERCHANT_BASE_XPUB?: string;
  MERCHANT_BASE_ADDRESS?: string;
  MERCHANT_EVM_TOKENS?: string;
  BASE_RPC_URL?: string;
  BASE_CHAIN_ID?: string;
  BASE_CONFIRMATIONS?: string;
  BASE_EXPLORER_URL?: string;
}

export const baseSettingNames = [
  'MERCHANT_BASE_XPUB',
  'MERCHANT_BASE_ADDRESS',
  'MERCHANT_EVM_TOKENS',
  'BASE_RPC_URL',
  'BASE_CHAIN_ID',
  'BASE_CONFIRMATIONS',
  'BASE_EXPLORER_URL',
] as const satisfies readonly (keyof BaseEnv)[];

/**
 * Base is enabled when an account xpub or a fixed address is set. Problems are appended to
 * `problems` (all reported together at start); null means Base is off or misconfigured.
 */
export function parseBaseConfig(env: BaseEnv, problems: string[]): BaseConfig | null {
  const text = (name: keyof BaseEnv) => env[name]?.trim() || undefined;
  const xpubText = text('MERCHANT_BASE_XPUB');
  const addressText = text('MERCHANT_BASE_ADDRESS');
  if (!xpubText && !addressText) return null;
  const before = problems.length;

  const chainId = integerSetting('BASE_CHAIN_ID', text('BASE_CHAIN_ID'), BASE_MAINNET_CHAIN_ID, 1, problems);
  const confirmations = integerSetting('BASE_CONFIRMATIONS', text('BASE_CONFIRMATIONS'), DEFAULT_BASE_CONFIRMATIONS, 1, problems);

  let xpub: BaseConfig['xpub'] = null;
  if (xpubText) {
    try {
      const key = parseEvmAccountXpub(xpubText);
      xpub = { key, keyId: key.keyId, legacyKeyId: textKeyId(xpubText) };
    } catch (error) {
      if (!(error instanceof KeyError)) throw error;
      problems.push(`MERCHANT_BASE_XPUB ${error.message}`);
    }
  }
  let fixedAddress: string | null = null;
  if (addressText) {
    try {
      fixedAddress = parseChecksummedAddress(addressText);
    } catch (error) {
      if (!(error instanceof KeyError)) throw error;
      problems.push(`MERCHANT_BASE_ADDRESS ${error.message}`);
    }
  }
  if (xpub && fixedAddress) {
    const index = ownChildIndex(xpub.key, fixedAddress);
    if (index !== null) {
      problems.push(
        `MERCHANT_BASE_ADDRESS is child ${index} of MERCHANT_BASE_XPUB (${xpub.key.derivationPath(index)}), so it would also be an xpub invoice address: use an address outside this account (another account or wallet)`,
      );
    }
  }
  let tokens = new Map<TokenSymbol, string>();
  try {
    tokens = parseEvmTokens(text('MERCHANT_EVM_TOKENS') ?? DEFAULT_EVM_TOKENS, chainId);
  } catch (error) {
    if (!(error instanceof KeyError)) throw error;
    problems.push(`MERCHANT_EVM_TOKENS ${error.message}`);
  }
  if (tokens.has('usdt') && !addressText) {
    problems.push('MERCHANT_EVM_TOKENS enables usdt, which is served in fixed-address mode only: set MERCHANT_BASE_ADDRESS');
  }

  const rpcUrls = [...new Set((text('BASE_RPC_URL') ?? '').split(',').map((u) => u.trim()).filter(Boolean))];
  if (rpcUrls.length === 0) problems.push('BASE_RPC_URL is required when Base is configured (one or more comma-separated JSON-RPC URLs)');
  for (const url of rpcUrls) {
    if (!/^https?:\/\/[^/\s]+/.test(url)) problems.push('BASE_RPC_URL entries must be http(s) URLs');
  }
  const explorerUrl = (text('BASE_EXPLORER_URL') ?? explorers[chainId] ?? LOCAL_EXPLORER).replace(/\/+$/, '');
  if (!/^https?:\/\//.test(explorerUrl)) problems.push('BASE_EXPLORER_URL must be an http(s) URL');

  if (problems.length > before) return null;
  return { chainId, rpcUrls, confirmations, tokens, xpub, fixedAddress, explorerUrl };
}

function integerSetting(name: string, value: string | undefined, fallback: number, min: number, problems: string[]): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < min || !/^\d+$/.test(value)) {
    problems.push(`${name} must be an integer >= ${min}`);
    return fallback;
  }
  return n;
}

/**
 * Children of the xpub checked against the fixed address at start: BIP-44's gap limit, the
 * addresses a wallet shows first (MetaMask's first account is child 0), so the likely mistake is
 * told at once. The database claim (address-claims.ts) only keeps this listener's invoices off the
 * fixed address: the same key registered elsewhere (a Cloud account, another listener's database)
 * would hand it out there. A later child is skipped when an invoice reaches it (base-invoices.ts).
 */
export const FIXED_ADDRESS_CHECKED_CHILDREN = 20;

function ownChildIndex(key: EvmAccountKey, address: string): number | null {
  for (let index = 0; index < FIXED_ADDRESS_CHECKED_CHILDREN; index++) {
    if (key.address(index) === address) return index;
  }
  return null;
}
