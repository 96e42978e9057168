import { randomBytes } from 'node:crypto';
import { BIP32Factory } from 'bip32';
import * as bitcoin from 'bitcoinjs-lib';
import * as ecc from 'tiny-secp256k1';
import type { Env } from '../config.ts';
import { AnvilMissingError } from './anvil.ts';
import { startLocalEvm, type LocalEvm } from './local-evm.ts';
import { LocalBtcChain } from './local-btc-chain.ts';
import { startLocalChainServer, type LocalChainServer } from './local-chain-server.ts';

/** Where the sandbox chain listens; the `pay` and `mine` commands find it here. 18443 is regtest's usual RPC port. */
export const DEFAULT_SANDBOX_CHAIN_PORT = 18443;

export function sandboxChainUrl(env: Env): string {
  return `http://127.0.0.1:${env.SANDBOX_CHAIN_PORT || DEFAULT_SANDBOX_CHAIN_PORT}`;
}

/**
 * Sandbox mode applies when no merchant key of any chain is configured, outside production. It can
 * never touch mainnet: the Bitcoin chain is an in-process regtest chain with a fresh tpub, and the
 * Base side a local anvil node (chain id 31337) with a fresh xpub.
 */
export function wantsSandbox(env: Env): boolean {
  if (env.NODE_ENV === 'production') return false;
  return !Object.keys(env).some((name) => (name === 'MERCHANT_BTC_XPUB' || /^(MERCHANT_(BASE|EVM)_|BASE_)/.test(name)) && env[name]?.trim());
}

export interface Sandbox {
  server: LocalChainServer;
  /** Settings that point the listener at the sandbox chains with throwaway merchant keys. */
  env: Env;
  /** The local EVM node, or null with the reason in `baseUnavailable` (anvil not installed). */
  evm: LocalEvm | null;
  baseUnavailable: string | null;
  close(): Promise<void>;
}

export async function startSandbox(env: Env): Promise<Sandbox> {
  const merchantKey = BIP32Factory(ecc).fromSeed(randomBytes(32), bitcoin.networks.testnet).derivePath("m/84'/1'/0'").neutered();
  const chain = new LocalBtcChain();
  let evm: LocalEvm | null = null;
  let baseUnavailable: string | null = null;
  try {
    evm = await startLocalEvm();
  } catch (error) {
    if (!(error instanceof AnvilMissingError)) throw error;
    baseUnavailable = error.message;
  }
  let server: LocalChainServer;
  try {
    server = await startLocalChainServer(chain, { port: Number(env.SANDBOX_CHAIN_PORT || DEFAULT_SANDBOX_CHAIN_PORT), extraControl: evm?.control });
  } catch (error) {
    await evm?.close();
    throw error;
  }
  return {
    server,
    evm,
    baseUnavailable,
    env: {
      ...env,
      ...evm?.env,
      MERCHANT_BTC_XPUB: merchantKey.toBase58(),
      BTC_NETWORK: 'regtest',
      BTC_ESPLORA_URL: server.esploraUrl,
      BTC_EXPLORER_URL: server.esploraUrl,
      // The chain lives in memory and starts afresh each run, so the invoices do too.
      DATABASE_URL: 'sqlite::memory:',
    },
    async close() {
      await server.close();
      await evm?.close();
    },
  };
}
