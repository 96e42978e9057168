import { randomBytes } from 'node:crypto';
import { HDNodeWallet, Wallet } from 'ethers';
import { ACCOUNT_PATH, parseEvmAccountXpub, type EvmAccountKey } from '../../core/base/keys.ts';
import type { TokenSymbol } from '../../core/base/tokens.ts';
import type { Env } from '../config.ts';
import { startAnvil, type Anvil } from './anvil.ts';
import { deployTestToken, type TestToken } from './test-token.ts';

/** anvil's own default chain id: a local development chain, never Base (8453) or Base Sepolia. */
export const SANDBOX_EVM_CHAIN_ID = 31337;
/** `pay` mines the payment's block (1 confirmation); `mine` adds the second, as on the regtest side. */
export const SANDBOX_BASE_CONFIRMATIONS = 2;
/** Children of the sandbox's key that `pay` recognises as invoice addresses (more invoices than a sandbox run makes). */
export const SANDBOX_PAYABLE_CHILDREN = 1_000;

/** How the sandbox takes USDC: an address per invoice (xpub mode, the default) or at the fixed address, as USDT always is. */
export type SandboxUsdcMode = 'xpub' | 'fixed-address';

export type ControlAction = (input: Record<string, unknown>) => Promise<unknown>;

export interface LocalEvm {
  anvil: Anvil;
  tokens: Record<TokenSymbol, TestToken>;
  /** The sandbox merchant's fixed receive address (fixed-address mode: USDT, and USDC when asked). */
  fixedAddress: string;
  usdcMode: SandboxUsdcMode;
  /**
   * Settings that put the listener's Base side on this node with throwaway keys. BASE_RPC_URL names
   * the node alone; the sandbox adds a second source over the same node (`relay`), since
   * fixed-address mode confirms only what two sources report.
   */
  env: Env;
  /** Control actions served next to the regtest chain's, so `pay` and `mine` find one address. */
  control: Record<string, ControlAction>;
  /** Passes a JSON-RPC request body to the node and returns its answer: the second source. */
  relay(body: string): Promise<string>;
  close(): Promise<void>;
}

export class SandboxRefusal extends Error {}

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
 * A local anvil node with a test USDC and a test USDT for the sandbox. The merchant key is a fresh
 * random xpub and the fixed address a fresh random one, their private halves dropped at once;
 * payments come from the node's own pre-funded account 0, which holds the token supply.
 */
export async function startLocalEvm(options: { usdcMode?: SandboxUsdcMode } = {}): Promise<LocalEvm> {
  const usdcMode = options.usdcMode ?? 'xpub';
  const anvil = await startAnvil({ chainId: SANDBOX_EVM_CHAIN_ID });
  try {
    // Asked of the node itself, so the listener can only ever be pointed at the local chain.
    const chainId = Number(await anvil.rpc<string>('eth_chainId'));
    if (chainId !== SANDBOX_EVM_CHAIN_ID) {
      throw new Error(`the sandbox EVM node reports chain id ${chainId}, not ${SANDBOX_EVM_CHAIN_ID}; refusing to use it`);
    }
    const tokens = { usdc: await deployTestToken(anvil, 'USDC'), usdt: await deployTestToken(anvil, 'USDT') };
    const xpub = HDNodeWallet.fromSeed(randomBytes(32)).derivePath(ACCOUNT_PATH).neuter().extendedKey;
    const merchantKey = usdcMode === 'xpub' ? parseEvmAccountXpub(xpub) : null;
    const isChild = childAddresses(merchantKey);
    const fixedAddress = new Wallet(`0x${randomBytes(32).toString('hex')}`).address;

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
      anvil,
      tokens,
      fixedAddress,
      usdcMode,
      env: {
        ...(merchantKey && { MERCHANT_BASE_XPUB: xpub }),
        MERCHANT_BASE_ADDRESS: fixedAddress,
        MERCHANT_EVM_TOKENS: `usdc:${tokens.usdc.address},usdt:${tokens.usdt.address}`,
        BASE_RPC_URL: anvil.url,
        BASE_CHAIN_ID: String(SANDBOX_EVM_CHAIN_ID),
        BASE_CONFIRMATIONS: String(SANDBOX_BASE_CONFIRMATIONS),
      },
      control: { 'base/pay': pay, 'base/mine': mine },
      relay,
      close: () => anvil.stop(),
    };
  } catch (error) {
    await anvil.stop();
    throw error;
  }
}
