import { randomBytes } from 'node:crypto';
import { HDNodeWallet } from 'ethers';
import { ACCOUNT_PATH, parseEvmAccountXpub } from '../../core/base/keys.ts';
import type { Env } from '../config.ts';
import { startAnvil, type Anvil } from './anvil.ts';
import { deployTestToken, type TestToken } from './test-token.ts';

/** anvil's own default chain id: a local development chain, never Base (8453) or Base Sepolia. */
export const SANDBOX_EVM_CHAIN_ID = 31337;
/** `pay` mines the payment's block (1 confirmation); `mine` adds the second, as on the regtest side. */
export const SANDBOX_BASE_CONFIRMATIONS = 2;

export type ControlAction = (input: Record<string, unknown>) => Promise<unknown>;

export interface LocalEvm {
  anvil: Anvil;
  usdc: TestToken;
  /** Settings that put the listener's Base side on this node, in xpub mode with a throwaway key. */
  env: Env;
  /** Control actions served next to the regtest chain's, so `pay` and `mine` find one address. */
  control: Record<string, ControlAction>;
  close(): Promise<void>;
}

export class SandboxRefusal extends Error {}

/**
 * A local anvil node with a test USDC for the sandbox. The merchant key is a fresh random xpub
 * whose private half is dropped at once; payments come from the node's own pre-funded account
 * 0, which holds the token supply.
 */
export async function startLocalEvm(): Promise<LocalEvm> {
  const anvil = await startAnvil({ chainId: SANDBOX_EVM_CHAIN_ID });
  try {
    // Asked of the node itself, so the listener can only ever be pointed at the local chain.
    const chainId = Number(await anvil.rpc<string>('eth_chainId'));
    if (chainId !== SANDBOX_EVM_CHAIN_ID) {
      throw new Error(`the sandbox EVM node reports chain id ${chainId}, not ${SANDBOX_EVM_CHAIN_ID}; refusing to use it`);
    }
    const usdc = await deployTestToken(anvil, 'USDC');
    const xpub = HDNodeWallet.fromSeed(randomBytes(32)).derivePath(ACCOUNT_PATH).neuter().extendedKey;
    const merchantKey = parseEvmAccountXpub(xpub);

    const pay: ControlAction = async (input) => {
      const address = String(input.address);
      const index = Number(input.child_index);
      if (!Number.isSafeInteger(index) || index < 0 || merchantKey.address(index) !== address) {
        throw new SandboxRefusal(`${address} is not an invoice address of this sandbox's merchant key; pay real invoices from a real wallet`);
      }
      if (!/^[1-9]\d*$/.test(String(input.units))) throw new SandboxRefusal('units must be a positive integer');
      const paid = await usdc.transfer(address, BigInt(String(input.units)), 0);
      return { tx_hash: paid.txHash, block_number: paid.blockNumber };
    };
    const mine: ControlAction = async (input) => {
      await anvil.mine(Number(input.blocks ?? 1));
      return { height: await anvil.provider.getBlockNumber() };
    };

    return {
      anvil,
      usdc,
      env: {
        MERCHANT_BASE_XPUB: xpub,
        MERCHANT_EVM_TOKENS: `usdc:${usdc.address}`,
        BASE_RPC_URL: anvil.url,
        BASE_CHAIN_ID: String(SANDBOX_EVM_CHAIN_ID),
        BASE_CONFIRMATIONS: String(SANDBOX_BASE_CONFIRMATIONS),
      },
      control: { 'base/pay': pay, 'base/mine': mine },
      close: () => anvil.stop(),
    };
  } catch (error) {
    await anvil.stop();
    throw error;
  }
}
