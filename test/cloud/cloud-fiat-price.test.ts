import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CloudHealth } from '../../shared/index.ts';
import type { RunningCloud } from '../../cloud/cloud-app.ts';
import { startLocalTickers, type LocalTickers } from '../../sandbox/local-tickers.ts';
import { getJson, signupMerchant, startTestCloud } from '../helpers/cloud.ts';
import { testDatabases, type CreatedDatabase } from '../helpers/databases.ts';
import { BIP84_ZPUB, postJson } from '../helpers/listener.ts';

for (const kind of testDatabases) {
  describe(`Cloud: invoices priced in a fiat currency (${kind.name})`, { skip: kind.skip }, () => {
    let cloud: RunningCloud;
    let database: CreatedDatabase;
    let exchanges: LocalTickers[];
    let key: Record<string, string>;
    before(async () => {
      exchanges = await Promise.all(['90010', '90000', '108000'].map((rate) => startLocalTickers({ rates: { 'BTC/EUR': rate } })));
      database = await kind.create();
      const [kraken, coinbase, bitstamp] = exchanges.map((exchange) => exchange.url);
      cloud = await startTestCloud({ env: { DATABASE_URL: database.url, RATE_SOURCES: `kraken=${kraken},coinbase=${coinbase},bitstamp=${bitstamp}` } });
      key = { 'X-Service-Api-Key': (await signupMerchant(cloud.url, { btc_xpub: BIP84_ZPUB })).api_key };
    });
    after(async () => {
      await cloud?.stop();
      await database?.drop();
      await Promise.all(exchanges.map((exchange) => exchange.close()));
    });

    it('€25.00 in bitcoin at the median of the two that agree; the one 20 % off named on /health; stored and read back', async () => {
      const created = await postJson(`${cloud.url}/api/v1/invoice`, { price_amount: '25.00', price_currency: 'EUR' }, key);
      assert.equal(created.status, 201, created.text);
      // 25 / 90005 BTC = 27,776.23… sats, rounded up.
      assert.equal(created.json.amount_sats, 27_777);
      assert.deepEqual([created.json.price_amount, created.json.price_currency, created.json.rate, created.json.rate_sources], ['25.00', 'EUR', '90005', ['coinbase', 'kraken']]);
      const stored = await getJson(`${cloud.url}/api/v1/invoice/${created.json.invoice_id}`, key);
      assert.equal(stored.status, 200, stored.text);
      assert.deepEqual([stored.json.price_amount, stored.json.rate, stored.json.rate_sources, stored.json.rate_at], ['25.00', '90005', ['coinbase', 'kraken'], created.json.rate_at]);
      const health = CloudHealth.parse((await getJson(`${cloud.url}/api/v1/health`)).json);
      assert.equal(health.rate_sources?.find((source) => source.name === 'bitstamp')?.state, 'outlier');
    });

    it('all exchanges down: 503 rate_unavailable with Retry-After; an invoice in sats is still created', async () => {
      for (const exchange of exchanges) exchange.setMode('down');
      // The quotes in hand stay fresh for a minute: a price in a currency not asked yet needs new ones.
      const refused = await postJson(`${cloud.url}/api/v1/invoice`, { price_amount: '25.00', price_currency: 'GBP' }, key);
      assert.equal(refused.status, 503, refused.text);
      assert.equal(refused.json.error.code, 'rate_unavailable');
      assert.ok(Number(refused.headers.get('retry-after')) >= 1);
      const inSats = await postJson(`${cloud.url}/api/v1/invoice`, { amount_sats: 1000 }, key);
      assert.equal(inSats.status, 201, inSats.text);
      assert.equal(inSats.json.price_amount, null);
    });
  });
}
