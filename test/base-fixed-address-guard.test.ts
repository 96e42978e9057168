import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HDNodeWallet } from 'ethers';
import { parseBaseConfig } from '../listener/base/base-config.ts';
import { systemClock } from '../listener/clock.ts';
import { loadConfig } from '../listener/config.ts';
import { openDatabase } from '../listener/db/database.ts';
import { createInvoiceService } from '../listener/invoices/invoice.service.ts';
import { silentLogger } from '../listener/log.ts';
import { ServiceError } from '../listener/errors.ts';
import { ACCOUNT_XPUB } from './helpers/base-chain.ts';

const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
/** Child i of the test account, derived from the private key (independently of the listener's xpub derivation). */
const child = (i: number) => HDNodeWallet.fromPhrase(MNEMONIC, undefined, `m/44'/60'/0'/0/${i}`).address;

test('MERCHANT_BASE_ADDRESS that is one of the first 20 children of MERCHANT_BASE_XPUB refuses start', () => {
  assert.throws(
    () => loadConfig({ MERCHANT_BASE_XPUB: ACCOUNT_XPUB, MERCHANT_BASE_ADDRESS: child(0), BASE_RPC_URL: 'http://127.0.0.1:9' }),
    /MERCHANT_BASE_ADDRESS is child 0 of MERCHANT_BASE_XPUB \(m\/44'\/60'\/0'\/0\/0\)/,
  );
  assert.throws(
    () => loadConfig({ MERCHANT_BASE_XPUB: ACCOUNT_XPUB, MERCHANT_BASE_ADDRESS: child(19), BASE_RPC_URL: 'http://127.0.0.1:9' }),
    /is child 19 of MERCHANT_BASE_XPUB/,
  );
  assert.ok(loadConfig({ MERCHANT_BASE_XPUB: ACCOUNT_XPUB, MERCHANT_BASE_ADDRESS: child(20), BASE_RPC_URL: 'http://127.0.0.1:9' }).base);
});

test('an xpub invoice that would get the fixed address as its address is refused, and its index is not used', async () => {
  const problems: string[] = [];
  const base = parseBaseConfig({ MERCHANT_BASE_XPUB: ACCOUNT_XPUB, MERCHANT_BASE_ADDRESS: child(20), BASE_RPC_URL: 'http://127.0.0.1:9' }, problems);
  assert.ok(base, problems.join('; '));
  const database = await openDatabase('sqlite::memory:');
  try {
    const invoices = createInvoiceService({ db: database.db, clock: systemClock, logger: silentLogger, merchantId: 'm_test', btc: null, base: { base } });
    const create = () => invoices.create({ chain: 'base', amount_usd: 1 }, '{"chain":"base","amount_usd":1}');
    for (let i = 0; i < 20; i++) assert.equal(((await create()) as { child_index: number }).child_index, i);
    for (let attempt = 0; attempt < 2; attempt++) {
      await assert.rejects(create(), (error) => error instanceof ServiceError && error.code === 'create_failed');
    }
    const stored = await database.db.selectFrom('invoices').select('receive_address').execute();
    assert.equal(stored.length, 20);
    assert.ok(!stored.some((r) => r.receive_address === child(20)));
  } finally {
    await database.close();
  }
});
