import { defaultChains } from '../../core/chains/default-chains.ts';
import { BIP32Factory } from 'bip32';
import * as bitcoin from 'bitcoinjs-lib';
import * as ecc from 'tiny-secp256k1';
import { startListener, type RunningListener } from '../../listener/app.ts';
import { manualClock } from '../../core/clock.ts';
import { loadConfig } from '../../listener/config.ts';
import { silentLogger, type Logger } from '../../core/log.ts';
import type { assembleBlock } from '../../sandbox/block-builder.ts';
import { LocalBtcChain } from '../../sandbox/local-btc-chain.ts';
import { startLocalChainServer, type LocalChainServer, type LocalChainServerOptions } from '../../sandbox/local-chain-server.ts';
import { postJson, tempSqliteUrl } from './listener.ts';

export type SourceKind = 'esplora' | 'bitcoin-core';
export const sourceKinds: SourceKind[] = ['esplora', 'bitcoin-core'];

/** A BIP-84 test-network account key (tpub) from a seed of 32 `seedByte`s: distinct keys for distinct merchants. */
export function testAccountKey(seedByte: number): string {
  return BIP32Factory(ecc).fromSeed(Buffer.alloc(32, seedByte), bitcoin.networks.testnet).derivePath("m/84'/1'/0'").neutered().toBase58();
}

/** A BIP-84 test-network account key (tpub) from a fixed seed, used on regtest. */
export const REGTEST_TPUB = testAccountKey(42);

/** The local regtest chain pays by script: a Cloud tpub's testnet (tb1) address locks the same script as its regtest twin. */
export function payeeOf(testnetAddress: string): { script: Uint8Array } {
  return { script: bitcoin.address.toOutputScript(testnetAddress, bitcoin.networks.testnet) };
}

export interface BtcWatchContext {
  chain: LocalBtcChain;
  server: LocalChainServer;
  clock: ReturnType<typeof manualClock>;
  listener: RunningListener;
  databaseUrl: string;
  /** Starts a listener again on the same database (after `listener.stop()`), with `env` over the settings. */
  restart(env?: Record<string, string>): Promise<void>;
  /** One full watcher pass, as the poll loop would run it. */
  sync(): Promise<void>;
  createInvoice(amountSats: number, expiresInS?: number): Promise<{ invoice_id: string; receive_address: string }>;
  invoice(id: string): Promise<{ status: string; tx_hash: string | null; paid_at: string | null; verification: string | null }>;
  events(type?: string): Promise<Array<Record<string, unknown>>>;
  close(): Promise<void>;
}

/**
 * A listener watching a local regtest chain through real HTTP, with the chain's block times and the
 * listener's clock on one manual clock so expiry is under the test's control.
 */
export async function startBtcWatchContext(
  kind: SourceKind,
  options: {
    pollIntervalMs?: number;
    logger?: Logger;
    databaseUrl?: string;
    fetch?: typeof fetch;
    env?: Record<string, string>;
    server?: LocalChainServerOptions;
    /** How the local chain builds its blocks (a test may fabricate some, as a lying source would serve them). */
    assemble?: typeof assembleBlock;
  } = {},
): Promise<BtcWatchContext> {
  const clock = manualClock(Date.UTC(2026, 0, 1));
  const chain = new LocalBtcChain({ now: clock.now, assemble: options.assemble });
  const server = await startLocalChainServer(chain, options.server);
  const databaseUrl = options.databaseUrl ?? tempSqliteUrl();
  const settings = {
    PORT: '0',
    DATABASE_URL: databaseUrl,
    MERCHANT_BTC_XPUB: REGTEST_TPUB,
    BTC_NETWORK: 'regtest',
    SERVICE_RATE_LIMIT: 'off',
    // The local chain is the test's own: a full scan unless a test asks for address-scoped watching.
    ...(kind === 'esplora' ? { BTC_ESPLORA_URL: server.esploraUrl, BTC_ESPLORA_SELF_HOSTED: 'true' } : { BTC_RPC_URL: server.rpcUrl }),
    ...options.env,
  };
  const start = (env: Record<string, string> = {}) =>
    // The manual clock fires no timers: the expiry sweeper looks every 200 ms instead of waiting for the nearest expiry.
    startListener(loadConfig({ ...settings, ...env }, defaultChains), { clock, logger: options.logger ?? silentLogger, tuning: { bitcoin: { pollIntervalMs: options.pollIntervalMs ?? 3_600_000 } }, fetch: options.fetch, expirySweepMs: 200 });

  // A listener that refuses to start leaves no chain server behind to hold the test file open.
  const listener = await start().catch(async (error: unknown) => {
    await server.close();
    throw error;
  });
  const context: BtcWatchContext = {
    chain,
    server,
    clock,
    listener,
    databaseUrl,
    async restart(env) {
      context.listener = await start(env);
    },
    sync: () => context.listener.watches.get('btc')!.syncOnce(),
    async createInvoice(amountSats, expiresInS) {
      const res = await postJson(`${context.listener.url}/invoice`, { amount_sats: amountSats, ...(expiresInS ? { expires_in: expiresInS } : {}) });
      if (res.status !== 201) throw new Error(`invoice creation failed: ${res.text}`);
      return res.json;
    },
    async invoice(id) {
      const res = await fetch(`${context.listener.url}/invoice/${id}`);
      return res.json();
    },
    async events(type) {
      const rows = await context.listener.database.db.selectFrom('events').selectAll().orderBy('seq').execute();
      return rows.filter((r) => !type || r.type === type).map((r) => JSON.parse(r.payload));
    },
    async close() {
      await context.listener.stop();
      await server.close();
    },
  };
  return context;
}
