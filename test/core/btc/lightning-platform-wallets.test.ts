import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { defaultChains } from '../../../core/chains/default-chains.ts';
import type { Clock } from '../../../core/clock.ts';
import { ServiceError } from '../../../core/errors.ts';
import { silentLogger } from '../../../core/log.ts';
import { createMemoryStatusFeed } from '../../../core/invoices/status-feed.ts';
import { noShopColumns } from '../../../core/invoices/invoice.tables.ts';
import { newInvoiceId } from '../../../core/invoices/invoice.service.ts';
import { openCoreDatabase, type CoreDatabase } from '../../../core/schema.ts';
import { createLightningPlatform } from '../../../core/btc/lightning/lightning-platform.ts';
import type { LightningPlatform, MerchantLightningConnection } from '../../../core/merchant-chain.ts';
import { startNostrRelay, type NostrRelay } from '../../../sandbox/nostr-relay.ts';
import { startLightningWallet, type LightningWalletOptions, type LightningWalletSimulator } from '../../../sandbox/lightning-wallet.ts';
import { tempSqliteUrl } from '../../helpers/listener.ts';
import { waitForWatcher } from '../../helpers/wait-for-watcher.ts';

const RECEIVE_ONLY = ['get_info', 'make_invoice', 'lookup_invoice'];
const MAY_SPEND = [...RECEIVE_ONLY, 'pay_invoice'];
const HOUR_MS = 60 * 60_000;

/** Wall time moved forward by hand: the platform and the wallets see the same clock, so invoices' expiries agree. */
function offsetClock(): Clock & { advance(ms: number): void } {
  let offset = 0;
  return { now: () => Date.now() + offset, advance: (ms) => (offset += ms) };
}

describe("Cloud's Lightning platform and the merchants' wallets", () => {
  let relay: NostrRelay;
  let database: CoreDatabase;
  const wallets: LightningWalletSimulator[] = [];
  const platforms: LightningPlatform[] = [];

  before(async () => {
    relay = await startNostrRelay();
    database = await openCoreDatabase(tempSqliteUrl(), defaultChains);
  });
  after(async () => {
    for (const platform of platforms) await platform.stop(), platform.close();
    await database?.close();
    for (const wallet of wallets) await wallet.close();
    await relay?.close();
  });

  async function wallet(options: Partial<LightningWalletOptions> = {}) {
    const started = await startLightningWallet({ relayUrls: [relay.url], network: 'regtest', ...options });
    wallets.push(started);
    return started;
  }
  function platformOf(connections: MerchantLightningConnection[], clock: Clock, lookupsPerPass = 50) {
    const platform = createLightningPlatform(
      { explorerUrls: { regtest: 'http://127.0.0.1:9/explorer' }, lookupsPerPass },
      { db: database.db, feed: createMemoryStatusFeed(), clock, logger: silentLogger, loopbackRelays: true, connections: async () => connections, refreshMs: 100 },
    );
    platforms.push(platform);
    return platform;
  }
  const lightningOnly = (platform: LightningPlatform, merchant: MerchantLightningConnection, clock: Clock) =>
    platform
      .receiver(null, merchant)
      .receiver.create({ db: database.db, clock, logger: silentLogger, merchantId: merchant.merchantId, newInvoiceId, shopColumns: noShopColumns }, { amount_sats: 2_000 }) as Promise<{
      invoice_id: string;
      payment_hash: string;
      lightning_invoice: string;
    }>;
  const status = async (merchantId: string, invoiceId: string) =>
    (await database.db.selectFrom('invoices').select('status').where('merchant_id', '=', merchantId).where('invoice_id', '=', invoiceId).executeTakeFirstOrThrow()).status;

  test('a saved connection is asked again before it is used in a new process and every hour: one that came to allow spending gets no invoice made, until it is receive-only again', async () => {
    const clock = offsetClock();
    const widened = await wallet({ clock, methods: RECEIVE_ONLY });
    const spendingFromTheStart = await wallet({ clock, methods: MAY_SPEND });
    const merchant = { merchantId: 'recheck', connection: widened.connectionUri(), network: 'regtest' };
    const spender = { merchantId: 'spender', connection: spendingFromTheStart.connectionUri(), network: 'regtest' };
    const platform = platformOf([merchant, spender], clock);

    await assert.rejects(lightningOnly(platform, spender, clock), (error: ServiceError) => error.code === 'lightning_unavailable');
    assert.equal(spendingFromTheStart.requestCount('get_info'), 1, 'the connection saved earlier was asked get_info before its first invoice in this process');
    assert.equal(spendingFromTheStart.requestCount('make_invoice'), 0, 'a connection that may spend is never asked for an invoice');

    assert.match((await lightningOnly(platform, merchant, clock)).lightning_invoice, /^lnbcrt/);
    assert.equal(widened.requestCount('get_info'), 1);
    widened.allow(MAY_SPEND);
    assert.match((await lightningOnly(platform, merchant, clock)).lightning_invoice, /^lnbcrt/, 'within the hour the check stands');
    assert.equal(widened.requestCount('get_info'), 1, 'no get_info per invoice');

    clock.advance(HOUR_MS + 1);
    await assert.rejects(
      lightningOnly(platform, merchant, clock),
      (error: ServiceError) => error.code === 'lightning_unavailable' && /lets this connection spend \(pay_invoice\)/.test(error.message),
      'an hour on, the widened connection is refused, the answer saying why',
    );
    assert.equal(widened.requestCount('make_invoice'), 2, 'and asked for no invoice');
    widened.allow(RECEIVE_ONLY);
    await assert.rejects(lightningOnly(platform, merchant, clock), (error: ServiceError) => error.code === 'lightning_unavailable', 'the refusal stands for a while');
    assert.equal(widened.requestCount('get_info'), 2);

    clock.advance(5 * 60_000 + 1);
    assert.match((await lightningOnly(platform, merchant, clock)).lightning_invoice, /^lnbcrt/, 'receive-only again: invoices again');
    assert.equal(widened.requestCount('make_invoice'), 3);
  });

  test("a merchant with many open invoices on a silent wallet holds up no other merchant's lookups", async () => {
    const clock = offsetClock();
    const quiet = await wallet({ clock, notifications: false });
    const silent = await wallet({ clock });
    const late = { merchantId: 'late', connection: quiet.connectionUri(), network: 'regtest' };
    const stalled = { merchantId: 'a-stalled', connection: silent.connectionUri(), network: 'regtest' };
    const connections: MerchantLightningConnection[] = [];
    const platform = platformOf(connections, clock, 16);

    const paid = await lightningOnly(platform, late, clock);
    // Newer than the paid one and first in the merchants' order: a pass that took them one by one would wait on each.
    for (let i = 0; i < 8; i++) await lightningOnly(platform, stalled, clock);
    silent.misbehave({ silent: true });
    await quiet.settle(paid.payment_hash);
    connections.push(stalled, late);
    platform.start();

    await waitForWatcher('the lookup confirms the invoice whose notification never came', () => status('late', paid.invoice_id), (s) => s === 'confirmed', {
      watcher: () => ({ silentLookups: silent.requestCount('lookup_invoice'), quietLookups: quiet.requestCount('lookup_invoice') }),
    });
    assert.ok(silent.requestCount('lookup_invoice') <= 1, `the silent wallet held one lane for one lookup, not the pass (it was asked ${silent.requestCount('lookup_invoice')} times)`);
  });
});
