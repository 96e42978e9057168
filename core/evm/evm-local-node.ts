import { randomBytes } from 'node:crypto';
import { HDNodeWallet } from 'ethers';
import type { LocalNode } from '../invoices/local-node.ts';
import { EVM_ADDRESS, EVM_XPUB, evmSettingNamesOf } from './evm-config.ts';
import type { EvmChainSpec } from './evm-chain-spec.ts';
import { ACCOUNT_PATH, parseEvmAccountXpub } from './keys.ts';

/** How the sandbox runs one EVM chain on a local anvil node (under the chain's sandbox chain id). */
export function evmLocalNode(spec: EvmChainSpec): LocalNode {
  const names = evmSettingNamesOf(spec);
  return {
    chainId: spec.sandboxChainId,
    settings: (node) => ({
      [names.tokens]: Object.entries(node.tokens)
        .map(([symbol, address]) => `${symbol}:${address}`)
        .join(','),
      [names.rpcUrl]: node.rpcUrl,
      // The sandbox's own node, declared trusted as an operator declares its own (confirmations say `own-node`).
      [names.minSources]: '1',
      // anvil serves its WebSocket on the HTTP port: each block starts a pass, so an idle sandbox does not poll.
      [names.wsUrl]: node.rpcUrl.replace(/^http/, 'ws'),
      // Blocks come when a payment or `mine` asks: none is ever "due", so without the socket the watcher polls at its pace.
      [names.blockTimeMs]: '0',
      [names.chainId]: String(spec.sandboxChainId),
      [names.confirmations]: String(node.confirmations),
      // The local node finalizes 64 blocks behind its head: a payment would wait for 64 mined blocks.
      [names.finality]: 'count',
    }),
    serverSettings: (rpcUrls, explorerUrl) => ({ [names.rpcUrl]: rpcUrls.join(','), [names.explorerUrl]: explorerUrl }),
    merchantSettings: (merchant) => ({ ...(merchant.xpub && { [EVM_XPUB]: merchant.xpub }), [EVM_ADDRESS]: merchant.fixedAddress }),
    freshAccountKey: () => HDNodeWallet.fromSeed(randomBytes(32)).derivePath(ACCOUNT_PATH).neuter().extendedKey,
    childAddresses(accountKey) {
      const key = parseEvmAccountXpub(accountKey);
      return (index) => key.address(index);
    },
  };
}
