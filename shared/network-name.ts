import { chainFacts, evmChainOfId, type EvmChainName, type NetworkName } from './chains.ts';
import type { BtcNetwork } from './invoice.ts';


const btcNetworks: Record<BtcNetwork, NetworkName> = {
  mainnet: { name: 'Bitcoin', note: null },
  testnet: { name: 'Bitcoin testnet', note: 'test coins, not real bitcoin' },
  signet: { name: 'Bitcoin signet', note: 'test coins, not real bitcoin' },
  regtest: { name: 'Bitcoin regtest', note: 'sandbox, not real bitcoin' },
};

export const btcNetworkName = (network: BtcNetwork): NetworkName => btcNetworks[network] ?? btcNetworks.mainnet;

/**
 * The network named by an EVM invoice's EIP-681 payment URI (`ethereum:<token>@<chain id>/transfer?…`),
 * so texts and pages built from an invoice alone name the chain it is really on. Any chain id no
 * chain claims is a local development chain (the sandbox's).
 */
export function evmNetworkOfUri(uri: string): NetworkName {
  const match = /^ethereum:[^@/?]+@(\d+)/.exec(uri);
  if (!match) return { name: 'EVM chain', note: null };
  const chainId = Number(match[1]);
  return evmChainOfId(chainId)?.network ?? { name: `local EVM chain (id ${chainId})`, note: 'sandbox, not real tokens' };
}

/** What to call an EVM chain when only its name is known (a stored invoice carries no chain id). */
export const evmChainName = (chain: EvmChainName): NetworkName => ({ name: chainFacts[chain].name, note: null });

/** "Bitcoin regtest — sandbox, not real bitcoin", or the bare name of a mainnet. */
export const networkLabel = (network: NetworkName): string => (network.note ? `${network.name} — ${network.note}` : network.name);
