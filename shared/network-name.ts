import type { BtcNetwork } from './invoice.ts';

/**
 * What to call a chain to a person: its name, and for a chain whose coins are worth nothing a note
 * that says so ("Bitcoin regtest", "sandbox, not real bitcoin"). Mainnets carry no note.
 */
export interface NetworkName {
  name: string;
  note: string | null;
}

const btcNetworks: Record<BtcNetwork, NetworkName> = {
  mainnet: { name: 'Bitcoin', note: null },
  testnet: { name: 'Bitcoin testnet', note: 'test coins, not real bitcoin' },
  signet: { name: 'Bitcoin signet', note: 'test coins, not real bitcoin' },
  regtest: { name: 'Bitcoin regtest', note: 'sandbox, not real bitcoin' },
};

export const btcNetworkName = (network: BtcNetwork): NetworkName => btcNetworks[network] ?? btcNetworks.mainnet;

/** The Base chains by EVM chain id; any other id is a local development chain (the sandbox's is 31337). */
const baseNetworks: Record<number, NetworkName> = {
  8453: { name: 'Base', note: null },
  84532: { name: 'Base Sepolia (testnet)', note: 'test tokens, not real money' },
};

/**
 * The network named by a Base invoice's EIP-681 payment URI (`ethereum:<token>@<chain id>/transfer?…`),
 * so texts and pages built from an invoice alone name the chain it is really on.
 */
export function evmNetworkOfUri(uri: string): NetworkName {
  const match = /^ethereum:[^@/?]+@(\d+)/.exec(uri);
  if (!match) return baseNetworks[8453]!;
  const chainId = Number(match[1]);
  return baseNetworks[chainId] ?? { name: `local EVM chain (id ${chainId})`, note: 'sandbox, not real tokens' };
}

/** "Bitcoin regtest — sandbox, not real bitcoin", or the bare name of a mainnet. */
export const networkLabel = (network: NetworkName): string => (network.note ? `${network.name} — ${network.note}` : network.name);
