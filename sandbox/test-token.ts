import { readFileSync } from 'node:fs';
import { Contract, ContractFactory } from 'ethers';
import type { Anvil } from './anvil.ts';

/** TestToken.sol compiled (test/core/evm/evm-token-fixture.test.ts recompiles it with solc and compares). */
const TEST_TOKEN = JSON.parse(readFileSync(new URL('./TestToken.json', import.meta.url), 'utf8')) as { abi: unknown[]; bytecode: string };

export interface TestToken {
  address: string;
  /** A real ERC-20 transfer signed by the node's account `from`; resolves once mined. */
  transfer(to: string, units: bigint, from?: number): Promise<{ txHash: string; blockNumber: number }>;
  transferMany(to: string[], units: bigint[], from?: number): Promise<{ txHash: string; blockNumber: number }>;
  balanceOf(address: string): Promise<bigint>;
}

/** The tokens' EIP-712 domain names, as on the real chains (USDC's is Circle's: "USD Coin", version "2"). */
export const TEST_TOKEN_NAMES: Record<string, string> = { USDC: 'USD Coin', USDT: 'Tether USD' };
/** The EIP-712 domain version of the TestToken (FiatToken v2's). */
export const TEST_TOKEN_VERSION = '2';

/**
 * Deploys the 6-decimal TestToken from account 0, which holds the supply (10^9 tokens), and gives
 * accounts 1..fundAccounts 10^7 tokens each so payments can come from several senders.
 */
export async function deployTestToken(anvil: Omit<Anvil, 'stop'>, symbol = 'USDC', options: { fundAccounts?: number } = {}): Promise<TestToken> {
  const deployer = await anvil.signer(0);
  const factory = new ContractFactory(TEST_TOKEN.abi as never, TEST_TOKEN.bytecode, deployer);
  const deployed = await factory.deploy(TEST_TOKEN_NAMES[symbol] ?? `Test ${symbol}`, symbol, 10n ** 15n);
  await minedReceipt(anvil, deployed.deploymentTransaction()!.hash);
  const address = await deployed.getAddress();
  for (let i = 1; i <= (options.fundAccounts ?? 0); i++) {
    const tx = await (deployed.connect(deployer) as Contract).getFunction('transfer')(await (await anvil.signer(i)).getAddress(), 10n ** 13n);
    await minedReceipt(anvil, tx.hash);
  }
  const at = async (from: number) => new Contract(address, TEST_TOKEN.abi as never, await anvil.signer(from));
  const mined = async (tx: { hash: string }) => {
    const receipt = await minedReceipt(anvil, tx.hash);
    return { txHash: receipt.transactionHash, blockNumber: Number(receipt.blockNumber) };
  };
  return {
    address,
    transfer: async (to, units, from = 1) => mined(await (await at(from)).getFunction('transfer')(to, units)),
    transferMany: async (to, units, from = 0) => mined(await (await at(from)).getFunction('transferMany')(to, units)),
    balanceOf: async (owner) => (await (await at(0)).getFunction('balanceOf')(owner)) as bigint,
  };
}

interface Receipt {
  transactionHash: string;
  blockNumber: string;
  status: string;
}

/**
 * The receipt of `hash` once the node has mined it, asked of the node until it is there. Not
 * ethers' `wait()`: that one can take a "not mined yet" answer from a node whose auto-miner runs
 * a moment late (a loaded machine), then wait for a block newer than the transaction's, which an
 * auto-mining node with nothing else to mine never makes (test/core/evm/evm-test-token-mined.test.ts).
 */
export async function minedReceipt(anvil: Pick<Anvil, 'rpc'>, hash: string, options: { withinMs?: number; everyMs?: number } = {}): Promise<Receipt> {
  const { withinMs = 30_000, everyMs = 25 } = options;
  const deadline = Date.now() + withinMs;
  for (;;) {
    const receipt = await anvil.rpc<Receipt | null>('eth_getTransactionReceipt', [hash]);
    if (receipt) {
      if (receipt.status !== '0x1') throw new Error(`transaction ${hash} reverted`);
      return receipt;
    }
    if (Date.now() > deadline) {
      const head = Number(await anvil.rpc<string>('eth_blockNumber'));
      throw new Error(`transaction ${hash} is not mined after ${withinMs} ms; the node's head is block ${head}`);
    }
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
