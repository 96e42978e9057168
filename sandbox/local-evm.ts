import { randomBytes } from 'node:crypto';
import { HDNodeWallet, Wallet } from 'ethers';
import { evmSettingNamesOf, EVM_ADDRESS, EVM_XPUB } from '../core/evm/evm-config.ts';
import { evmChainSpecs, type EvmChainSpec } from '../core/evm/evm-chains.ts';
import { ACCOUNT_PATH, parseEvmAccountXpub, type EvmAccountKey } from '../core/evm/keys.ts';
import type { TokenSymbol } from '../core/evm/tokens.ts';
import type { EvmChainName } from '../shared/index.ts';
import type { Env } from '../edge/settings.ts';
import { startAnvil, type Anvil } from './anvil.ts';
import { deployTestToken, type TestToken } from './test-token.ts';

/** The sandbox Base node's chain id (anvil's own default): a local development chain, never Base (8453) or Base Sepolia. */
export const SANDBOX_EVM_CHAIN_ID = evmChainSpecs[0].sandboxChainId;
/** `pay` mines the payment's block (1 confirmation); `mine` adds the second, as on the regtest side. */
export const SANDBOX_BASE_CONFIRMATIONS = 2;
/** Children of the sandbox's key that `pay` recognises as invoice addresses (more invoices than a sandbox run makes). */
export const SANDBOX_PAYABLE_CHILDREN = 1_000;

/** How the sandbox takes USDC: an address per invoice (xpub, the default) or at the fixed address, as USDT always is. */
export type SandboxUsdcMode = 'xpub' | 'fixed-address';

export type ControlAction = (input: Record<string, unknown>) => Promise<unknown>;

/** The sandbox merchant's throwaway EVM key and fixed address, the same on every sandbox EVM chain (as MERCHANT_EVM_XPUB is). */
export interface SandboxEvmMerchant {
  usdcMode: SandboxUsdcMode;
  /** The account xpub (xpub mode), its private half dropped at once; null in fixed-address mode. */
  xpub: string | null;
  fixedAddress: string;
}

export interface LocalEvm {
  chain: EvmChainName;
  anvil: Anvil;
  tokens: Record<TokenSymbol, TestToken>;
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
export function sandboxEvmMerchant(usdcMode: SandboxUsdcMode = 'xpub'): SandboxEvmMerchant {
  return {
    usdcMode,
    xpub: usdcMode === 'xpub' ? HDNodeWallet.fromSeed(randomBytes(32)).derivePath(ACCOUNT_PATH).neuter().extendedKey : null,
    fixedAddress: new Wallet(`0x${randomBytes(32).toString('hex')}`).address,
  };
}

/** The settings that give the sandbox merchant's key and address to every EVM chain with an RPC URL. */
export const sandboxMerchantEnv = (merchant: SandboxEvmMerchant): Env => ({ ...(merchant.xpub && { [EVM_XPUB]: merchant.xpub }), [EVM_ADDRESS]: merchant.fixedAddress });

/** Recognises the merchant key's first children, derived once each, on demand (a derivation costs milliseconds). */
function childAddresses(key: EvmAccountKey | null) {
  const known = new Set<string>();
  return (address: string): boolean => {
    if (!key) return false;
    for (let index = known.size; !known.has(address) && index < SANDBOX_PAYABLE_CHILDREN; index++) known.add(key.address(index));
    return known.has(address);
  };
}

/**
 * A local anvil node standing in for one EVM chain (`spec`, Base by default), with a test USDC
 * and a test USDT; payments come from the node's own pre-funded account 0, which holds the
 * token supply. The merchant is the sandbox's (a fresh one when none is given).
 */
export async function startLocalEvm(options: { usdcMode?: SandboxUsdcMode; spec?: EvmChainSpec; merchant?: SandboxEvmMerchant } = {}): Promise<LocalEvm> {
  const spec = options.spec ?? evmChainSpecs[0];
  const merchant = options.merchant ?? sandboxEvmMerchant(options.usdcMode);
  const anvil = await startAnvil({ chainId: spec.sandboxChainId });
  try {
    // Asked of the node itself, so the listener can only ever be pointed at a local chain.
    const chainId = Number(await anvil.rpc<string>('eth_chainId'));
    if (chainId !== spec.sandboxChainId) {
      throw new Error(`the sandbox EVM node reports chain id ${chainId}, not ${spec.sandboxChainId}; refusing to use it`);
    }
    const tokens = { usdc: await deployTestToken(anvil, 'USDC'), usdt: await deployTestToken(anvil, 'USDT') };
    const isChild = childAddresses(merchant.xpub ? parseEvmAccountXpub(merchant.xpub) : null);
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
    const names = evmSettingNamesOf(spec);
    return {
      chain: spec.chain,
      anvil,
      tokens,
      fixedAddress,
      usdcMode: merchant.usdcMode,
      env: {
        ...sandboxMerchantEnv(merchant),
        [names.tokens]: `usdc:${tokens.usdc.address},usdt:${tokens.usdt.address}`,
        [names.rpcUrl]: anvil.url,
        // The sandbox's own node, declared trusted as an operator declares its own (confirmations say `own-node`).
        [names.minSources]: '1',
        // anvil serves its WebSocket on the HTTP port: each block starts a pass, so an idle sandbox does not poll.
        [names.wsUrl]: anvil.url.replace(/^http/, 'ws'),
        // Blocks come when a payment or `mine` asks: none is ever "due", so without the socket the watcher polls at its pace.
        [names.blockTimeMs]: '0',
        [names.chainId]: String(spec.sandboxChainId),
        [names.confirmations]: String(SANDBOX_BASE_CONFIRMATIONS),
        // The local node finalizes 64 blocks behind its head: a payment would wait for 64 mined blocks.
        [names.finality]: 'count',
      },
      settingsBehind: (server) => ({ [names.rpcUrl]: `${anvil.url},${server.evmRpcUrl}/${spec.chain}`, [names.explorerUrl]: server.explorerUrl }),
      control: { [`${spec.chain}/pay`]: pay, [`${spec.chain}/mine`]: mine },
      relay,
      close: () => anvil.stop(),
    };
  } catch (error) {
    await anvil.stop();
    throw error;
  }
}

/** One local node per EVM chain the service knows, all with the same sandbox merchant. */
export async function startLocalEvms(usdcMode: SandboxUsdcMode): Promise<LocalEvm[]> {
  const merchant = sandboxEvmMerchant(usdcMode);
  const started: LocalEvm[] = [];
  try {
    for (const spec of evmChainSpecs) started.push(await startLocalEvm({ spec, merchant }));
  } catch (error) {
    await Promise.all(started.map((evm) => evm.close()));
    throw error;
  }
  return started;
}
