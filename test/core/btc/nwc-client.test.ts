import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import bolt11 from 'bolt11';
import { systemClock } from '../../../core/clock.ts';
import { silentLogger } from '../../../core/log.ts';
import { createNwcClient, type NwcNotification } from '../../../core/btc/lightning/nwc-client.ts';
import { parseNwcConnection } from '../../../core/btc/lightning/nwc-connection.ts';
import { createRelayPool, type RelayPool } from '../../../core/btc/lightning/relay-pool.ts';
import { startNostrRelay, type NostrRelay } from '../../../sandbox/nostr-relay.ts';
import { startLightningWallet, type LightningWalletSimulator } from '../../../sandbox/lightning-wallet.ts';
import { waitForWatcher } from '../../helpers/wait-for-watcher.ts';

const REGTEST_BOLT11 = { bech32: 'bcrt', pubKeyHash: 0x6f, scriptHash: 0xc4, validWitnessVersions: [0, 1] };
const connectionOf = (uri: string) => parseNwcConnection(uri, { loopbackRelays: true });

describe('the NWC client over the shared relay pool', () => {
  let relay: NostrRelay;
  let pool: RelayPool;
  before(async () => {
    relay = await startNostrRelay({ verifySignatures: false });
    pool = createRelayPool({ clock: systemClock, logger: silentLogger, retry: { baseMs: 50, maxMs: 200 }, limits: { garbagePerMinute: 5 } });
  });
  after(async () => {
    pool?.close();
    await relay?.close();
  });

  for (const encryption of ['nip44', 'nip04'] as const) {
    test(`a ${encryption} wallet: the encryption its info event offers, an invoice, a notification`, async () => {
      const wallet = await startLightningWallet({ relayUrls: [relay.url], network: 'regtest', encryption });
      const client = createNwcClient(connectionOf(wallet.connectionUri()), { pool, clock: systemClock });
      try {
        const info = await client.walletInfo();
        assert.equal(info.encryption, encryption);
        assert.ok(info.methods.includes('make_invoice'));
        const made = await client.makeInvoice({ amountMsat: 21_000, description: 'coffee', expirySeconds: 600 });
        assert.equal(bolt11.decode(made.invoice!, REGTEST_BOLT11).millisatoshis, '21000');
        const heard: NwcNotification[] = [];
        client.onNotification((n) => heard.push(n));
        const settled = await wallet.settle(made.payment_hash);
        const [first] = await waitForWatcher('the payment_received notification', () => heard, (list) => list.length > 0, { watcher: () => pool.health() });
        assert.equal(first.notification.preimage, settled.preimage);
        const looked = await client.lookupInvoice(made.payment_hash);
        assert.equal(looked?.preimage, settled.preimage);
        assert.equal(await client.lookupInvoice('00'.repeat(32)), null, 'NOT_FOUND is no invoice, not an error');
      } finally {
        client.close();
        await wallet.close();
      }
    });
  }

  test('a notification whose signature does not check never reaches the client (the relay here forwards anything)', async () => {
    const wallet = await startLightningWallet({ relayUrls: [relay.url], network: 'regtest' });
    const client = createNwcClient(connectionOf(wallet.connectionUri()), { pool, clock: systemClock });
    try {
      const made = await client.makeInvoice({ amountMsat: 5_000, description: null, expirySeconds: 600 });
      const heard: NwcNotification[] = [];
      client.onNotification((n) => heard.push(n));
      wallet.misbehave({ unsignedNotifications: true });
      await wallet.settle(made.payment_hash);
      // A signed one after it: once it arrives, the unsigned one before it has been dropped, not delayed.
      wallet.misbehave({ unsignedNotifications: false });
      const second = await client.makeInvoice({ amountMsat: 6_000, description: null, expirySeconds: 600 });
      await wallet.settle(second.payment_hash);
      await waitForWatcher('the signed notification', () => heard, (list) => list.length > 0, { watcher: () => pool.health() });
      assert.deepEqual(heard.map((n) => n.notification.payment_hash), [second.payment_hash], 'only the signed notification');
    } finally {
      client.close();
      await wallet.close();
    }
  });

  test('a relay that sends garbage is cut off, named on health, and reconnected later; a silent wallet times out', async () => {
    const wallet = await startLightningWallet({ relayUrls: [relay.url], network: 'regtest' });
    const client = createNwcClient(connectionOf(wallet.connectionUri()), { pool, clock: systemClock, requestTimeoutMs: 1_000 });
    try {
      await client.walletInfo();
      for (let i = 0; i < 10; i++) relay.broadcastRaw('this is not NIP-01');
      const cut = await waitForWatcher('the relay is cut off', () => pool.health().find((h) => h.relay === relay.url)!, (h) => h.cut_offs > 0, { watcher: () => pool.health() });
      assert.ok(cut.cut_offs >= 1);
      await waitForWatcher('the relay is reconnected', () => pool.health().find((h) => h.relay === relay.url)!, (h) => h.connected, { watcher: () => pool.health() });
      wallet.misbehave({ silent: true });
      await assert.rejects(client.makeInvoice({ amountMsat: 1_000, description: null, expirySeconds: 60 }), /did not answer/);
    } finally {
      client.close();
      await wallet.close();
    }
  });

  test('a connection listing a dead relay first: requests and notifications go through the live one, without waiting on the dead', async () => {
    const wallet = await startLightningWallet({ relayUrls: [relay.url], network: 'regtest' });
    const uri = new URL(wallet.connectionUri().replace('nostr+walletconnect://', 'http://'));
    const relays = ['ws://127.0.0.1:9', relay.url].map((r) => `relay=${encodeURIComponent(r)}`).join('&');
    const withDead = `nostr+walletconnect://${uri.hostname}?${relays}&secret=${uri.searchParams.get('secret')}`;
    const client = createNwcClient(connectionOf(withDead), { pool, clock: systemClock, requestTimeoutMs: 3_000 });
    try {
      const made = await client.makeInvoice({ amountMsat: 7_000, description: null, expirySeconds: 600 });
      const heard: NwcNotification[] = [];
      client.onNotification((n) => heard.push(n));
      const settled = await wallet.settle(made.payment_hash);
      const [first] = await waitForWatcher('the notification through the live relay', () => heard, (list) => list.length > 0, { watcher: () => pool.health() });
      assert.equal(first.notification.preimage, settled.preimage);
      assert.ok(pool.health().some((h) => h.relay === 'ws://127.0.0.1:9' && !h.connected), 'the dead relay is named, not waited on');
    } finally {
      client.close();
      await wallet.close();
    }
  });
});
