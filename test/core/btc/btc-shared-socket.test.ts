import { defaultChains } from '../../../core/chains/default-chains.ts';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { randomBytes } from 'node:crypto';
import * as bitcoin from 'bitcoinjs-lib';
import * as ecc from 'tiny-secp256k1';
import { createEsploraSource } from '../../../core/btc/esplora-source.ts';
import { createMempoolSocket } from '../../../core/btc/mempool-socket.ts';
import { createSharedChainSource } from '../../../core/btc/shared-chain-source.ts';
import { createBtcWatcher, type BtcWatcher } from '../../../core/btc/watcher.ts';
import { merchantScope } from '../../../core/btc/btc-payment.repository.ts';
import { manualClock } from '../../../core/clock.ts';
import { openCoreDatabase, type CoreDatabase } from '../../../core/schema.ts';
import { insertInvoice } from '../../../core/invoices/invoice.repository.ts';
import { silentLogger } from '../../../core/log.ts';
import { LocalBtcChain } from '../../../sandbox/local-btc-chain.ts';
import { startLocalChainServer, type LocalChainServer } from '../../../sandbox/local-chain-server.ts';
import { tempSqliteUrl } from '../../helpers/listener.ts';
import { createMemoryStatusFeed } from '../../../core/invoices/status-feed.ts';

/**
 * Cloud's arrangement without Cloud: several merchants' watchers on one shared source and one
 * mempool.space socket (cloud/chain-watchers.ts wires the same parts). The local chain is
 * regtest, whose addresses Cloud's testnet keys cannot have, so the merchants' invoices are written
 * directly with regtest addresses.
 */
async function setup(maxTrackedAddresses: number) {
  const clock = manualClock(Date.UTC(2026, 0, 1));
  const chain = new LocalBtcChain({ now: clock.now });
  const server: LocalChainServer = await startLocalChainServer(chain, { maxTrackedAddresses });
  const database: CoreDatabase = await openCoreDatabase(tempSqliteUrl(), defaultChains);
  const esplora = createEsploraSource({ baseUrl: server.esploraUrl, fetch });
  const source = createSharedChainSource(esplora, { clock });
  const socket = createMempoolSocket({ url: server.websocketUrl, clock, logger: silentLogger, maxConnections: 1 });
  const watchers = new Map<string, BtcWatcher>();
  let created = 0;

  return {
    chain,
    server,
    clock,
    database,
    async invoice(merchantId: string, amountSats: number) {
      const address = bitcoin.payments.p2wpkh({ pubkey: ecc.pointFromScalar(randomBytes(32), true)!, network: chain.network }).address!;
      const invoiceId = `inv_${merchantId}_${++created}`;
      const now = clock.now() + created; // distinct creation times: newest first is well defined
      await insertInvoice(database.db, {
        invoice_id: invoiceId, merchant_id: merchantId, chain: 'btc', asset: 'BTC', network: 'regtest', receive_address: address,
        child_index: created, derivation_path: null, key_id: 'k', amount_sats: amountSats, amount_units: null, memo: null,
        status: 'pending', tx_hash: null, paid_at: null, verification: null, expires_at: now + 3_600_000, created_at: now, updated_at: now,
        token_address: null, nonce: null, amount_usd: null, address_duplicate_of: null, order_id: null, metadata: null, redirect_url: null, price_amount: null, price_currency: null, rate: null, rate_sources: null, rate_at: null,
      });
      return { invoiceId, address };
    },
    watch(merchantId: string) {
      const watcher = createBtcWatcher({
        feed: createMemoryStatusFeed(),
        db: database.db, scope: merchantScope(merchantId), keyId: 'k', clock, logger: silentLogger, pollIntervalMs: 3_600_000,
        source, mode: 'address', addresses: esplora, socket,
      });
      watcher.start();
      watchers.set(merchantId, watcher);
      return watcher;
    },
    status: (invoiceId: string) =>
      database.db.selectFrom('invoices').select('status').where('invoice_id', '=', invoiceId).executeTakeFirstOrThrow().then((r) => r.status),
    payments: (invoiceId: string) => database.db.selectFrom('btc_payments').selectAll().where('invoice_id', '=', invoiceId).execute(),
    async until(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (!(await check())) {
        if (Date.now() > deadline) {
          const states = Object.fromEntries([...watchers].map(([id, w]) => [id, w.status()]));
          assert.fail(`timed out waiting until ${what}; socket clients ${server.socket.clientCount}; watchers ${JSON.stringify(states)}`);
        }
        await sleep(20);
      }
    },
    async close() {
      await Promise.all([...watchers.values()].map((w) => w.stop()));
      socket.close();
      await database.close();
      await server.close();
    },
  };
}

test('merchants on one source share one socket: each payment pushed to its own watcher, confirmed from the block', async () => {
  const s = await setup(100);
  try {
    const a = await s.invoice('shop-a', 20_000);
    const b = await s.invoice('shop-b', 30_000);
    const watchers = [s.watch('shop-a'), s.watch('shop-b')];
    await Promise.all(watchers.map((w) => w.syncOnce()));
    await s.until('both addresses tracked', () => watchers.every((w) => w.status().ws_connected && w.status().btc_watch.ws_tracked === 1));
    assert.equal(s.server.socket.clientCount, 1, 'one connection for both merchants');
    await Promise.all(watchers.map((w) => w.syncOnce()));

    const txid = s.chain.pay([
      { address: a.address, value: 20_000n },
      { address: b.address, value: 30_000n },
    ]);
    await s.until('both payments pushed', async () => (await s.payments(a.invoiceId)).length === 1 && (await s.payments(b.invoiceId)).length === 1);
    s.chain.mine(1);
    await s.until('both confirmed', async () => (await s.status(a.invoiceId)) === 'confirmed' && (await s.status(b.invoiceId)) === 'confirmed');
    for (const invoice of [a, b]) assert.deepEqual((await s.payments(invoice.invoiceId)).map((r) => [r.txid, r.status]), [[txid, 'block']]);

    await watchers[0].stop();
    assert.equal(s.server.socket.clientCount, 1, 'still open for the other merchant');
    await watchers[1].stop();
    await s.until('the socket closed with its last watcher', () => s.server.socket.clientCount === 0);
  } finally {
    await s.close();
  }
});

test('at the tracked-address limit the merchants take turns: one shop with many invoices does not crowd out another', async () => {
  const s = await setup(2);
  try {
    const busy = [await s.invoice('busy', 10_000), await s.invoice('busy', 10_000), await s.invoice('busy', 10_000)];
    const quiet = await s.invoice('quiet', 10_000);
    const watchers = [s.watch('busy'), s.watch('quiet')];
    await Promise.all(watchers.map((w) => w.syncOnce()));
    await s.until('two addresses tracked', () => watchers.every((w) => w.status().ws_connected) && watchers[0].status().btc_watch.ws_tracked === 1 && watchers[1].status().btc_watch.ws_tracked === 1);
    await Promise.all(watchers.map((w) => w.syncOnce()));
    // The quiet shop's only invoice and the busy shop's newest are pushed.
    s.chain.pay([{ address: quiet.address, value: 10_000n }]);
    s.chain.pay([{ address: busy[2].address, value: 10_000n }]);
    await s.until('both pushed', async () => (await s.payments(quiet.invoiceId)).length === 1 && (await s.payments(busy[2].invoiceId)).length === 1);
  } finally {
    await s.close();
  }
});
