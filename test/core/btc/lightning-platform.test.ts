import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { defaultChains } from '../../../core/chains/default-chains.ts';
import { systemClock } from '../../../core/clock.ts';
import { silentLogger } from '../../../core/log.ts';
import { createMemoryStatusFeed } from '../../../core/invoices/status-feed.ts';
import { noShopColumns } from '../../../core/invoices/invoice.tables.ts';
import { newInvoiceId } from '../../../core/invoices/invoice.service.ts';
import { openCoreDatabase, type CoreDatabase } from '../../../core/schema.ts';
import { createLightningPlatform } from '../../../core/btc/lightning/lightning-platform.ts';
import type { LightningPlatform, MerchantLightningConnection } from '../../../core/merchant-chain.ts';
import { startNostrRelay, type NostrRelay } from '../../../sandbox/nostr-relay.ts';
import { startLightningWallet, type LightningWalletSimulator } from '../../../sandbox/lightning-wallet.ts';
import { tempSqliteUrl } from '../../helpers/listener.ts';
import { waitForWatcher } from '../../helpers/wait-for-watcher.ts';

const MERCHANTS = 1_000;

describe(`${MERCHANTS} merchants' Lightning wallets on one instance`, () => {
  let relay: NostrRelay;
  let wallet: LightningWalletSimulator;
  let database: CoreDatabase;
  let platform: LightningPlatform;
  const connections: MerchantLightningConnection[] = [];

  before(async () => {
    relay = await startNostrRelay({ maxSubscriptionsPerConnection: 64 });
    wallet = await startLightningWallet({ relayUrls: [relay.url], network: 'regtest' });
    database = await openCoreDatabase(tempSqliteUrl(), defaultChains);
    for (let i = 0; i < MERCHANTS; i++) connections.push({ merchantId: `m${i}`, connection: wallet.connectionUri(), network: 'regtest' });
    platform = createLightningPlatform(
      { explorerUrls: { regtest: 'http://127.0.0.1:9/explorer' } },
      { db: database.db, feed: createMemoryStatusFeed(), clock: systemClock, logger: silentLogger, loopbackRelays: true, connections: async () => connections, refreshMs: 200 },
    );
    platform.start();
  });
  after(async () => {
    await platform?.stop();
    platform?.close();
    await database?.close();
    await wallet?.close();
    await relay?.close();
  });

  test('every merchant listens through one socket on the relay, in a bounded number of subscriptions; a payment to one merchant confirms its invoice only', async () => {
    const baseline = { connections: 1, subscriptions: 1 }; // the wallet's own link to the relay
    await waitForWatcher(
      'the platform subscribes for every merchant',
      () => ({ connections: relay.connectionCount(), subscriptions: relay.subscriptionCount() }),
      (seen) => seen.connections === baseline.connections + 1 && seen.subscriptions >= baseline.subscriptions + MERCHANTS / 100,
      { watcher: () => platform.problems() },
    );
    assert.equal(relay.connectionCount(), baseline.connections + 1, `one socket for ${MERCHANTS} merchants`);
    assert.ok(relay.subscriptionCount() <= baseline.subscriptions + MERCHANTS / 100 + 1, `at most ${MERCHANTS / 100} REQs of 100 wallets each (saw ${relay.subscriptionCount()})`);

    const pick = connections[777];
    const create = (m: MerchantLightningConnection) =>
      platform.receiver(null, m).receiver.create(
        { db: database.db, clock: systemClock, logger: silentLogger, merchantId: m.merchantId, newInvoiceId, shopColumns: noShopColumns },
        { amount_sats: 5_000 },
      );
    const mine = await create(pick);
    const other = await create(connections[778]);
    await wallet.settle((mine as { payment_hash: string }).payment_hash);
    const status = async (id: string, merchantId: string) =>
      (await database.db.selectFrom('invoices').select('status').where('merchant_id', '=', merchantId).where('invoice_id', '=', id).executeTakeFirstOrThrow()).status;
    await waitForWatcher('merchant 777’s invoice confirms', () => status(mine.invoice_id, pick.merchantId), (s) => s === 'confirmed', { watcher: () => platform.problems() });
    assert.equal(await status(other.invoice_id, connections[778].merchantId), 'pending');
  });

  test('a relay that sends garbage is cut off and named among the platform’s problems (the /health of the elected instance)', async () => {
    for (let i = 0; i < 30; i++) relay.broadcastRaw('{"not": "NIP-01"}');
    const problems = await waitForWatcher('the relay is cut off', () => platform.problems(), (list) => list.some((p) => /cut off/.test(p.reason)), { watcher: () => relay.connectionCount() });
    assert.ok(problems.every((p) => p.component === 'lightning'));
  });
});
