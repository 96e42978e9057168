import { eip3009ABI } from '@x402/evm';
import { getAddress, type PublicClient } from 'viem';

export interface TokenDomain {
  name: string;
  version: string;
}

/**
 * The tokens' EIP-712 domains as the tokens themselves say (Circle's USDC: "USD Coin", "2"), read
 * once per chain and token; a node that failed once is asked again next time.
 */
export function tokenDomains(): (chain: { chainId: number; reader: PublicClient }, token: string) => Promise<TokenDomain> {
  const domains = new Map<string, Promise<TokenDomain>>();
  return (chain, token) => {
    const key = `${chain.chainId}:${token}`;
    let domain = domains.get(key);
    if (!domain) {
      const address = getAddress(token);
      domain = Promise.all([
        chain.reader.readContract({ address, abi: eip3009ABI, functionName: 'name' }),
        chain.reader.readContract({ address, abi: eip3009ABI, functionName: 'version' }),
      ]).then(([name, version]) => ({ name: String(name), version: String(version) }));
      domains.set(key, domain);
      domain.catch(() => domains.delete(key));
    }
    return domain;
  };
}
