import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { FetchRequest, JsonRpcProvider, Network, type JsonRpcSigner } from 'ethers';

const require = createRequire(import.meta.url);
const ANVIL_PACKAGE = '@foundry-rs/anvil-linux-amd64';

/** The anvil binary is a dev dependency (43 MB, Linux x64 only): a production install has none. */
export class AnvilMissingError extends Error {}

export function anvilBinary(): string {
  try {
    return require.resolve(`${ANVIL_PACKAGE}/bin/anvil`);
  } catch {
    throw new AnvilMissingError(`${ANVIL_PACKAGE} is not installed (it is a dev dependency: install with plain npm ci, not --omit=dev; Linux x64 only)`);
  }
}

export interface Anvil {
  url: string;
  chainId: number;
  provider: JsonRpcProvider;
  rpc<T>(method: string, params?: unknown[]): Promise<T>;
  /** The node's own unlocked, pre-funded accounts: anvil signs for them, no key leaves it. */
  signer(index?: number): Promise<JsonRpcSigner>;
  mine(blocks?: number): Promise<void>;
  stop(): Promise<void>;
}

export interface AnvilOptions {
  chainId?: number;
  /** 0 (default) picks a free port. */
  port?: number;
  blockTime?: number;
}

/** A real anvil node on a loopback port (auto-mining: every transaction gets its own block). */
export async function startAnvil(options: AnvilOptions = {}): Promise<Anvil> {
  const chainId = options.chainId ?? 31337;
  const args = ['--host', '127.0.0.1', '--port', String(options.port ?? 0), '--chain-id', String(chainId), '--accounts', '4'];
  if (options.blockTime) args.push('--block-time', String(options.blockTime));
  const child = spawn(anvilBinary(), args, { stdio: ['ignore', 'pipe', 'pipe'] });
  // Never leave the node running after this process, however it ends (short of SIGKILL).
  const killOnExit = () => child.kill('SIGTERM');
  process.once('exit', killOnExit);
  let port: number;
  try {
    port = await listeningPort(child);
  } catch (error) {
    child.kill('SIGTERM');
    process.off('exit', killOnExit);
    throw error;
  }
  // The node is a helper, never what keeps this process alive: if its owner is stuck or gone,
  // the process can still exit, and the 'exit' handler then stops the node.
  child.unref();
  for (const stream of [child.stdout, child.stderr]) (stream as unknown as { unref?(): void } | null)?.unref?.();
  const client = anvilClient(`http://127.0.0.1:${port}`, chainId);
  return {
    ...client,
    stop: async () => {
      client.provider.destroy();
      process.off('exit', killOnExit);
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      // A node too busy to honour SIGTERM must still never outlive its owner.
      const force = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(force);
    },
  };
}

/** A client of an anvil node at `url` (or of a proxy in front of one); stopping the node is not its job. */
export function anvilClient(url: string, chainId: number): Omit<Anvil, 'stop'> {
  // ethers waits 5 minutes for an answer by default; a local node answers in milliseconds.
  const request = new FetchRequest(url);
  request.timeout = 30_000;
  const provider = new JsonRpcProvider(request, Network.from(chainId), { staticNetwork: true, pollingInterval: 50 });
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
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`anvil exited with ${code}: ${output}`));
    });
  });
}
