/** The Base chains by EVM chain id; any other id is a local development chain (the sandbox's is 31337). */
const baseNetworks: Record<number, string> = {
  8453: 'Base',
  84532: 'Base Sepolia (testnet)',
};

/** What to call an EVM chain to a person: "Base", "Base Sepolia (testnet)" or "local test chain (id 31337)". */
function evmNetworkName(chainId: number): string {
  return baseNetworks[chainId] ?? `local test chain (id ${chainId})`;
}

/**
 * The network named by a Base invoice's EIP-681 payment URI (`ethereum:<token>@<chain id>/transfer?…`),
 * so texts and pages built from an invoice alone name the chain it is really on.
 */
export function evmNetworkOfUri(uri: string): string {
  const match = /^ethereum:[^@/?]+@(\d+)/.exec(uri);
  return match ? evmNetworkName(Number(match[1])) : 'Base';
}
