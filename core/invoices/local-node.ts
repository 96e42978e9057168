/** Where a local development node of a chain runs, and what it holds: the settings are made from it. */
export interface LocalNodeAt {
  rpcUrl: string;
  /** Test token contracts deployed on the node, by lower-case symbol (usdc, usdt). */
  tokens: Readonly<Record<string, string>>;
  /** Confirmations the sandbox asks for: `pay` mines one block, `mine` the rest. */
  confirmations: number;
}

/** The sandbox merchant of the chains that share one account key and fixed address. */
export interface LocalMerchant {
  /** The account's public key (xpub); null when it receives at its fixed address only. */
  xpub: string | null;
  fixedAddress: string;
}

/**
 * What the sandbox needs to run a chain on a local development node (a chain that can): the chain
 * knows its settings and keys, the sandbox runs the node.
 */
export interface LocalNode {
  /** The chain id the local node runs under: never a real network's. */
  chainId: number;
  /** The settings that put the edition's side of the chain on the node. */
  settings(node: LocalNodeAt): Record<string, string>;
  /** The settings that need the sandbox's chain server: a second source over the node (its relay) and the explorer. */
  serverSettings(rpcUrls: readonly string[], explorerUrl: string): Record<string, string>;
  /** The settings that give the sandbox merchant's key and address. */
  merchantSettings(merchant: LocalMerchant): Record<string, string>;
  /** A fresh random account's public key; its private half is never kept. */
  freshAccountKey(): string;
  /** The receive addresses of the account key's children, by index. */
  childAddresses(accountKey: string): (index: number) => string;
}
