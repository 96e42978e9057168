/**
 * What to call a chain to a person: its name, and for a chain whose coins are worth nothing a note
 * that says so ("Bitcoin regtest", "sandbox, not real bitcoin"). Mainnets carry no note.
 */
export interface NetworkName {
  name: string;
  note: string | null;
}

/**
 * The contract's view of the chains: their names and what a request or a page needs to know of
 * each, as data. Everything else about a chain (keys, watchers, URIs, confirmation rules) lives in
 * its chain definition (core/btc/bitcoin.ts, core/evm/chains/); adding a chain adds an entry here,
 * its definition, and that definition to the entry points' list (core/chains/default-chains.ts).
 */
export type ChainFamily = 'bitcoin' | 'evm';

export interface ChainFacts {
  family: ChainFamily;
  /** What a person calls the chain's mainnet. */
  name: string;
  /** The POST /invoice field that carries the amount, and its unit. */
  amountField: 'amount_sats' | 'amount_usd';
  unit: 'sats' | 'USD';
  /** The error code of a request for the chain from a merchant who does not receive on it. */
  disabledCode: 'chain_disabled' | 'base_disabled';
  /** What the payer can send, in the order offered; an EVM chain's first token is its default. */
  assets: readonly ('BTC' | 'USDC' | 'USDT')[];
  /** The prefix of the chain's settings (`BASE_RPC_URL`, `MERCHANT_BASE_XPUB`, …), as descriptions name them. */
  settingsPrefix: string;
  /** EVM chains: the chain ids that are this chain, mainnet first; any other id is a local chain. */
  networks: Readonly<Record<number, NetworkName>>;
  /** Whether invoices of the chain can also be paid over Lightning (`payment_methods`), through the merchant's own wallet. */
  lightning?: boolean;
}

const stablecoins = ['USDC', 'USDT'] as const;

export const chainFacts = {
  btc: { family: 'bitcoin', name: 'Bitcoin', amountField: 'amount_sats', unit: 'sats', disabledCode: 'chain_disabled', settingsPrefix: 'BTC', assets: ['BTC'], networks: {}, lightning: true },
  base: {
    family: 'evm',
    name: 'Base',
    settingsPrefix: 'BASE',
    amountField: 'amount_usd',
    unit: 'USD',
    // Every EVM chain answers Base's code, the one clients knew before there were others.
    disabledCode: 'base_disabled',
    assets: stablecoins,
    networks: { 8453: { name: 'Base', note: null }, 84532: { name: 'Base Sepolia (testnet)', note: 'test tokens, not real money' } },
  },
  eth: {
    family: 'evm',
    name: 'Ethereum',
    settingsPrefix: 'ETH',
    amountField: 'amount_usd',
    unit: 'USD',
    disabledCode: 'base_disabled',
    assets: stablecoins,
    networks: { 1: { name: 'Ethereum', note: null }, 11155111: { name: 'Ethereum Sepolia (testnet)', note: 'test tokens, not real money' } },
  },
  polygon: {
    family: 'evm',
    name: 'Polygon',
    settingsPrefix: 'POLYGON',
    amountField: 'amount_usd',
    unit: 'USD',
    disabledCode: 'base_disabled',
    assets: stablecoins,
    networks: { 137: { name: 'Polygon', note: null }, 80002: { name: 'Polygon Amoy (testnet)', note: 'test tokens, not real money' } },
  },
  arbitrum: {
    family: 'evm',
    name: 'Arbitrum One',
    settingsPrefix: 'ARBITRUM',
    amountField: 'amount_usd',
    unit: 'USD',
    disabledCode: 'base_disabled',
    assets: stablecoins,
    networks: { 42161: { name: 'Arbitrum One', note: null }, 421614: { name: 'Arbitrum Sepolia (testnet)', note: 'test tokens, not real money' } },
  },
} as const satisfies Record<string, ChainFacts>;

export type ChainName = keyof typeof chainFacts;
export const chainNames = Object.keys(chainFacts) as [ChainName, ...ChainName[]];
export type EvmChainName = { [C in ChainName]: (typeof chainFacts)[C]['family'] extends 'evm' ? C : never }[ChainName];
export const evmChainNames = chainNames.filter((chain) => chainFacts[chain].family === 'evm') as [EvmChainName, ...EvmChainName[]];
export const isEvmChain = (chain: string): chain is EvmChainName => (evmChainNames as string[]).includes(chain);
/** The chain a request without `chain` is for. */
export const DEFAULT_CHAIN: ChainName = chainNames[0];

/** The EVM chain and network a chain id is, or null for a local development chain. */
export function evmChainOfId(chainId: number): { chain: EvmChainName; network: NetworkName } | null {
  for (const chain of evmChainNames) {
    const network = (chainFacts[chain].networks as Record<number, NetworkName>)[chainId];
    if (network) return { chain, network };
  }
  return null;
}

/** "Base, Ethereum and Polygon": the chains' names, for descriptions. */
export const chainNameList = (chains: readonly ChainName[] = chainNames): string =>
  chains.length === 1 ? chainFacts[chains[0]].name : `${chains.slice(0, -1).map((c) => chainFacts[c].name).join(', ')} and ${chainFacts[chains.at(-1)!].name}`;

/** "`btc`, `base` or `eth`", for descriptions. */
export const chainList = (chains: readonly string[] = chainNames): string =>
  chains.length === 1 ? `\`${chains[0]}\`` : `${chains.slice(0, -1).map((c) => `\`${c}\``).join(', ')} or \`${chains.at(-1)}\``;

/** "`BASE_RPC_URL` (base), `ETH_RPC_URL` (eth)": a setting of each chain, for descriptions. */
export const chainSettingList = (setting: string, chains: readonly ChainName[] = chainNames): string =>
  chains.map((chain) => `\`${chainFacts[chain].settingsPrefix}_${setting}\` (${chain})`).join(', ');

/**
 * What an asset is worth in, for pricing an invoice in a fiat currency: its decimals (the smallest
 * unit the payer can send), and the currency it is pegged to 1:1, or null when its worth is quoted
 * (a rate from the rate sources).
 */
export interface AssetFacts {
  decimals: number;
  peggedTo: string | null;
}

export const assetFacts = {
  BTC: { decimals: 8, peggedTo: null },
  USDC: { decimals: 6, peggedTo: 'USD' },
  USDT: { decimals: 6, peggedTo: 'USD' },
} as const satisfies Record<ChainFacts['assets'][number], AssetFacts>;
