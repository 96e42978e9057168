import { KeyError, parseChecksummedAddress } from './keys.ts';

export type TokenSymbol = 'usdc' | 'usdt';
const SYMBOLS: readonly TokenSymbol[] = ['usdc', 'usdt'];

/** Canonical 6-decimal stablecoin contracts per chain id; other chains need `symbol:0xcontract`. */
const KNOWN_CONTRACTS: Record<number, Partial<Record<TokenSymbol, string>>> = {
  8453: {
    usdc: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
    usdt: '0xfde4C96c8593536E31F229EA8f37b2ADa2699bb2',
  },
  84532: { usdc: '0x036CbD53842c5426634e7929541eC2318f3dCF7e' },
};

export const DEFAULT_EVM_TOKENS = 'usdc';

/**
 * Parses MERCHANT_EVM_TOKENS: comma-separated `usdc`, `usdt`, or `symbol:0xcontract` to point a
 * symbol at another contract (test chains). Returns symbol → checksummed contract address.
 */
export function parseEvmTokens(text: string, chainId: number): Map<TokenSymbol, string> {
  const tokens = new Map<TokenSymbol, string>();
  for (const entry of text.split(',').map((e) => e.trim()).filter(Boolean)) {
    const [symbolText, contract] = entry.split(':', 2).map((p) => p.trim());
    const symbol = symbolText.toLowerCase() as TokenSymbol;
    if (!SYMBOLS.includes(symbol)) throw new KeyError(`unknown token "${symbolText}" (usdc or usdt)`);
    if (tokens.has(symbol)) throw new KeyError(`token ${symbol} is listed twice`);
    const address = contract === undefined ? KNOWN_CONTRACTS[chainId]?.[symbol] : parseChecksummedAddress(contract);
    if (address === undefined) {
      throw new KeyError(`no known ${symbol} contract on chain ${chainId}; write ${symbol}:0x<contract>`);
    }
    tokens.set(symbol, address);
  }
  if (tokens.size === 0) throw new KeyError('no token enabled');
  return tokens;
}

export function assetOf(symbol: TokenSymbol): 'USDC' | 'USDT' {
  return symbol === 'usdc' ? 'USDC' : 'USDT';
}
