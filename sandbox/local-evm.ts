import { randomBytes } from 'node:crypto';
import { Wallet } from 'ethers';
import type { ChainModule } from '../core/invoices/chain-module.ts';
import type { LocalMerchant, LocalNode } from '../core/invoices/local-node.ts';
import type { ChainName } from '../shared/index.ts';
import type { Env } from '../edge/settings.ts';
import { startAnvil, type Anvil } from './anvil.ts';
import { deployTestToken, type TestToken } from './test-token.ts';

/** What the sandbox asks of a chain: the local node standing in for it, if it has one. */
export type SandboxChain = Pick<ChainModule, 'chain' | 'localNode'>;
type LocalNodeChain = { chain: SandboxChain['chain']; localNode: LocalNode };

/** Of the chains given, those the sandbox runs on a local anvil node each, in the list's order (Base first). */
const localNodeChainsOf = (chains: readonly SandboxChain[]): LocalNodeChain[] => chains.flatMap(({ chain, localNode }) => (localNode ? [{ chain, localNode }] : []));
/** `pay` mines the payment's block (1 confirmation); `mine` adds the second, as on the regtest side. */
export const SANDBOX_BASE_CONFIRMATIONS = 2;
/** Children of the sandbox's key that `pay` recognises as invoice addresses (more invoices than a sandbox run makes). */
export const SANDBOX_PAYABLE_CHILDREN = 1_000;

/** How the sandbox takes USDC: an address per invoice (xpub, the default) or at the fixed address, as USDT always is. */
export type SandboxUsdcMode = 'xpub' | 'fixed-address';

export type ControlAction = (input: Record<string, unknown>) => Promise<unknown>;

/** The sandbox merchant's throwaway EVM key and fixed address, the same on every sandbox EVM chain (as MERCHANT_EVM_XPUB is). */
export interface SandboxEvmMerchant extends LocalMerchant {
  usdcMode: SandboxUsdcMode;
}

export interface LocalEvm {
  chain: ChainName;
  anvil: Anvil;
  tokens: Record<'usdc' | 'usdt', TestToken>;
  /** The sandbox merchant's fixed receive address (fixed-address mode: USDT, and USDC when asked). */
  fixedAddress: string;
  usdcMode: SandboxUsdcMode;
  /**
   * Settings that put the listener's side of this chain on this node (its RPC URL, tokens, chain
   * id, confirmations). The RPC URL names the node alone; the sandbox adds a second source over
   * the same node (`relay`), since fixed-address mode confirms only what two sources report.
   */
  env: Env;
  /**
   * The settings that need the running chain server: the node's RPC URL with the server's relay as
   * a second source (fixed-address mode confirms only what two sources report), and its explorer.
   */
  settingsBehind(server: { evmRpcUrl: string; explorerUrl: string }): Env;
  /** Control actions served next to the regtest chain's (`<chain>/pay`, `<chain>/mine`), so `pay` and `mine` find one address. */
  control: Record<string, ControlAction>;
  /** Passes a JSON-RPC request body to the node and returns its answer: the second source. */
  relay(body: string): Promise<string>;
  close(): Promise<void>;
}

export class SandboxRefusal extends Error {}

/** A fresh random merchant for the sandbox EVM chains; the private halves are never kept. */
export function sandboxEvmMerchant(usdcMode: SandboxUsdcMode, node: LocalNode): SandboxEvmMerchant {
  return {
    usdcMode,
    xpub: usdcMode === 'xpub' ? node.freshAccountKey() : null,
    fixedAddress: new Wallet(`0x${randomBytes(32).toString('hex')}`).address,
  };
}

/** Recognises the merchant key's first children, derived once each, on demand (a derivation costs milliseconds). */
function childAddresses(addressOf: ((index: number) => string) | null) {
  const known = new Set<string>();
  return (address: string): boolean => {
    if (!addressOf) return false;
    for (let index = known.size; !known.has(address) && index < SANDBOX_PAYABLE_CHILDREN; index++) known.add(addressOf(index));
    return known.has(address);
  };
}

/** The chain named `chain` among those given with a local node (the first, Base, when none is named). */
function localNodeChain(chains: readonly SandboxChain[], chain: string | undefined): LocalNodeChain {
  const withNodes = localNodeChainsOf(chains);
  const found = chain === undefined ? withNodes[0] : withNodes.find((candidate) => candidate.chain === chain);
  if (!found) throw new Error(`no local node for chain ${chain}`);
  return found;
}

/**
 * A local anvil node standing in for one EVM chain (`chain`, Base by default), with a test USDC
 * and a test USDT; payments come from the node's own pre-funded account 0, which holds the
 * token supply. The merchant is the sandbox's (a fresh one when none is given).
 */
export async function startLocalEvm(options: { chains: readonly SandboxChain[]; usdcMode?: SandboxUsdcMode; chain?: string; merchant?: SandboxEvmMerchant }): Promise<LocalEvm> {
  const { chain, localNode } = localNodeChain(options.chains, options.chain);
  const merchant = options.merchant ?? sandboxEvmMerchant(options.usdcMode ?? 'xpub', localNode);
  const anvil = await startAnvil({ chainId: localNode.chainId });
  try {
    // Asked of the node itself, so the listener can only ever be pointed at a local chain.
    const chainId = Number(await anvil.rpc<string>('eth_chainId'));
    if (chainId !== localNode.chainId) {
      throw new Error(`the sandbox EVM node reports chain id ${chainId}, not ${localNode.chainId}; refusing to use it`);
    }
    const tokens = { usdc: await deployTestToken(anvil, 'USDC'), usdt: await deployTestToken(anvil, 'USDT') };
    const isChild = childAddresses(merchant.xpub ? localNode.childAddresses(merchant.xpub) : null);
    const { fixedAddress } = merchant;

    const pay: ControlAction = async (input) => {
      const address = String(input.address);
      const asset = String(input.asset ?? 'usdc').toLowerCase();
      if (asset !== 'usdc' && asset !== 'usdt') throw new SandboxRefusal(`asset must be usdc or usdt, not ${asset}`);
      if (address !== fixedAddress && !isChild(address)) {
        throw new SandboxRefusal(`${address} is not an invoice address of this sandbox's merchant; pay real invoices from a real wallet`);
      }
      if (!/^[1-9]\d*$/.test(String(input.units))) throw new SandboxRefusal('units must be a positive integer');
      const paid = await tokens[asset].transfer(address, BigInt(String(input.units)), 0);
      return { tx_hash: paid.txHash, block_number: paid.blockNumber };
    };
    const mine: ControlAction = async (input) => {
      await anvil.mine(Number(input.blocks ?? 1));
      return { height: await anvil.provider.getBlockNumber() };
    };
    const relay = async (body: string) => {
      const answer = await fetch(anvil.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      return answer.text();
    };
    return {
      chain,
      anvil,
      tokens,
      fixedAddress,
      usdcMode: merchant.usdcMode,
      env: {
        ...localNode.merchantSettings(merchant),
        ...localNode.settings({ rpcUrl: anvil.url, tokens: { usdc: tokens.usdc.address, usdt: tokens.usdt.address }, confirmations: SANDBOX_BASE_CONFIRMATIONS }),
      },
      settingsBehind: (server) => localNode.serverSettings([anvil.url, `${server.evmRpcUrl}/${chain}`], server.explorerUrl),
      control: { [`${chain}/pay`]: pay, [`${chain}/mine`]: mine },
      relay,
      close: () => anvil.stop(),
    };
  } catch (error) {
    await anvil.stop();
    throw error;
  }
}

/** One local node per chain given that has one (the EVM chains), all with the same sandbox merchant. */
export async function startLocalEvms(chains: readonly SandboxChain[], usdcMode: SandboxUsdcMode): Promise<LocalEvm[]> {
  const withNodes = localNodeChainsOf(chains);
  if (withNodes.length === 0) return [];
  const merchant = sandboxEvmMerchant(usdcMode, withNodes[0]!.localNode);
  const started: LocalEvm[] = [];
  try {
    for (const { chain } of withNodes) started.push(await startLocalEvm({ chains, chain, merchant }));
  } catch (error) {
    await Promise.all(started.map((evm) => evm.close()));
    throw error;
  }
  return started;
}
