import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { HDNodeWallet, Wallet } from 'ethers';
import { defaultChains } from '../../core/chains/default-chains.ts';
import { ACCOUNT_PATH } from '../../core/evm/keys.ts';
import type { RunningCloud } from '../../cloud/cloud-app.ts';
import { startLocalEvm, type LocalEvm } from '../../sandbox/local-evm.ts';
import { BaseFixedInvoiceCreated, BaseInvoice, BaseXpubInvoiceCreated, CheckoutView, ErrorEnvelope, InvoiceConfirmedEvent, InvoiceList } from '../../shared/index.ts';
import { getJson, signupMerchant, startTestCloud } from '../helpers/cloud.ts';
import { postJson } from '../helpers/listener.ts';
import { testDatabases, type CreatedDatabase } from '../helpers/databases.ts';
import { waitForWatcher } from '../helpers/wait-for-watcher.ts';

const fields = (answer: Record<string, unknown>) => ({
  order_id: answer.order_id,
  metadata: answer.metadata,
  memo: answer.memo,
  redirect_url: answer.redirect_url,
});

for (const kind of testDatabases) describe(`order fields on Cloud (EVM, local anvil chain, ${kind.name})`, { timeout: 120_000, skip: kind.skip }, () => {
  let database: CreatedDatabase;
  let evm: LocalEvm;
  let cloud: RunningCloud;
  let key: Record<string, string>;
  /** A merchant receiving at a fixed address: its invoices are fixed-address ones. */
  let fixedKey: Record<string, string>;
  before(async () => {
    database = await kind.create();
    evm = await startLocalEvm({ chains: defaultChains, chain: 'base' });
    const { MERCHANT_EVM_XPUB: _x, MERCHANT_EVM_ADDRESS: _a, ...chainEnv } = evm.env;
    cloud = await startTestCloud({
      env: { ...chainEnv, DATABASE_URL: database.url, CLOUD_WATCH: 'true', CLOUD_SIGNUP_RATE_LIMIT: 'off', CLOUD_INVOICE_RATE_LIMIT: 'off' },
      deps: { leaderRetryMs: 100, chainWatch: { tuning: { evm: { pollIntervalMs: 20 } }, refreshMs: 20 } },
    });
    const xpub = HDNodeWallet.fromSeed(randomBytes(32)).derivePath(ACCOUNT_PATH).neuter().extendedKey;
    key = { 'X-Service-Api-Key': (await signupMerchant(cloud.url, { receive_methods: [{ chain: 'base', xpub }] })).api_key };
    fixedKey = { 'X-Service-Api-Key': (await signupMerchant(cloud.url, { receive_methods: [{ chain: 'base', address: Wallet.createRandom().address }] })).api_key };
  });
  after(async () => {
    await cloud?.stop();
    await evm?.close();
    await database?.drop();
  });

  const order = { order_id: 'ORD-7', metadata: { customer: 'c_1', channel: 'web' }, memo: 'Annual plan', redirect_url: 'https://shop.example/thanks' };
  const create = (body: Record<string, unknown>) => postJson(`${cloud.url}/api/v1/invoice`, body, key);
  const list = (query = '') => getJson(`${cloud.url}/api/v1/invoices${query}`, key);

  test('both EVM modes return the fields (memo too) on create, read and list; the list looks an invoice up by order_id', async () => {
    const usdc = await create({ chain: 'base', amount_usd: 3, ...order });
    assert.equal(usdc.status, 201, usdc.text);
    assert.deepEqual(fields(BaseXpubInvoiceCreated.parse(usdc.json)), order);
    const fixed = await postJson(`${cloud.url}/api/v1/invoice`, { chain: 'base', asset: 'usdt', amount_usd: 4, ...order }, fixedKey);
    assert.equal(fixed.status, 201, fixed.text);
    assert.deepEqual(fields(BaseFixedInvoiceCreated.parse(fixed.json)), order);
    const read = async (invoiceId: string, headers = key) => BaseInvoice.parse((await getJson(`${cloud.url}/api/v1/invoice/${invoiceId}`, headers)).json);
    assert.deepEqual(fields(await read(fixed.json.invoice_id, fixedKey)), order);
    const second = await create({ chain: 'base', amount_usd: 4, ...order, memo: 'Second half' });
    assert.equal(second.status, 201, second.text);
    const plain = await create({ chain: 'base', amount_usd: 5 });
    assert.deepEqual(fields(plain.json), { order_id: null, metadata: null, memo: null, redirect_url: null });

    assert.deepEqual(fields(await read(usdc.json.invoice_id)), order);

    const all = InvoiceList.parse((await list()).json).invoices;
    assert.deepEqual(all.map((entry) => [entry.invoice_id, fields(entry)]), [
      [plain.json.invoice_id, fields(plain.json)],
      [second.json.invoice_id, { ...order, memo: 'Second half' }],
      [usdc.json.invoice_id, order],
    ]);
    // order_id need not be unique: every invoice of it, most recent first, and no other.
    const byOrder = InvoiceList.parse((await list('?order_id=ORD-7')).json).invoices;
    assert.deepEqual(byOrder.map((entry) => entry.invoice_id), [second.json.invoice_id, usdc.json.invoice_id]);
    assert.deepEqual(InvoiceList.parse((await list('?order_id=ORD-8')).json).invoices, []);
    assert.deepEqual(InvoiceList.parse((await list('?order_id=ORD-7&limit=1')).json).invoices.map((e) => e.invoice_id), [second.json.invoice_id]);
    for (const query of ['?order_id=', '?order_id=a&order_id=b', `?order_id=${'o'.repeat(129)}`]) {
      const answer = await list(query);
      assert.equal(answer.status, 400, `${query}: ${answer.text}`);
      assert.equal(ErrorEnvelope.parse(answer.json).error.code, 'bad_query');
      assert.match(ErrorEnvelope.parse(answer.json).error.message ?? '', /order_id/);
    }
  });

  test('an unknown field is bad_body naming it, and counts no invoice against the plan', async () => {
    const before = InvoiceList.parse((await list()).json).invoices.length;
    const answer = await create({ chain: 'base', amount_usd: 3, order_ref: 'ORD-9' });
    assert.equal(answer.status, 400, answer.text);
    const { error } = ErrorEnvelope.parse(answer.json);
    assert.equal(error.code, 'bad_body');
    assert.match(error.message, /order_ref/);
    assert.equal(InvoiceList.parse((await list()).json).invoices.length, before);
  });

  test('the paid invoice\'s invoice.confirmed carries the fields, and its checkout view the return link only then', async () => {
    const created = BaseXpubInvoiceCreated.parse((await create({ chain: 'base', amount_usd: 2, ...order, order_id: 'ORD-PAID' })).json);
    const view = async () => CheckoutView.parse((await getJson(`${cloud.url}/api/v1/checkout/${created.invoice_id}`)).json);
    assert.equal((await view()).redirect_url, null);
    assert.equal((await view()).memo, order.memo, 'the memo is shown on an EVM checkout');
    await evm.tokens.usdc.transfer(created.receive_address, BigInt(created.amount_token_units), 0);
    const status = async () => {
      await evm.anvil.mine(1);
      return (await getJson(`${cloud.url}/api/v1/invoice/${created.invoice_id}`, key)).json.status as string;
    };
    await waitForWatcher('the paid invoice confirmed', status, (s) => s === 'confirmed', { watcher: () => cloud.watcherStates(), timeoutMs: 60_000 });
    assert.equal((await view()).redirect_url, order.redirect_url);
    const events = await cloud.database.db.selectFrom('events').select(['type', 'payload']).execute();
    const ofInvoice = events.map((e) => JSON.parse(e.payload)).filter((payload) => payload.invoice_id === created.invoice_id);
    assert.deepEqual(ofInvoice.map((payload) => payload.event), ['invoice.confirmed']);
    assert.deepEqual(fields(InvoiceConfirmedEvent.parse(ofInvoice[0])), { ...order, order_id: 'ORD-PAID' });
  });
});
