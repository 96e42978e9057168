import { KeyError, parseChecksummedAddress, parseEvmAccountXpub, textKeyId, type EvmAccountKey } from './keys.ts';
import type { EvmChainSpec, EvmFinality } from './evm-chain-spec.ts';
import { DEFAULT_EVM_TOKENS, parseEvmTokens, type TokenSymbol } from './tokens.ts';
import type { EvmChainName } from '../../shared/index.ts';

const LOCAL_EXPLORER = 'http://127.0.0.1:8787/explorer';
/** No payment is confirmed on one source's word unless the operator declares that source its own. */
export const DEFAULT_MIN_SOURCES = 2;

/** One EVM chain's settings (Base's, Ethereum's, …): the chain, its sources, and the merchant's receive method on it. */
export interface EvmConfig {
  chain: EvmChainName;
  chainId: number;
  /** Independent JSON-RPC sources; the first reachable one scans, the others corroborate. */
  rpcUrls: string[];
  /**
   * Sources that must report a transfer before it counts (`<PREFIX>_MIN_SOURCES`, default 2). 1 is
   * the operator's declaration that its one source is trusted (its own node).
   */
  minSources: number;
  /** A WebSocket endpoint announcing new heads (`eth_subscribe`); null: polling alone. */
  wsUrl: string | null;
  /** Blocks are read once due at this pace; 0 for a node that mines on demand. */
  blockTimeMs: number;
  confirmations: number;
  finality: EvmFinality;
  tokens: Map<TokenSymbol, string>;
  /** `legacyKeyId`: the id this key's invoices were stored under before migration 0009, adopted at start. */
  xpub: { key: EvmAccountKey; keyId: string; legacyKeyId?: string } | null;
  fixedAddress: string | null;
  explorerUrl: string;
}

export type EvmEnv = Readonly<Record<string, string | undefined>>;

/** The account key and fixed address that serve every EVM chain a chain's own setting does not override. */
export const EVM_XPUB = 'MERCHANT_EVM_XPUB';
export const EVM_ADDRESS = 'MERCHANT_EVM_ADDRESS';
export const EVM_TOKENS = 'MERCHANT_EVM_TOKENS';

/** The settings one EVM chain reads, by what they are. */
export function evmSettingNamesOf(spec: Pick<EvmChainSpec, 'envPrefix'>) {
  const p = spec.envPrefix;
  return {
    xpub: `MERCHANT_${p}_XPUB`,
    address: `MERCHANT_${p}_ADDRESS`,
    tokens: `${p}_TOKENS`,
    rpcUrl: `${p}_RPC_URL`,
    wsUrl: `${p}_WS_URL`,
    blockTimeMs: `${p}_BLOCK_TIME_MS`,
    chainId: `${p}_CHAIN_ID`,
    confirmations: `${p}_CONFIRMATIONS`,
    finality: `${p}_FINALITY`,
    minSources: `${p}_MIN_SOURCES`,
    explorerUrl: `${p}_EXPLORER_URL`,
  };
}

/**
 * One EVM chain is enabled when its own key or address is set (MERCHANT_BASE_XPUB, …), or when the
 * shared MERCHANT_EVM_XPUB / MERCHANT_EVM_ADDRESS is set and the chain has an RPC URL. Problems are
 * appended to `problems` (all reported together at start); null means the chain is off or misconfigured.
 */
export function parseEvmConfig(spec: EvmChainSpec, env: EvmEnv, problems: string[]): EvmConfig | null {
  const names = evmSettingNamesOf(spec);
  const text = (name: string) => env[name]?.trim() || undefined;
  const rpcText = text(names.rpcUrl);
  const ownKey = text(names.xpub) || text(names.address);
  const sharedKey = text(EVM_XPUB) || text(EVM_ADDRESS);
  if (!ownKey && !(sharedKey && rpcText)) return null;
  const xpubName = text(names.xpub) ? names.xpub : EVM_XPUB;
  const addressName = text(names.address) ? names.address : EVM_ADDRESS;
  const xpubText = text(xpubName);
  const addressText = text(addressName);
  const before = problems.length;

  const chainId = integerSetting(names.chainId, text(names.chainId), spec.mainnetChainId, 1, problems);
  const confirmations = integerSetting(names.confirmations, text(names.confirmations), spec.defaultConfirmations, 1, problems);
  const finalityText = text(names.finality) ?? spec.defaultFinality;
  const finality: EvmFinality = finalityText === 'count' ? 'count' : 'tag';
  if (finalityText !== 'tag' && finalityText !== 'count') problems.push(`${names.finality} must be tag or count`);

  let xpub: EvmConfig['xpub'] = null;
  if (xpubText) {
    try {
      const key = parseEvmAccountXpub(xpubText);
      xpub = { key, keyId: key.keyId, legacyKeyId: textKeyId(xpubText) };
    } catch (error) {
      if (!(error instanceof KeyError)) throw error;
      problems.push(`${xpubName} ${error.message}`);
    }
  }
  let fixedAddress: string | null = null;
  if (addressText) {
    try {
      fixedAddress = parseChecksummedAddress(addressText);
    } catch (error) {
      if (!(error instanceof KeyError)) throw error;
      problems.push(`${addressName} ${error.message}`);
    }
  }
  if (xpub && fixedAddress) {
    const index = ownChildIndex(xpub.key, fixedAddress);
    if (index !== null) {
      problems.push(
        `${addressName} is child ${index} of ${xpubName} (${xpub.key.derivationPath(index)}), so it would also be an xpub invoice address: use an address outside this account (another account or wallet)`,
      );
    }
  }
  const tokensName = text(names.tokens) ? names.tokens : EVM_TOKENS;
  let tokens = new Map<TokenSymbol, string>();
  try {
    tokens = parseEvmTokens(text(tokensName) ?? DEFAULT_EVM_TOKENS, chainId, spec.knownTokens[chainId]);
  } catch (error) {
    if (!(error instanceof KeyError)) throw error;
    problems.push(`${tokensName} ${error.message}`);
  }
  if (tokens.has('usdt') && !addressText) {
    problems.push(`${tokensName} enables usdt, which is served in fixed-address mode only: set ${names.address} or ${EVM_ADDRESS}`);
  }

  const rpcUrls = [...new Set((rpcText ?? '').split(',').map((u) => u.trim()).filter(Boolean))];
  if (rpcUrls.length === 0) problems.push(`${names.rpcUrl} is required when ${spec.chain} is configured (one or more comma-separated JSON-RPC URLs)`);
  for (const url of rpcUrls) {
    if (!/^https?:\/\/[^/\s]+/.test(url)) problems.push(`${names.rpcUrl} entries must be http(s) URLs`);
  }
  const minSources = integerSetting(names.minSources, text(names.minSources), DEFAULT_MIN_SOURCES, 1, problems);
  if (rpcUrls.length > 0 && minSources > rpcUrls.length) {
    problems.push(
      rpcUrls.length === 1
        ? `${names.rpcUrl} has a single source, and a payment is confirmed only when ${minSources} independent sources report it: add a second independent JSON-RPC URL (comma-separated), or set ${names.minSources}=1 if this one source is your own node and you trust it`
        : `${names.minSources} is ${minSources} but ${names.rpcUrl} lists ${rpcUrls.length} sources: add sources or lower it`,
    );
  }
  const wsUrl = text(names.wsUrl) ?? null;
  if (wsUrl !== null && !/^wss?:\/\/[^/\s]+/.test(wsUrl)) problems.push(`${names.wsUrl} must be a ws:// or wss:// URL`);
  const blockTimeMs = integerSetting(names.blockTimeMs, text(names.blockTimeMs), spec.blockTimeMs, 0, problems);
  const explorerUrl = (text(names.explorerUrl) ?? spec.explorers[chainId] ?? LOCAL_EXPLORER).replace(/\/+$/, '');
  if (!/^https?:\/\//.test(explorerUrl)) problems.push(`${names.explorerUrl} must be an http(s) URL`);

  if (problems.length > before) return null;
  return { chain: spec.chain, chainId, rpcUrls, wsUrl, blockTimeMs, minSources, confirmations, finality, tokens, xpub, fixedAddress, explorerUrl };
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
