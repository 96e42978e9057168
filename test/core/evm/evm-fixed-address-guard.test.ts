import { settingsOf } from '../../../core/chain-definition.ts';
import { defaultChains } from '../../../core/chains/default-chains.ts';
import assert from 'node:assert/strict';
import { describe, it, test } from 'node:test';
import { HDNodeWallet } from 'ethers';
import { claimOf } from '../../../core/evm/address-claims.ts';
import { loadConfig } from '../../../listener/config.ts';
import { ConfigError } from '../../../edge/settings.ts';
import { createLogger } from '../../../core/log.ts';
import { ACCOUNT_XPUB } from '../../helpers/evm-chain.ts';
import { testDatabases } from '../../helpers/databases.ts';
import { postJson, startTestListener } from '../../helpers/listener.ts';

const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
/** Child i of the test account, derived from the private key (independently of the listener's xpub derivation). */
const child = (i: number) => HDNodeWallet.fromPhrase(MNEMONIC, undefined, `m/44'/60'/0'/0/${i}`).address;

test('MERCHANT_BASE_ADDRESS that is one of the first 20 children of MERCHANT_BASE_XPUB refuses start', () => {
  assert.throws(
    () => loadConfig({ MERCHANT_BASE_XPUB: ACCOUNT_XPUB, MERCHANT_BASE_ADDRESS: child(0), BASE_RPC_URL: 'http://127.0.0.1:9', BASE_MIN_SOURCES: '1' }, defaultChains),
    /MERCHANT_BASE_ADDRESS is child 0 of MERCHANT_BASE_XPUB \(m\/44'\/60'\/0'\/0\/0\)/,
  );
  assert.throws(
    () => loadConfig({ MERCHANT_BASE_XPUB: ACCOUNT_XPUB, MERCHANT_BASE_ADDRESS: child(19), BASE_RPC_URL: 'http://127.0.0.1:9', BASE_MIN_SOURCES: '1' }, defaultChains),
    /is child 19 of MERCHANT_BASE_XPUB/,
  );
  assert.ok(settingsOf(loadConfig({ MERCHANT_BASE_XPUB: ACCOUNT_XPUB, MERCHANT_BASE_ADDRESS: child(20), BASE_RPC_URL: 'http://127.0.0.1:9', BASE_MIN_SOURCES: '1' }, defaultChains).chains, 'base'));
});

/** Base configured, no chain watched: these tests are about which address an invoice gets. */
const BASE_ENV = { MERCHANT_BASE_XPUB: ACCOUNT_XPUB, MERCHANT_EVM_TOKENS: 'usdc,usdt', BASE_RPC_URL: 'http://127.0.0.1:9', BASE_MIN_SOURCES: '1' };

async function createXpubInvoices(url: string, count: number) {
  const created = [];
  for (let i = 0; i < count; i++) {
    const r = await postJson(`${url}/invoice`, { chain: 'base', amount_usd: 1 });
    assert.equal(r.status, 201, r.text);
    assert.equal(r.json.receive_address, child(r.json.child_index), 'the address is the child its index names');
    created.push(r.json as { invoice_id: string; child_index: number; receive_address: string });
  }
  return created;
}

for (const database of testDatabases) {
  describe(`the listener's MERCHANT_BASE_ADDRESS is claimed at start, on ${database.name}`, { skip: database.skip }, () => {
    it('an xpub invoice reaching it skips that index for good (logged without the key); later invoices, and restarts, still work', async () => {
      const store = await database.create();
      const lines: string[] = [];
      const start = () =>
        startTestListener({
          env: { ...BASE_ENV, MERCHANT_BASE_ADDRESS: child(20), DATABASE_URL: store.url },
          logger: createLogger({ write: (line) => lines.push(line) }),
        });
      let listener = await start();
      try {
        assert.equal(await claimOf(listener.database.db, child(20)), 'fixed', 'claimed at start, before any invoice');
        const before = await createXpubInvoices(listener.url, 22);
        assert.deepEqual(
          before.map((r) => r.child_index),
          [...Array.from({ length: 20 }, (_, i) => i), 21, 22],
          'index 20 is the fixed address: skipped',
        );
        const skip = lines.find((line) => line.includes('base child index skipped'));
        assert.ok(skip, 'the skip is logged');
        assert.deepEqual([JSON.parse(skip).child_index, JSON.parse(skip).address], [20, child(20)]);
        assert.ok(!lines.some((line) => line.includes(ACCOUNT_XPUB)), 'no key in the log');

        // A restart claims the address again (a no-op) and the sequence goes on past it.
        await listener.stop();
        listener = await start();
        assert.deepEqual((await createXpubInvoices(listener.url, 1)).map((r) => r.child_index), [23]);
        const fixed = await postJson(`${listener.url}/invoice`, { chain: 'base', amount_usd: 1, asset: 'usdt' });
        assert.equal(fixed.status, 201, fixed.text);
        assert.equal(fixed.json.receive_address, child(20), 'the fixed address still takes its own invoices');
        const atFixed = await listener.database.db.selectFrom('invoices').select(['invoice_id', 'child_index']).where('receive_address', '=', child(20)).execute();
        assert.deepEqual(atFixed, [{ invoice_id: fixed.json.invoice_id, child_index: null }], 'no derived invoice at the fixed address');
      } finally {
        await listener.stop();
        await store.drop();
      }
    });

    it('a fixed address a stored xpub invoice already has refuses start with a message naming it, and claims nothing', async () => {
      const store = await database.create();
      try {
        const xpubOnly = await startTestListener({ env: { ...BASE_ENV, MERCHANT_EVM_TOKENS: 'usdc', DATABASE_URL: store.url } });
        const held = (await createXpubInvoices(xpubOnly.url, 21)).at(-1)!;
        await xpubOnly.stop();
        assert.equal(held.receive_address, child(20));

        const withFixed = (address: string) => startTestListener({ env: { ...BASE_ENV, MERCHANT_BASE_ADDRESS: address, DATABASE_URL: store.url } });
        await assert.rejects(withFixed(child(20)), (error) => {
          assert.ok(error instanceof ConfigError, String(error));
          assert.match(error.message, /MERCHANT_BASE_ADDRESS is already the receive address of invoice (\S+) \(m\/44'\/60'\/0'\/0\/20\)/);
          assert.ok(error.message.includes(held.invoice_id), error.message);
          return true;
        });
        const { db, close } = await store.open();
        try {
          assert.equal(await claimOf(db, child(20)), 'derived', 'the invoice keeps its address');
          assert.deepEqual(await db.selectFrom('base_nonce_leases').select('nonce').execute(), []);
        } finally {
          await close();
        }

        // Another address outside the stored invoices starts, and the sequence goes on.
        const listener = await withFixed(child(21));
        try {
          assert.deepEqual((await createXpubInvoices(listener.url, 1)).map((r) => r.child_index), [22], 'index 21 is now the fixed address: skipped');
        } finally {
          await listener.stop();
        }
      } finally {
        await store.drop();
      }
    });
  });
}
