import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import bs58check from 'bs58check';
import { HDNodeWallet } from 'ethers';
import { parseEvmAccountXpub, textKeyId } from '../../../core/evm/keys.ts';
import { derivationPath, parseAccountKey, receiveAddress } from '../../../core/btc/account-key.ts';
import { newApiKey } from '../../../cloud/keys/api-keys.ts';
import { startTestCloud } from '../../helpers/cloud.ts';
import { testDatabases } from '../../helpers/databases.ts';
import { openOldSchema } from '../../helpers/old-schema.ts';
import { BIP84_ZPUB, postJson, startTestListener } from '../../helpers/listener.ts';

const BTC_KEY = parseAccountKey(BIP84_ZPUB);
const BASE_XPUB = HDNodeWallet.fromPhrase('test test test test test test test test test test test junk', undefined, "m/44'/60'/0'").neuter().extendedKey;
const BASE_KEY = parseEvmAccountXpub(BASE_XPUB);
const FIXED_ADDRESS = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

function reencoded(extendedKey: string, edit: (payload: Buffer) => void): string {
  const payload = Buffer.from(bs58check.decode(extendedKey));
  edit(payload);
  return bs58check.encode(payload);
}
const BTC_XPUB_FORM = reencoded(BIP84_ZPUB, (p) => p.writeUInt32BE(0x0488b21e, 0));
const BASE_XPUB_OTHER_TEXT = reencoded(BASE_XPUB, (p) => p.writeUInt32BE(0xdeadbeef, 5));

interface OldInvoice {
  merchant: string;
  chain: 'btc' | 'base';
  index: number;
  keyId: string;
  createdAt: number;
}

function oldInvoiceRow({ merchant, chain, index, keyId, createdAt }: OldInvoice) {
  const btc = chain === 'btc';
  return {
    invoice_id: `inv_${merchant}_${chain}_${index}`,
    merchant_id: merchant,
    chain,
    asset: btc ? 'BTC' : 'USDC',
    network: btc ? 'mainnet' : '8453',
    receive_address: btc ? receiveAddress(BTC_KEY, index) : BASE_KEY.address(index),
    child_index: index,
    derivation_path: btc ? derivationPath(BTC_KEY, index) : BASE_KEY.derivationPath(index),
    key_id: keyId,
    amount_sats: btc ? 1_000 : null,
    amount_units: btc ? null : '5000000',
    memo: null,
    status: 'pending',
    tx_hash: null,
    paid_at: null,
    expires_at: createdAt + 3_600_000,
    created_at: createdAt,
    updated_at: createdAt,
    token_address: btc ? null : '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
    nonce: null,
    amount_usd: btc ? null : '5',
  };
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

for (const database of testDatabases) {
  describe(`migration 0009 (key identity) on ${database.name}`, { skip: database.skip }, () => {
    it('two Cloud merchants with one key in two encodings: one counter at the highest, duplicates marked, no address twice afterwards', async () => {
      const store = await database.create();
      const keyA = newApiKey();
      const keyB = newApiKey();
      const old = await openOldSchema(database.name, store.url);
      try {
        const merchant = (id: string, btcXpub: string, baseXpub: string) => ({
          merchant_id: id, email: `${id}@example.com`, shop_name: id, btc_xpub: btcXpub, base_xpub: baseXpub, plan: 'pro', plan_expires_at: Date.now() + 86_400_000, created_at: 1,
        });
        await old.insertInto('cloud_merchants').values([merchant('m_a', BIP84_ZPUB, BASE_XPUB), merchant('m_b', BTC_XPUB_FORM, BASE_XPUB_OTHER_TEXT)]).execute();
        await old
          .insertInto('cloud_api_keys')
          .values([keyA, keyB].map((k, i) => ({ key_hash: k.hash, merchant_id: i === 0 ? 'm_a' : 'm_b', prefix: k.prefix, label: 'default', revoked: 0, created_at: 1 })))
          .execute();
        // What the old code did: A got indexes 0-4 of the key, B (same key, other text) 0-2 again.
        const invoices: OldInvoice[] = [
          ...range(5).map((index) => ({ merchant: 'm_a', chain: 'btc' as const, index, keyId: BTC_KEY.keyId, createdAt: 1_000 + index })),
          ...range(3).map((index) => ({ merchant: 'm_b', chain: 'btc' as const, index, keyId: BTC_KEY.keyId, createdAt: 2_000 + index })),
          ...range(2).map((index) => ({ merchant: 'm_a', chain: 'base' as const, index, keyId: textKeyId(BASE_XPUB), createdAt: 1_000 + index })),
          { merchant: 'm_b', chain: 'base' as const, index: 0, keyId: textKeyId(BASE_XPUB_OTHER_TEXT), createdAt: 2_000 },
        ];
        await old.insertInto('invoices').values(invoices.map(oldInvoiceRow)).execute();
        // Both merchants registered one fixed address too, and each leased the same exact amount there.
        const fixed = (merchant: string, reservedUntil: number) => ({
          ...oldInvoiceRow({ merchant, chain: 'base', index: 0, keyId: '', createdAt: 3_000 }),
          invoice_id: `inv_${merchant}_fixed`, receive_address: FIXED_ADDRESS, child_index: null, derivation_path: null, key_id: null, nonce: 1, amount_units: '5000001', reserved_until: reservedUntil,
        });
        for (const { reserved_until, ...row } of [fixed('m_a', 10_000), fixed('m_b', 20_000)]) {
          await old.insertInto('invoices').values(row).execute();
          await old.insertInto('base_nonce_leases').values({ merchant_id: row.merchant_id, base_units: '5000000', nonce: 1, invoice_id: row.invoice_id, reserved_until }).execute();
        }
        await old
          .insertInto('address_counters')
          .values([
            { merchant_id: 'm_a', chain: 'btc', key_id: BTC_KEY.keyId, next_index: 5 },
            { merchant_id: 'm_b', chain: 'btc', key_id: BTC_KEY.keyId, next_index: 3 },
            { merchant_id: 'm_a', chain: 'base', key_id: textKeyId(BASE_XPUB), next_index: 2 },
            { merchant_id: 'm_b', chain: 'base', key_id: textKeyId(BASE_XPUB_OTHER_TEXT), next_index: 1 },
          ])
          .execute();
      } finally {
        await old.destroy();
      }

      const cloud = await startTestCloud({ env: { DATABASE_URL: store.url, CLOUD_INVOICE_RATE_LIMIT: 'off', BASE_RPC_URL: 'http://127.0.0.1:9', BASE_MIN_SOURCES: '1' } });
      try {
        const { db } = cloud.database;
        const counters = await db.selectFrom('address_counters').selectAll().orderBy('chain').execute();
        assert.deepEqual(counters, [
          { chain: 'base', key_id: BASE_KEY.keyId, next_index: 2 },
          { chain: 'btc', key_id: BTC_KEY.keyId, next_index: 5 },
        ]);
        const baseKeyIds = await db.selectFrom('invoices').select('key_id').distinct().where('chain', '=', 'base').where('child_index', 'is not', null).execute();
        assert.deepEqual(baseKeyIds, [{ key_id: BASE_KEY.keyId }], 'Base invoices moved to the key identity');
        const leases = await db.selectFrom('base_nonce_leases').selectAll().execute();
        assert.deepEqual(leases, [{ address: FIXED_ADDRESS, base_units: '5000000', nonce: 1, invoice_id: 'inv_m_b_fixed', reserved_until: 20_000 }], 'one lease per exact amount at an address, the longer one kept');
        const duplicates = await db.selectFrom('invoices').select(['invoice_id', 'address_duplicate_of']).where('address_duplicate_of', 'is not', null).orderBy('invoice_id').execute();
        assert.deepEqual(duplicates, [
          { invoice_id: 'inv_m_b_base_0', address_duplicate_of: 'inv_m_a_base_0' },
          ...range(3).map((i) => ({ invoice_id: `inv_m_b_btc_${i}`, address_duplicate_of: `inv_m_a_btc_${i}` })),
        ]);

        const create = (key: string, body: unknown) => postJson(`${cloud.url}/api/v1/invoice`, body, { 'X-Service-Api-Key': key });
        const created = [
          await create(keyA.key, { amount_sats: 1_000 }),
          await create(keyB.key, { amount_sats: 1_000 }),
          await create(keyB.key, { chain: 'base', amount_usd: 5 }),
          await create(keyA.key, { chain: 'base', amount_usd: 5 }),
        ];
        assert.deepEqual(created.map((r) => [r.status, r.json.child_index]), [[201, 5], [201, 6], [201, 2], [201, 3]]);
        assert.equal(created[1].json.receive_address, receiveAddress(BTC_KEY, 6));
        assert.equal(created[3].json.receive_address, BASE_KEY.address(3));
        const everyAddress = await db.selectFrom('invoices').select('receive_address').where('child_index', 'is not', null).where('address_duplicate_of', 'is', null).execute();
        assert.equal(new Set(everyAddress.map((r) => r.receive_address)).size, everyAddress.length, 'apart from the marked ones, one invoice per derived address');
      } finally {
        await cloud.stop();
        await store.drop();
      }
    });

    it("the listener's MERCHANT_BASE_XPUB invoices move to the key identity at start and its sequence continues", async () => {
      const store = await database.create();
      const old = await openOldSchema(database.name, store.url);
      try {
        await old.insertInto('invoices').values(range(3).map((index) => oldInvoiceRow({ merchant: 'default', chain: 'base', index, keyId: textKeyId(BASE_XPUB), createdAt: 1_000 + index }))).execute();
        await old.insertInto('address_counters').values({ merchant_id: 'default', chain: 'base', key_id: textKeyId(BASE_XPUB), next_index: 3 }).execute();
      } finally {
        await old.destroy();
      }
      const env = { DATABASE_URL: store.url, MERCHANT_BTC_XPUB: '', MERCHANT_BASE_XPUB: BASE_XPUB, BASE_RPC_URL: 'http://127.0.0.1:9', BASE_MIN_SOURCES: '1' };
      for (const expected of [3, 4]) {
        // Twice: adopting is a no-op once done.
        const listener = await startTestListener({ env });
        try {
          const created = await postJson(`${listener.url}/invoice`, { chain: 'base', amount_usd: 5 });
          assert.equal(created.status, 201, created.text);
          assert.equal(created.json.child_index, expected);
          assert.equal(created.json.receive_address, BASE_KEY.address(expected));
          const keyIds = await listener.database.db.selectFrom('invoices').select('key_id').distinct().execute();
          assert.deepEqual(keyIds, [{ key_id: BASE_KEY.keyId }]);
        } finally {
          await listener.stop();
        }
      }
      await store.drop();
    });
  });

  describe(`migration 0011 (Base address claims) on ${database.name}`, { skip: database.skip }, () => {
    it('fixed addresses registered before it: one a derived invoice already held is refused, a future child is skipped', async () => {
      const store = await database.create();
      const keys = { owner: newApiKey(), heldFixed: newApiKey(), futureFixed: newApiKey() };
      const old = await openOldSchema(database.name, store.url, '0010_nonce_leases_by_address');
      try {
        const merchant = (id: keyof typeof keys, base: { base_xpub?: string; base_address?: string }) => ({
          merchant_id: id, email: `${id}@example.com`, shop_name: id, btc_xpub: null, base_xpub: null, base_address: null, ...base, plan: 'pro', plan_expires_at: Date.now() + 86_400_000, created_at: 1,
        });
        await old
          .insertInto('cloud_merchants')
          .values([merchant('owner', { base_xpub: BASE_XPUB }), merchant('heldFixed', { base_address: BASE_KEY.address(0) }), merchant('futureFixed', { base_address: BASE_KEY.address(2) })])
          .execute();
        await old
          .insertInto('cloud_api_keys')
          .values(Object.entries(keys).map(([id, k]) => ({ key_hash: k.hash, merchant_id: id, prefix: k.prefix, label: 'default', revoked: 0, created_at: 1 })))
          .execute();
        const held = range(2).map((index) => ({ ...oldInvoiceRow({ merchant: 'owner', chain: 'base', index, keyId: BASE_KEY.keyId, createdAt: 1_000 + index }), address_duplicate_of: null }));
        await old.insertInto('invoices').values(held).execute();
        await old.insertInto('address_counters').values({ chain: 'base', key_id: BASE_KEY.keyId, next_index: 2 }).execute();
      } finally {
        await old.destroy();
      }

      const cloud = await startTestCloud({ env: { DATABASE_URL: store.url, CLOUD_INVOICE_RATE_LIMIT: 'off', BASE_RPC_URL: 'http://127.0.0.1:9', BASE_MIN_SOURCES: '1' } });
      try {
        const claims = await cloud.database.db.selectFrom('base_address_claims').selectAll().orderBy('address').execute();
        const expected = [
          { address: BASE_KEY.address(0), kind: 'derived' },
          { address: BASE_KEY.address(1), kind: 'derived' },
          { address: BASE_KEY.address(2), kind: 'fixed' },
        ].sort((a, b) => (a.address < b.address ? -1 : 1));
        assert.deepEqual(claims, expected, 'derived invoices keep their addresses; the free fixed one is claimed');
        const create = (key: string) => postJson(`${cloud.url}/api/v1/invoice`, { chain: 'base', amount_usd: 5 }, { 'X-Service-Api-Key': key });
        const refused = await create(keys.heldFixed.key);
        assert.equal(refused.status, 400, refused.text);
        assert.equal(refused.json.error.code, 'base_disabled');
        const next = await create(keys.owner.key);
        assert.equal(next.status, 201, next.text);
        assert.equal(next.json.child_index, 3, 'index 2 is a registered fixed address: skipped');
        const fixed = await create(keys.futureFixed.key);
        assert.equal(fixed.status, 201, fixed.text);
        assert.equal(fixed.json.receive_address, BASE_KEY.address(2));
      } finally {
        await cloud.stop();
        await store.drop();
      }
    });
  });
}
