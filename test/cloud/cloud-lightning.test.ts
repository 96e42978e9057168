import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import bolt11 from 'bolt11';
import { Account, BtcInvoice, BtcInvoiceCreated, ErrorEnvelope, InvoiceConfirmedEvent, LightningSettingResponse } from '../../shared/index.ts';
import type { RunningCloud } from '../../cloud/cloud-app.ts';
import { LocalBtcChain } from '../../sandbox/local-btc-chain.ts';
import { startLocalChainServer, type LocalChainServer } from '../../sandbox/local-chain-server.ts';
import { startNostrRelay, type NostrRelay } from '../../sandbox/nostr-relay.ts';
import { startLightningWallet, type LightningWalletSimulator } from '../../sandbox/lightning-wallet.ts';
import { payeeOf, testAccountKey } from '../helpers/btc-chain.ts';
import { getJson, signupMerchant, startTestCloud } from '../helpers/cloud.ts';
import { open, signIn } from '../helpers/dashboard.ts';
import { testDatabases } from '../helpers/databases.ts';
import { postJson } from '../helpers/listener.ts';
import { waitForWatcher } from '../helpers/wait-for-watcher.ts';

const REGTEST_BOLT11 = { bech32: 'bcrt', pubKeyHash: 0x6f, scriptHash: 0xc4, validWitnessVersions: [0, 1] };
const sha256 = (hex: string) => createHash('sha256').update(Buffer.from(hex, 'hex')).digest('hex');

for (const database of testDatabases) {
  describe(`Lightning on Cloud, each merchant through its own wallet (${database.name})`, { skip: database.skip }, () => {
    let relay: NostrRelay;
    let wallet: LightningWalletSimulator;
    let chain: LocalBtcChain;
    let chainServer: LocalChainServer;
    let cloud: RunningCloud;
    let drop: (() => Promise<void>) | null = null;

    before(async () => {
      relay = await startNostrRelay();
      wallet = await startLightningWallet({ relayUrls: [relay.url], network: 'regtest' });
      chain = new LocalBtcChain();
      chainServer = await startLocalChainServer(chain);
      const store = await database.create();
      drop = store.drop;
      cloud = await startTestCloud({
        env: {
          DATABASE_URL: store.url,
          BTC_ESPLORA_URL: chainServer.esploraUrl,
          BTC_ESPLORA_NETWORK: 'regtest',
          // Every block scanned, so a payment to an address whose invoice is complete is seen (and reported apart).
          BTC_ESPLORA_SELF_HOSTED: 'true',
          CLOUD_WATCH: 'true',
          CLOUD_SIGNUP_RATE_LIMIT: 'off',
        },
        deps: { leaderRetryMs: 100, chainWatch: { tuning: { bitcoin: { pollIntervalMs: 100 } }, refreshMs: 100 } },
      });
      await waitForWatcher('the instance leads', async () => cloud.isLeader(), Boolean, { watcher: () => cloud.watcherStates() });
    });
    after(async () => {
      await cloud?.stop();
      await chainServer?.close();
      await wallet?.close();
      await relay?.close();
      await drop?.();
    });

    const until = (what: string, check: () => Promise<boolean>) =>
      waitForWatcher(what, check, Boolean, { watcher: async () => ({ leader: cloud.isLeader(), watchers: cloud.watcherStates(), health: (await getJson(`${cloud.url}/api/v1/health`)).json }) });

    test('sign-up with a Bitcoin key and a receive-only connection: invoices carry a BOLT11; paid over Lightning, confirmed with the preimage; the secret is never returned', async () => {
      const uri = wallet.connectionUri();
      const merchant = await signupMerchant(cloud.url, { btc_xpub: testAccountKey(21), lightning_nwc_url: uri });
      const key = { 'X-Service-Api-Key': merchant.api_key };
      const me = await getJson(`${cloud.url}/api/v1/me`, key);
      const account = Account.parse(me.json);
      assert.equal(account.lightning?.network, 'regtest');
      assert.equal(account.lightning?.relays[0], relay.url);
      assert.ok(account.enabled_assets.includes('btc-lightning'));
      const secret = new URL(uri.replace('nostr+walletconnect://', 'http://')).searchParams.get('secret')!;
      assert.ok(!me.text.includes(secret), 'the connection secret is never in an answer');

      const created = await postJson(`${cloud.url}/api/v1/invoice`, { amount_sats: 12_000 }, key);
      assert.equal(created.status, 201, created.text);
      const invoice = BtcInvoiceCreated.parse(created.json);
      assert.match(invoice.receive_address, /^tb1/, 'an on-chain address of the merchant key (a test key: its testnet address, on the local chain)');
      assert.equal(bolt11.decode(invoice.lightning_invoice!, REGTEST_BOLT11).millisatoshis, '12000000');

      const settled = await wallet.settle(invoice.lightning_invoice!);
      await until('the invoice confirms over Lightning', async () => (await getJson(`${cloud.url}/api/v1/invoice/${invoice.invoice_id}`, key)).json.status === 'confirmed');
      const stored = BtcInvoice.parse((await getJson(`${cloud.url}/api/v1/invoice/${invoice.invoice_id}`, key)).json);
      assert.equal(stored.verification, 'own-wallet');
      assert.equal(stored.payment_method, 'lightning');
      const rows = await cloud.database.db.selectFrom('events').selectAll().where('merchant_id', '=', merchant.merchant_id).execute();
      const confirmed = rows.map((row) => JSON.parse(row.payload)).filter((e) => e.event === 'invoice.confirmed').map((e) => InvoiceConfirmedEvent.parse(e));
      assert.equal(confirmed.length, 1);
      assert.equal(confirmed[0].preimage, settled.preimage);
      assert.equal(sha256(confirmed[0].preimage!), invoice.payment_hash);

      // Paid on-chain afterwards too: an orphan, never a second confirmation.
      chain.pay([{ ...payeeOf(invoice.receive_address), value: 12_000n }]);
      chain.mine(6);
      await until('the late on-chain payment is reported as an orphan', async () => {
        const events = await cloud.database.db.selectFrom('events').selectAll().where('merchant_id', '=', merchant.merchant_id).execute();
        return events.some((row) => JSON.parse(row.payload).event === 'payment.orphan');
      });
      const again = await cloud.database.db.selectFrom('events').selectAll().where('merchant_id', '=', merchant.merchant_id).execute();
      assert.equal(again.filter((row) => JSON.parse(row.payload).event === 'invoice.confirmed').length, 1);
    });

    test('a wallet that stops answering: invoices go out on-chain only, and GET /api/v1/me and the dashboard say why and since when, until it answers again', async () => {
      const own = await startLightningWallet({ relayUrls: [relay.url], network: 'regtest' });
      try {
        const merchant = await signupMerchant(cloud.url, { btc_xpub: testAccountKey(23), lightning_nwc_url: own.connectionUri() });
        const key = { 'X-Service-Api-Key': merchant.api_key };
        const connection = async () => Account.parse((await getJson(`${cloud.url}/api/v1/me`, key)).json).lightning!;
        const create = async () => BtcInvoiceCreated.parse((await postJson(`${cloud.url}/api/v1/invoice`, { amount_sats: 3_000 }, key)).json);
        assert.equal((await connection()).problem ?? null, null, 'a connection just checked has no problem');

        own.misbehave({ silent: true });
        const before = Date.now();
        assert.equal((await create()).lightning_invoice ?? null, null, 'the silent wallet gives an on-chain-only invoice');
        const { problem } = await connection();
        assert.match(problem?.reason ?? '', /gave no usable invoice/);
        assert.ok(Date.parse(problem!.since) >= before - 1_000, `since ${problem!.since}`);
        const page = await open(cloud.url, '/dashboard/lightning', await signIn(cloud.url, merchant.api_key));
        assert.match(await page.text(), /id="lightning-problem">Since .* UTC, Bitcoin invoices go out on-chain only: the Lightning wallet gave no usable invoice/);

        own.misbehave({ silent: false });
        assert.match((await create()).lightning_invoice ?? '', /^lnbcrt/);
        assert.equal((await connection()).problem, null, 'an invoice issued again clears it');
      } finally {
        await own.close();
      }
    });

    test('a Lightning-only merchant (no Bitcoin key) gets Lightning-only invoices', async () => {
      const merchant = await signupMerchant(cloud.url, { lightning_nwc_url: wallet.connectionUri() });
      const key = { 'X-Service-Api-Key': merchant.api_key };
      const invoice = BtcInvoiceCreated.parse((await postJson(`${cloud.url}/api/v1/invoice`, { amount_sats: 2_000 }, key)).json);
      assert.equal(invoice.receive_address, invoice.lightning_invoice);
      assert.equal(invoice.child_index, null);
      await wallet.settle(invoice.payment_hash!);
      await until('the Lightning-only invoice confirms', async () => (await getJson(`${cloud.url}/api/v1/invoice/${invoice.invoice_id}`, key)).json.status === 'confirmed');
    });

    test('saving a connection: one that may spend is refused naming what to change; a bad URI is refused; null removes it', async () => {
      const merchant = await signupMerchant(cloud.url, { btc_xpub: testAccountKey(22) });
      const key = { 'X-Service-Api-Key': merchant.api_key };
      const spender = await startLightningWallet({ relayUrls: [relay.url], network: 'regtest', methods: ['get_info', 'make_invoice', 'lookup_invoice', 'pay_invoice'] });
      try {
        const refused = await postJson(`${cloud.url}/api/v1/lightning`, { nwc_url: spender.connectionUri() }, key);
        assert.equal(refused.status, 400, refused.text);
        const { error } = ErrorEnvelope.parse(refused.json);
        assert.equal(error.code, 'invalid_lightning_connection');
        assert.match(error.message, /pay_invoice/);
        assert.match(error.message, /receive-only/);
      } finally {
        await spender.close();
      }
      const plain = await postJson(`${cloud.url}/api/v1/lightning`, { nwc_url: 'nostr+walletconnect://abc?relay=ws://relay.example.com&secret=00' }, key);
      assert.equal(ErrorEnvelope.parse(plain.json).error.code, 'invalid_lightning_connection');
      const internal = await postJson(`${cloud.url}/api/v1/lightning`, { nwc_url: `nostr+walletconnect://${'ab'.repeat(32)}?relay=wss%3A%2F%2F10.0.0.5&secret=${'cd'.repeat(32)}` }, key);
      assert.equal(ErrorEnvelope.parse(internal.json).error.code, 'invalid_lightning_connection');
      assert.match(ErrorEnvelope.parse(internal.json).error.message, /public addresses/, 'the service never connects to a relay on a private network');
      const unknownField = await postJson(`${cloud.url}/api/v1/lightning`, { nwc_url: null, extra: 1 }, key);
      assert.equal(ErrorEnvelope.parse(unknownField.json).error.code, 'bad_body');
      assert.equal(Account.parse((await getJson(`${cloud.url}/api/v1/me`, key)).json).lightning, null, 'nothing saved');

      const saved = await postJson(`${cloud.url}/api/v1/lightning`, { nwc_url: wallet.connectionUri() }, key);
      assert.equal(saved.status, 200, saved.text);
      assert.equal(LightningSettingResponse.parse(saved.json).lightning?.network, 'regtest');
      const withLightning = BtcInvoiceCreated.parse((await postJson(`${cloud.url}/api/v1/invoice`, { amount_sats: 3_000 }, key)).json);
      assert.ok(withLightning.lightning_invoice);
      const removed = await postJson(`${cloud.url}/api/v1/lightning`, { nwc_url: null }, key);
      assert.equal(LightningSettingResponse.parse(removed.json).lightning, null);
      const without = BtcInvoiceCreated.parse((await postJson(`${cloud.url}/api/v1/invoice`, { amount_sats: 3_000 }, key)).json);
      assert.equal(without.lightning_invoice, null);
    });

    test("a settlement with a wrong preimage confirms nothing and is named on /health, the true one later does; another merchant's payment never reaches this one", async () => {
      const a = await signupMerchant(cloud.url, { lightning_nwc_url: wallet.connectionUri() });
      const b = await signupMerchant(cloud.url, { lightning_nwc_url: wallet.connectionUri() });
      const invoiceA = BtcInvoiceCreated.parse((await postJson(`${cloud.url}/api/v1/invoice`, { amount_sats: 1_500 }, { 'X-Service-Api-Key': a.api_key })).json);
      const invoiceB = BtcInvoiceCreated.parse((await postJson(`${cloud.url}/api/v1/invoice`, { amount_sats: 1_500 }, { 'X-Service-Api-Key': b.api_key })).json);
      wallet.misbehave({ wrongPreimage: true });
      try {
        await wallet.settle(invoiceA.payment_hash!);
        await until('the lying settlement is named on /health', async () => JSON.stringify((await getJson(`${cloud.url}/api/v1/health`)).json).includes('preimage'));
        assert.equal((await getJson(`${cloud.url}/api/v1/invoice/${invoiceA.invoice_id}`, { 'X-Service-Api-Key': a.api_key })).json.status, 'pending', 'no preimage that hashes: nothing confirmed');
      } finally {
        wallet.misbehave({ wrongPreimage: false });
      }
      // The wallet did settle it: once it reports the true preimage, the lookup pass (the fallback for a lost notification) confirms it.
      await until("A's invoice confirms on the lookup with the true preimage", async () => (await getJson(`${cloud.url}/api/v1/invoice/${invoiceA.invoice_id}`, { 'X-Service-Api-Key': a.api_key })).json.status === 'confirmed');
      await wallet.settle(invoiceB.payment_hash!);
      await until("B's invoice confirms", async () => (await getJson(`${cloud.url}/api/v1/invoice/${invoiceB.invoice_id}`, { 'X-Service-Api-Key': b.api_key })).json.status === 'confirmed');
      const events = await cloud.database.db.selectFrom('events').selectAll().where('merchant_id', '=', a.merchant_id).execute();
      assert.ok(!events.some((row) => JSON.parse(row.payload).invoice_id === invoiceB.invoice_id), "B's payment never reaches A's events");
    });
  });
}
