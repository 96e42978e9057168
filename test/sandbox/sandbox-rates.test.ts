import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { Health } from '../../shared/index.ts';
import { postJson } from '../helpers/listener.ts';
import { releasedPort } from '../helpers/ports.ts';
import { spawnListener } from '../helpers/process.ts';

test('sandbox: its own rates, named sandbox-…, which its control endpoint moves and makes lie; the checkout says the rate is the sandbox\'s', async () => {
  const chainPort = String(await releasedPort());
  const listener = await spawnListener({ MERCHANT_BTC_XPUB: '', SANDBOX_CHAIN_PORT: chainPort }, mkdtempSync(join(tmpdir(), 'sandbox-rates-')));
  try {
    const control = (action: string, body: unknown) => postJson(`http://127.0.0.1:${chainPort}/control/${action}`, body);
    assert.equal((await control('rates/set', { pair: 'BTC/USD', value: '50000' })).status, 200);
    const lie = await control('rates/lie', { source: 'kraken', factor: 1.2 });
    assert.equal(lie.status, 200, lie.text);
    const refused = await fetch(`http://127.0.0.1:${chainPort}/control/rates/lie`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ source: 'nobody', factor: 2 }) });
    assert.equal(refused.status, 400);
    assert.match(await refused.text(), /give source \(kraken, coinbase, bitstamp\)/);

    const created = await postJson(`${listener.url}/invoice`, { price_amount: '25.00', price_currency: 'USD' });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.json.amount_sats, 50_000, '$25 at the moved 50,000 USD/BTC');
    assert.deepEqual(created.json.rate_sources, ['sandbox-bitstamp', 'sandbox-coinbase']);
    const health = Health.parse(await (await fetch(`${listener.url}/health`)).json());
    assert.deepEqual(
      health.rate_sources?.map((source) => [source.name, source.state]),
      [['sandbox-kraken', 'outlier'], ['sandbox-coinbase', 'ok'], ['sandbox-bitstamp', 'ok']],
    );
    const page = await (await fetch(`${listener.url}/pay/${created.json.invoice_id}`)).text();
    assert.match(page, /\$25\.00 \(sandbox rate, not a market price\)/);
  } finally {
    await listener.stop();
  }
});
