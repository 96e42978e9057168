import { test } from 'node:test';
import assert from 'node:assert/strict';
import { postJson, startTestListener } from '../helpers/listener.ts';

test('a listener without a Lightning wallet refuses payment_methods naming lightning (chain_disabled, nothing stored) and takes on-chain', async () => {
  const listener = await startTestListener();
  try {
    const storedInvoices = async () => (await listener.database.db.selectFrom('invoices').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n;
    for (const payment_methods of [['lightning'], ['onchain', 'lightning']]) {
      const refused = await postJson(`${listener.url}/invoice`, { amount_sats: 1000, payment_methods });
      assert.equal(refused.status, 400, JSON.stringify(payment_methods));
      assert.equal(refused.json.error.code, 'chain_disabled');
      assert.match(refused.json.error.message, /Lightning is not set up.*MERCHANT_NWC_URL/);
    }
    assert.equal(Number(await storedInvoices()), 0, 'a refused request stores nothing');
    const onchain = await postJson(`${listener.url}/invoice`, { amount_sats: 1000, payment_methods: ['onchain'] });
    assert.equal(onchain.status, 201);
    assert.equal(onchain.json.lightning_invoice ?? null, null);
    assert.match(onchain.json.receive_address, /^bc1q/);
  } finally {
    await listener.stop();
  }
});
