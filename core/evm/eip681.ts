/**
 * EIP-681 payment request for an ERC-20 transfer:
 * ethereum:<token>@<chain id>/transfer?address=<recipient>&uint256=<units>.
 * Units are written as plain digits: some wallets misread exponent forms such as 1.5e7.
 */
export function erc20TransferUri(token: string, chainId: number, recipient: string, units: bigint): string {
  return `ethereum:${token}@${chainId}/transfer?address=${recipient}&uint256=${units.toString()}`;
}
