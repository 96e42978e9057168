import { startSandboxRates } from './sandbox-rates.ts';
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { BIP32Factory } from 'bip32';
import * as bitcoin from 'bitcoinjs-lib';
import * as ecc from 'tiny-secp256k1';
import { systemClock } from '../core/clock.ts';
import { startWebhookReceiver, type ReceivedWebhook, type RunningReceiver } from '../core/webhooks/receiver.ts';
import { newWebhookSecret } from '../core/webhooks/signature.ts';
import { ConfigError, type Env } from '../edge/settings.ts';
import { AnvilMissingError } from './anvil.ts';
import { getAddress, isAddress, Wallet } from 'ethers';
import { SandboxRefusal, startLocalEvms, type LocalEvm, type SandboxChain, type SandboxUsdcMode } from './local-evm.ts';
import { X402_FACILITATOR_URL, X402_SETTLER_KEY } from '../core/x402/x402-settings.ts';
import type { ChainModule } from '../core/invoices/chain-module.ts';
import { claimSandboxFolder, DEFAULT_SANDBOX_CHAIN_PORT, removeSandboxState, writeSandboxState, type SandboxState } from './sandbox-state.ts';
import { LocalBtcChain } from './local-btc-chain.ts';
import { startLocalChainServer, type LocalChainServer } from './local-chain-server.ts';
import { sandboxExplorer } from './explorer-page.ts';
import { bindFailure } from '../edge/http/serve.ts';
import { startSandboxLightning, type SandboxLightning } from './sandbox-lightning.ts';

/**
 * The listener sandbox's database, relative to the directory it runs in: made afresh at start and
 * removed at stop, so nothing outlives a run, while CLI commands run in the same directory (`service
 * deliveries`) read what the running sandbox holds (its state file names it).
 */
export const SANDBOX_DATABASE_PATH = './data/sandbox.db';

function removeSandboxFiles(database: string): void {
  removeSandboxState();
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${database}${suffix}`, { force: true });
}

/** SANDBOX_USDC_MODE: USDC per invoice address (xpub, the default) or at the fixed address, as USDT. */
function usdcMode(env: Env): SandboxUsdcMode {
  const text = env.SANDBOX_USDC_MODE?.trim() || 'xpub';
  if (text !== 'xpub' && text !== 'fixed-address') throw new ConfigError([`SANDBOX_USDC_MODE must be xpub or fixed-address, got "${text}"`]);
  return text;
}

/**
 * Sandbox mode applies when no merchant key of any chain is configured, outside production. It can
 * never touch mainnet: the Bitcoin chain is an in-process regtest chain with a fresh tpub, and each
 * EVM chain a local anvil node (Base's chain id 31337, Ethereum's 31338, Polygon's 31339) with one
 * fresh xpub for all. A merchant key or address of any chain counts, and (as before there were other
 * EVM chains) any BASE_ setting; another chain's RPC URL alone does not: ETH_RPC_URL is also
 * Foundry's variable, often set in a developer's shell.
 */
export function wantsSandbox(env: Env, chains: readonly Pick<ChainModule, 'claimsSetting'>[]): boolean {
  if (env.NODE_ENV === 'production') return false;
  return !Object.keys(env).some((name) => env[name]?.trim() && chains.some((chain) => chain.claimsSetting(name)));
}

export interface Sandbox {
  server: LocalChainServer;
  /** Settings that point the listener at the sandbox chains with throwaway merchant keys. */
  env: Env;
  /** The local Base node (the first of `evms`), or null with the reason in `baseUnavailable` (anvil not installed). */
  evm: LocalEvm | null;
  /** One local node per EVM chain (Base, Ethereum, …), all with the same sandbox merchant; empty without anvil. */
  evms: LocalEvm[];
  baseUnavailable: string | null;
  /** The local Nostr relay and the simulated Lightning wallet (regtest) behind the sandbox's MERCHANT_NWC_URL. */
  lightning: SandboxLightning;
  /** The local receiver the sandbox sends its webhooks to; null when MERCHANT_WEBHOOK_URL is the user's own. */
  webhookReceiver: RunningReceiver | null;
  /** Once the edition serves: writes the state file by which `pay`, `mine` and `deliveries` find this sandbox. */
  announce(apiUrl: string): void;
  close(): Promise<void>;
}

export interface SandboxOptions {
  /** The chains the service runs: the sandbox stands a local node in for each that has one. */
  chains: readonly SandboxChain[];
  /** Called with each webhook delivery the sandbox's own receiver verified. */
  onWebhook(event: ReceivedWebhook): void;
  edition?: SandboxState['edition'];
  /** Its SQLite file (default SANDBOX_DATABASE_PATH), made afresh and removed at stop. */
  database?: string;
}

/**
 * With no MERCHANT_WEBHOOK_URL set, a local receiver on a free port takes the sandbox's webhooks and
 * verifies each with the webhook secret (the user's, or a throwaway one), so the whole loop shows
 * in one terminal.
 */
async function startSandboxReceiver(env: Env, options: SandboxOptions): Promise<{ receiver: RunningReceiver; env: Env } | null> {
  if (env.MERCHANT_WEBHOOK_URL?.trim()) return null;
  const secret = env.MERCHANT_WEBHOOK_SECRET?.trim() || env.SERVICE_WEBHOOK_SECRET?.trim() || newWebhookSecret();
  const receiver = await startWebhookReceiver({ host: '127.0.0.1', port: 0, path: '/webhook', secret, clock: systemClock, onEvent: options.onWebhook });
  return { receiver, env: { MERCHANT_WEBHOOK_URL: receiver.url, MERCHANT_WEBHOOK_SECRET: secret } };
}

/** What the sandbox settler key holds on every local EVM node: gas for far more x402 settlements than a sandbox run makes. */
const SANDBOX_SETTLER_GAS_WEI = 10n ** 20n;

/**
 * The sandbox settles x402 payments itself: a throwaway key, funded with gas on every sandbox EVM
 * node, as X402_SETTLER_KEY, unless the user set a settler or a facilitator of their own.
 */
async function sandboxSettler(env: Env, evms: LocalEvm[]): Promise<Env> {
  if (evms.length === 0 || env[X402_SETTLER_KEY]?.trim() || env[X402_FACILITATOR_URL]?.trim()) return {};
  const key = `0x${randomBytes(32).toString('hex')}`;
  const { address } = new Wallet(key);
  for (const evm of evms) await evm.anvil.rpc('anvil_setBalance', [address, `0x${SANDBOX_SETTLER_GAS_WEI.toString(16)}`]);
  return { [X402_SETTLER_KEY]: key };
}

/**
 * `service fund` on the EVM side: `units` of sandbox USDC to `address` on every sandbox EVM node,
 * from the node's own account that holds the supply, so a test agent's wallet can pay with x402.
 */
function fundEvery(evms: LocalEvm[]) {
  return async (input: Record<string, unknown>) => {
    const address = String(input.address);
    if (!isAddress(address)) throw new SandboxRefusal(`${address} is not an EVM address (0x and 40 hex digits)`);
    if (!/^[1-9]\d{0,15}$/.test(String(input.units))) throw new SandboxRefusal('units must be a positive integer');
    const funded: Record<string, string> = {};
    for (const evm of evms) funded[evm.chain] = (await evm.tokens.usdc.transfer(getAddress(address), BigInt(String(input.units)), 0)).txHash;
    return { funded, usdc: Object.fromEntries(evms.map((evm) => [evm.chain, evm.tokens.usdc.address])), networks: Object.fromEntries(evms.map((evm) => [evm.chain, `eip155:${evm.anvil.chainId}`])) };
  };
}

/** `service mine` on the EVM side: n blocks on every sandbox EVM node; their heights by chain. */
function mineEvery(evms: LocalEvm[]) {
  return async (input: Record<string, unknown>) => {
    const heights: Record<string, number> = {};
    for (const evm of evms) {
      await evm.anvil.mine(Number(input.blocks ?? 1));
      heights[evm.chain] = await evm.anvil.provider.getBlockNumber();
    }
    return { heights };
  };
}

export async function startSandbox(env: Env, options: SandboxOptions): Promise<Sandbox> {
  const mode = usdcMode(env);
  // Before anything is touched: a second start in this folder must leave the running sandbox's files alone.
  const release = claimSandboxFolder();
  try {
    const sandbox = await startClaimed(env, options, mode);
    return { ...sandbox, close: () => sandbox.close().finally(release) };
  } catch (error) {
    release();
    throw error;
  }
}

async function startClaimed(env: Env, options: SandboxOptions, mode: SandboxUsdcMode): Promise<Sandbox> {
  const database = options.database ?? SANDBOX_DATABASE_PATH;
  const merchantKey = BIP32Factory(ecc).fromSeed(randomBytes(32), bitcoin.networks.testnet).derivePath("m/84'/1'/0'").neutered();
  const chain = new LocalBtcChain();
  let evms: LocalEvm[] = [];
  let baseUnavailable: string | null = null;
  try {
    evms = await startLocalEvms(options.chains, mode);
  } catch (error) {
    if (!(error instanceof AnvilMissingError)) throw error;
    baseUnavailable = error.message;
  }
  let server: LocalChainServer;
  let webhooks: Awaited<ReturnType<typeof startSandboxReceiver>>;
  const chainPort = Number(env.SANDBOX_CHAIN_PORT || DEFAULT_SANDBOX_CHAIN_PORT);
  const rates = await startSandboxRates(env);
  const closeRates = () => Promise.all(rates.tickers.map((tickers) => tickers.close()));
  const lightning = await startSandboxLightning().catch(async (error: unknown) => {
    await closeRates();
    throw error;
  });
  const closeRatesAndLightning = () => Promise.all([closeRates(), lightning.close()]);
  try {
    server = await startLocalChainServer(chain, {
      port: chainPort,
      extraControl: Object.assign({}, ...evms.map((evm) => evm.control), { 'evm/mine': mineEvery(evms), 'evm/fund': fundEvery(evms) }, rates.control, lightning.control),
      evmRpc: (name, body) => {
        const evm = evms.find((candidate) => candidate.chain === name);
        return evm ? evm.relay(body) : Promise.reject(new Error(`no sandbox node for ${name}`));
      },
      explorer: sandboxExplorer(chain, evms),
    }).catch((error: NodeJS.ErrnoException) => {
      throw error.syscall === 'listen' ? bindFailure(error, chainPort, '127.0.0.1', { port: 'SANDBOX_CHAIN_PORT', host: 'SANDBOX_CHAIN_PORT' }) : error;
    });
    webhooks = await startSandboxReceiver(env, options).catch(async (error: unknown) => {
      await server.close();
      throw error;
    });
  } catch (error) {
    await Promise.all(evms.map((evm) => evm.close()));
    await closeRatesAndLightning();
    throw error;
  }
  const settler = await sandboxSettler(env, evms);
  // The chain lives in memory and starts afresh each run, so the invoices do too.
  removeSandboxFiles(database);
  mkdirSync('./data', { recursive: true });
  return {
    server,
    evm: evms[0] ?? null,
    evms,
    baseUnavailable,
    lightning,
    webhookReceiver: webhooks?.receiver ?? null,
    env: {
      ...env,
      ...Object.assign({}, ...evms.map((evm) => evm.env)),
      ...Object.assign({}, ...evms.map((evm) => evm.settingsBehind(server))),
      ...webhooks?.env,
      ...settler,
      ...rates.env,
      ...lightning.env,
      MERCHANT_BTC_XPUB: merchantKey.toBase58(),
      BTC_NETWORK: 'regtest',
      BTC_ESPLORA_URL: server.esploraUrl,
      BTC_EXPLORER_URL: server.explorerUrl,
      DATABASE_URL: `sqlite:${database}`,
    },
    announce(apiUrl) {
      writeSandboxState({ pid: process.pid, edition: options.edition ?? 'listener', api_url: apiUrl, chain_url: server.controlUrl.replace(/\/control$/, ''), database });
    },
    async close() {
      await server.close();
      await Promise.all(evms.map((evm) => evm.close()));
      await webhooks?.receiver.close();
      await closeRatesAndLightning();
      removeSandboxFiles(database);
    },
  };
}
