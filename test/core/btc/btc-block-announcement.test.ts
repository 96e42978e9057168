import { defaultChains } from '../../../core/chains/default-chains.ts';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { randomBytes } from 'node:crypto';
import * as bitcoin from 'bitcoinjs-lib';
import * as ecc from 'tiny-secp256k1';
import type { ChainSource } from '../../../core/btc/chain-source.ts';
import { createEsploraSource } from '../../../core/btc/esplora-source.ts';
import { createMempoolSocket, type MempoolSocket } from '../../../core/btc/mempool-socket.ts';
import { createBtcWatcher, type BtcWatcher } from '../../../core/btc/watcher.ts';
import { merchantScope } from '../../../core/btc/btc-payment.repository.ts';
import { manualClock } from '../../../core/clock.ts';
import { openCoreDatabase } from '../../../core/schema.ts';
import { insertInvoice } from '../../../core/invoices/invoice.repository.ts';
import { createMemoryStatusFeed } from '../../../core/invoices/status-feed.ts';
import { silentLogger } from '../../../core/log.ts';
import { LocalBtcChain } from '../../../sandbox/local-btc-chain.ts';
import { startLocalChainServer } from '../../../sandbox/local-chain-server.ts';
import { tempSqliteUrl } from '../../helpers/listener.ts';

/** Waits on state; a timeout prints the watcher's status (socket, tip seen, step under way). */
async function until(what: string, check: () => Promise<boolean> | boolean, watcher: BtcWatcher | null, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting until ${what}; watcher: ${JSON.stringify(watcher?.status() ?? null)}`);
    await sleep(20);
  }
}

/** The heights of the socket's block announcements from now on (null: none said), as they come. */
function announcements(socket: MempoolSocket): Array<number | null> {
  const heights: Array<number | null> = [];
  socket.subscribe({ onBlock: (height) => heights.push(height), onTransactions() {}, onSubscribed() {} });
  return heights;
}

test('a reconnection announced while a tip read is under way: the block mined while the socket was down is read at the next pass, not at the next tip check', async () => {
  // The clock never moves, so the periodic tip check (socketTipCheckMs) never comes due, and the
  // poll is an hour: only the announcement can get the block read. The server answers `want`
  // with no blocks (a mempool instance still loading them), so the reconnection names no height.
  const clock = manualClock(Date.UTC(2026, 0, 1));
  const chain = new LocalBtcChain({ now: clock.now });
  const server = await startLocalChainServer(chain, { initialBlocks: 0 });
  const database = await openCoreDatabase(tempSqliteUrl(), defaultChains);
  const esplora = createEsploraSource({ baseUrl: server.esploraUrl, fetch });
  let duringTipRead: (() => Promise<void>) | null = null;
  const source: ChainSource = {
    ...esplora,
    async tipHash() {
      const hash = await esplora.tipHash();
      const during = duringTipRead;
      duringTipRead = null;
      await during?.();
      return hash;
    },
  };
  const socket = createMempoolSocket({ url: server.websocketUrl, clock, logger: silentLogger, maxConnections: 1 });
  const watcher = createBtcWatcher({
    feed: createMemoryStatusFeed(), db: database.db, scope: merchantScope('shop'), keyId: 'k', clock, logger: silentLogger,
    pollIntervalMs: 3_600_000, source, mode: 'address', addresses: esplora, socket,
  });
  try {
    const address = bitcoin.payments.p2wpkh({ pubkey: ecc.pointFromScalar(randomBytes(32), true)!, network: chain.network }).address!;
    const now = clock.now();
    await insertInvoice(database.db, {
      invoice_id: 'inv_1', merchant_id: 'shop', chain: 'btc', asset: 'BTC', network: 'regtest', receive_address: address,
      child_index: 0, derivation_path: null, key_id: 'k', amount_sats: 25_000, amount_units: null, memo: null,
      status: 'pending', tx_hash: null, paid_at: null, verification: null, expires_at: now + 3_600_000, created_at: now, updated_at: now,
      token_address: null, nonce: null, amount_usd: null, address_duplicate_of: null, order_id: null, metadata: null, redirect_url: null, price_amount: null, price_currency: null, rate: null, rate_sources: null, rate_at: null,
    });
    const status = () => database.db.selectFrom('invoices').select('status').where('invoice_id', '=', 'inv_1').executeTakeFirstOrThrow().then((r) => r.status);
    const idle = () => watcher.status().btc_progress.step === 'waiting for the next poll';
    watcher.start();
    const announced = announcements(socket);
    await until('the socket is up and the tip read', () => watcher.status().ws_connected && watcher.status().last_block_height === chain.tip.height && idle(), watcher);

    server.refuseSockets(true);
    await until('the drop to show', () => !watcher.status().ws_connected, watcher);
    // The pass reads the tip (unchanged); before that answer reaches the watcher, the invoice is
    // paid in a block (nothing pushes it: the socket is down) and the socket comes back: it
    // announces the connection and the server's answer to `want`, neither with a height.
    duringTipRead = async () => {
      chain.pay([{ address, value: 25_000n }]);
      chain.mine(1);
      const before = announced.length;
      server.refuseSockets(false);
      await until('the reconnection and the answer to want are announced', () => announced.length === before + 2, watcher);
      assert.deepEqual(announced.slice(before), [null, null]);
    };
    await watcher.syncOnce();
    assert.equal(duringTipRead, null, 'the pass read the tip');

    await until(`block ${chain.tip.height} is read and the invoice confirmed`, async () => watcher.status().last_block_height === chain.tip.height && (await status()) === 'confirmed', watcher);
  } finally {
    await watcher.stop();
    socket.close();
    await database.close();
    await server.close();
  }
});

test("the answer to `want` announces the server's tip: a block mined before the server took the request is not missed", async () => {
  const clock = manualClock(Date.UTC(2026, 0, 1));
  const chain = new LocalBtcChain({ now: clock.now });
  const server = await startLocalChainServer(chain);
  const socket = createMempoolSocket({ url: server.websocketUrl, clock, logger: silentLogger, maxConnections: 1 });
  try {
    const heights = announcements(socket);
    await until('the connection and the answer to want', () => heights.includes(chain.tip.height), null);
    assert.deepEqual(heights, [null, chain.tip.height], 'connected (no height), then the tip the server had');
    chain.mine(1);
    await until('the pushed block', () => heights.length === 3, null);
    assert.equal(heights[2], chain.tip.height);
  } finally {
    socket.close();
    await server.close();
  }
});
