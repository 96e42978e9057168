import { KeyError, parseChecksummedAddress } from './keys.ts';

export type TokenSymbol = 'usdc' | 'usdt';
const SYMBOLS: readonly TokenSymbol[] = ['usdc', 'usdt'];

export const DEFAULT_EVM_TOKENS = 'usdc';

/**
 * Parses a token list (`${prefix}_TOKENS`, MERCHANT_EVM_TOKENS): comma-separated `usdc`, `usdt`, or
 * `symbol:0xcontract` to point a symbol at another contract (test chains). `known` holds the
 * chain's canonical contracts. Returns symbol → checksummed contract address.
 */
export function parseEvmTokens(text: string, chainId: number, known: Partial<Record<TokenSymbol, string>> = {}): Map<TokenSymbol, string> {
  const tokens = new Map<TokenSymbol, string>();
  for (const entry of text.split(',').map((e) => e.trim()).filter(Boolean)) {
    const [symbolText, contract] = entry.split(':', 2).map((p) => p.trim());
    const symbol = symbolText.toLowerCase() as TokenSymbol;
    if (!SYMBOLS.includes(symbol)) throw new KeyError(`unknown token "${symbolText}" (usdc or usdt)`);
    if (tokens.has(symbol)) throw new KeyError(`token ${symbol} is listed twice`);
    const address = contract === undefined ? known[symbol] : parseChecksummedAddress(contract);
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
