import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { Contract, ContractFactory, JsonRpcProvider, Network, type JsonRpcSigner } from 'ethers';

const require = createRequire(import.meta.url);
const ANVIL_BIN = require.resolve('@foundry-rs/anvil-linux-amd64/bin/anvil');
const TEST_TOKEN = JSON.parse(readFileSync(new URL('../fixtures/TestToken.json', import.meta.url), 'utf8')) as {
  abi: unknown[];
  bytecode: string;
};

export interface Anvil {
  url: string;
  chainId: number;
  provider: JsonRpcProvider;
  rpc<T>(method: string, params?: unknown[]): Promise<T>;
  signer(index?: number): Promise<JsonRpcSigner>;
  mine(blocks?: number): Promise<void>;
  stop(): Promise<void>;
}

/** A real anvil node on a free loopback port (auto-mining: every transaction gets its own block). */
export async function startAnvil(options: { chainId?: number; blockTime?: number } = {}): Promise<Anvil> {
  const chainId = options.chainId ?? 31337;
  const args = ['--host', '127.0.0.1', '--port', '0', '--chain-id', String(chainId), '--accounts', '4'];
  if (options.blockTime) args.push('--block-time', String(options.blockTime));
  const child = spawn(ANVIL_BIN, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const port = await listeningPort(child);
  const url = `http://127.0.0.1:${port}`;
  const provider = new JsonRpcProvider(url, Network.from(chainId), { staticNetwork: true, pollingInterval: 50 });
  const rpc = <T>(method: string, params: unknown[] = []) => provider.send(method, params) as Promise<T>;
  return {
    url,
    chainId,
    provider,
    rpc,
    signer: (index = 0) => provider.getSigner(index),
    mine: async (blocks = 1) => {
      await rpc('anvil_mine', [`0x${blocks.toString(16)}`]);
    },
    stop: async () => {
      provider.destroy();
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

function listeningPort(child: ChildProcess): Promise<number> {
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`anvil did not start: ${output}`)), 20_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /Listening on 127\.0\.0\.1:(\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        child.stdout!.removeAllListeners('data');
        child.stdout!.resume();
        resolve(Number(match[1]));
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`anvil exited with ${code}: ${output}`)));
  });
}

export interface TestToken {
  address: string;
  /** A real ERC-20 transfer signed by the node's account `from`; resolves once mined. */
  transfer(to: string, units: bigint, from?: number): Promise<{ txHash: string; blockNumber: number }>;
  transferMany(to: string[], units: bigint[], from?: number): Promise<{ txHash: string; blockNumber: number }>;
  balanceOf(address: string): Promise<bigint>;
}

/** Deploys the 6-decimal TestToken (test/fixtures/TestToken.sol) from account 0, which holds the supply. */
export async function deployTestToken(anvil: Anvil, symbol = 'USDC'): Promise<TestToken> {
  const deployer = await anvil.signer(0);
  const factory = new ContractFactory(TEST_TOKEN.abi as never, TEST_TOKEN.bytecode, deployer);
  const deployed = await factory.deploy(`Test ${symbol}`, symbol, 10n ** 15n);
  await deployed.waitForDeployment();
  const address = await deployed.getAddress();
  // Accounts 1..3 get a balance too, so tests can pay from several senders.
  for (let i = 1; i < 4; i++) {
    const tx = await (deployed.connect(deployer) as Contract).getFunction('transfer')(await (await anvil.signer(i)).getAddress(), 10n ** 13n);
    await tx.wait();
  }
  const at = async (from: number) => new Contract(address, TEST_TOKEN.abi as never, await anvil.signer(from));
  const mined = async (tx: { wait(): Promise<{ hash: string; blockNumber: number } | null> }) => {
    const receipt = await tx.wait();
    if (!receipt) throw new Error('transaction not mined');
    return { txHash: receipt.hash, blockNumber: receipt.blockNumber };
  };
  return {
    address,
    transfer: async (to, units, from = 1) => mined(await (await at(from)).getFunction('transfer')(to, units)),
    transferMany: async (to, units, from = 0) => mined(await (await at(from)).getFunction('transferMany')(to, units)),
    balanceOf: async (owner) => (await (await at(0)).getFunction('balanceOf')(owner)) as bigint,
  };
}
