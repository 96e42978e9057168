import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import bs58check from 'bs58check';
import { HDNodeWallet } from 'ethers';
import { sql } from 'kysely';
import { parseEvmAccountXpub } from '../../../core/evm/keys.ts';
import { parseAccountKey, receiveAddress } from '../../../core/btc/account-key.ts';
import type { RunningCloud } from '../../../cloud/cloud-app.ts';
import type { CoreDatabase } from '../../../core/schema.ts';
import { createLogger } from '../../../core/log.ts';
import { getJson, signupMerchant, startTestCloud } from '../../helpers/cloud.ts';
import { testDatabases } from '../../helpers/databases.ts';
import { BIP84_ZPUB, postJson, startTestListener } from '../../helpers/listener.ts';

const BTC_KEY = parseAccountKey(BIP84_ZPUB);
const wallet = HDNodeWallet.fromPhrase('test test test test test test test test test test test junk', undefined, "m/44'/60'/0'");
const BASE_XPUB = wallet.neuter().extendedKey;
const BASE_KEY = parseEvmAccountXpub(BASE_XPUB);
/** Of another account than BASE_KEY's (its child 1, 0x7099…79C8, would be skipped by BASE_KEY's invoices). */
const BASE_ADDRESS = '0x8C8d35429F74ec245F8Ef2f4Fd1e551cFF97d650';
/** No chain is watched in these tests (CLOUD_WATCH=false); Base just has to be configured. */
const CLOUD_ENV = { CLOUD_SIGNUP_RATE_LIMIT: '1000,1000', CLOUD_INVOICE_RATE_LIMIT: 'off', BASE_RPC_URL: 'http://127.0.0.1:9', BASE_MIN_SOURCES: '1' };

/** The same extended key under other version bytes (zpub → xpub): other text, same key. */
function withVersion(extendedKey: string, version: number): string {
  const payload = Buffer.from(bs58check.decode(extendedKey));
  payload.writeUInt32BE(version, 0);
  return bs58check.encode(payload);
}

/** The same EVM account key with other metadata (parent fingerprint, child number): other text, same addresses. */
function withOtherMetadata(extendedKey: string): string {
  const payload = Buffer.from(bs58check.decode(extendedKey));
  payload.writeUInt32BE(0xdeadbeef, 5);
  payload.writeUInt32BE(0x80000007, 9);
  return bs58check.encode(payload);
}

const BTC_XPUB_FORM = withVersion(BIP84_ZPUB, 0x0488b21e);
const BASE_XPUB_OTHER_TEXT = withOtherMetadata(BASE_XPUB);

/** Makes the database itself refuse some invoice inserts: a real storage failure, whatever the service checked before. */
async function failInsertsOf(database: CoreDatabase, condition: { memo: string; amountUsd: string }): Promise<void> {
  const when = sql`new.memo = ${sql.lit(condition.memo)} or new.amount_usd = ${sql.lit(condition.amountUsd)}`;
  if (database.dialect === 'sqlite') {
    await sql`create trigger injected_failure before insert on invoices when ${when} begin select raise(abort, 'injected storage failure'); end`.execute(database.db);
    return;
  }
  await sql`create function injected_failure() returns trigger language plpgsql as $$
    begin if ${when} then raise exception 'injected storage failure'; end if; return new; end $$`.execute(database.db);
  await sql`create trigger injected_failure before insert on invoices for each row execute function injected_failure()`.execute(database.db);
}

async function upgradeToPro(cloud: RunningCloud, merchantId: string) {
  await cloud.database.db.updateTable('cloud_merchants').set({ plan: 'pro', plan_expires_at: Date.now() + 86_400_000 }).where('merchant_id', '=', merchantId).execute();
}

const createOn = (cloud: RunningCloud, apiKey: string, body: unknown) => postJson(`${cloud.url}/api/v1/invoice`, body, { 'X-Service-Api-Key': apiKey });

function assertAllCreated(results: Array<{ status: number; text: string }>) {
  const refused = results.find((r) => r.status !== 201);
  assert.equal(refused, undefined, refused && `${refused.status} ${refused.text}`);
}

for (const database of testDatabases) {
  describe(`one address, one invoice, across merchants, on ${database.name}`, { skip: database.skip }, () => {
    it('merchants who registered one BTC key as zpub, as xpub and twice share its sequence: hundreds of concurrent invoices, no address twice', async () => {
      const store = await database.create();
      // Postgres is shared by several instances: each merchant's requests go to both.
      const instances = [await startTestCloud({ env: { ...CLOUD_ENV, DATABASE_URL: store.url } })];
      if (database.name === 'postgres') instances.push(await startTestCloud({ env: { ...CLOUD_ENV, DATABASE_URL: store.url } }));
      try {
        const first = instances[0];
        const merchants = [
          await signupMerchant(first.url, { btc_xpub: BIP84_ZPUB }),
          await signupMerchant(first.url, { btc_xpub: BTC_XPUB_FORM }),
          await signupMerchant(first.url, { btc_xpub: BIP84_ZPUB }),
        ];
        for (const m of merchants) await upgradeToPro(first, m.merchant_id);
        const perMerchant = 100;
        const requests = [];
        for (let i = 0; i < perMerchant; i++) {
          for (const [n, m] of merchants.entries()) {
            requests.push(createOn(instances[(i + n) % instances.length], m.api_key, { amount_sats: 1_000 }).then((r) => ({ ...r, merchant: m.merchant_id })));
          }
        }
        const results = await Promise.all(requests);
        assertAllCreated(results);
        const total = perMerchant * merchants.length;
        const addresses = new Set(results.map((r) => r.json.receive_address));
        assert.equal(addresses.size, total, 'every invoice has an address of its own');
        const indexes = results.map((r) => r.json.child_index as number).sort((a, b) => a - b);
        assert.deepEqual(indexes, Array.from({ length: total }, (_, i) => i), 'one sequence for the key, no index skipped or repeated');
        for (const r of results) assert.equal(r.json.receive_address, receiveAddress(BTC_KEY, r.json.child_index), `index ${r.json.child_index}`);
        for (const m of merchants) {
          assert.equal(results.filter((r) => r.merchant === m.merchant_id).length, perMerchant);
        }

        const next = await createOn(first, merchants[1].api_key, { amount_sats: 1_000 });
        assert.equal(next.json.child_index, total, 'the next invoice follows the last stored one');
      } finally {
        for (const instance of instances) await instance.stop();
        await store.drop();
      }
    });

    it('merchants who registered one Base account key under two texts share its sequence', async () => {
      const store = await database.create();
      const cloud = await startTestCloud({ env: { ...CLOUD_ENV, DATABASE_URL: store.url } });
      try {
        const merchants = [
          await signupMerchant(cloud.url, { base_xpub: BASE_XPUB }),
          await signupMerchant(cloud.url, { base_xpub: BASE_XPUB_OTHER_TEXT }),
        ];
        assert.notEqual(BASE_XPUB_OTHER_TEXT, BASE_XPUB);
        for (const m of merchants) await upgradeToPro(cloud, m.merchant_id);
        const results = await Promise.all(
          Array.from({ length: 200 }, (_, i) => createOn(cloud, merchants[i % 2].api_key, { chain: 'base', amount_usd: 5 })),
        );
        assertAllCreated(results);
        assert.equal(new Set(results.map((r) => r.json.receive_address)).size, 200);
        const indexes = results.map((r) => r.json.child_index as number).sort((a, b) => a - b);
        assert.deepEqual(indexes, Array.from({ length: 200 }, (_, i) => i));
        for (const r of results) assert.equal(r.json.receive_address, BASE_KEY.address(r.json.child_index));
      } finally {
        await cloud.stop();
        await store.drop();
      }
    });

    it('merchants who registered one fixed Base address never hold the same exact amount at once', async () => {
      const store = await database.create();
      const cloud = await startTestCloud({ env: { ...CLOUD_ENV, DATABASE_URL: store.url } });
      try {
        const merchants = [await signupMerchant(cloud.url, { base_address: BASE_ADDRESS }), await signupMerchant(cloud.url, { base_address: BASE_ADDRESS })];
        const results = await Promise.all(Array.from({ length: 40 }, (_, i) => createOn(cloud, merchants[i % 2].api_key, { chain: 'base', amount_usd: 7 })));
        assertAllCreated(results);
        assert.ok(results.every((r) => r.json.receive_address === BASE_ADDRESS));
        const nonces = results.map((r) => r.json.nonce as number).sort((a, b) => a - b);
        assert.deepEqual(nonces, Array.from({ length: 40 }, (_, i) => i + 1), 'one transfer can match one invoice only');
      } finally {
        await cloud.stop();
        await store.drop();
      }
    });

    it('the database refuses a second invoice with an address already handed out, to any merchant', async () => {
      const store = await database.create();
      const cloud = await startTestCloud({ env: { ...CLOUD_ENV, DATABASE_URL: store.url } });
      try {
        const a = await signupMerchant(cloud.url, { btc_xpub: BIP84_ZPUB });
        const b = await signupMerchant(cloud.url, { btc_xpub: BTC_XPUB_FORM });
        const created = await createOn(cloud, a.api_key, { amount_sats: 1_000 });
        // A bug that forgot the shared sequence: b's counter set back to an index a already holds.
        await cloud.database.db.updateTable('address_counters').set({ next_index: 0 }).execute();
        const again = await createOn(cloud, b.api_key, { amount_sats: 1_000 });
        assert.equal(again.status, 500);
        assert.equal(again.json.error.code, 'create_failed');
        const holders = await cloud.database.db.selectFrom('invoices').select('merchant_id').where('receive_address', '=', created.json.receive_address).execute();
        assert.deepEqual(holders, [{ merchant_id: a.merchant_id }]);
      } finally {
        await cloud.stop();
        await store.drop();
      }
    });
  });

  describe(`a fixed Base address is never a derived invoice's address, on ${database.name}`, { skip: database.skip }, () => {
    const fixedRegistrations = (cloud: RunningCloud) =>
      cloud.database.db.selectFrom('cloud_merchants').select('base_address').where('base_address', 'is not', null).execute();

    it("signup with an address a derived invoice already holds is refused with invalid_address, and stores nothing", async () => {
      const store = await database.create();
      const cloud = await startTestCloud({ env: { ...CLOUD_ENV, DATABASE_URL: store.url } });
      try {
        const owner = await signupMerchant(cloud.url, { base_xpub: BASE_XPUB });
        const held = await createOn(cloud, owner.api_key, { chain: 'base', amount_usd: 5 });
        assert.equal(held.status, 201, held.text);
        const squat = await postJson(`${cloud.url}/api/v1/signup`, { email: `squat-${Date.now()}@example.com`, shop_name: 'Squat', base_address: held.json.receive_address });
        assert.equal(squat.status, 400, squat.text);
        assert.equal(squat.json.error.code, 'invalid_address');
        assert.ok(!squat.text.includes(BASE_XPUB), 'no key in the answer');
        assert.deepEqual(await fixedRegistrations(cloud), [], 'no account was stored');
      } finally {
        await cloud.stop();
        await store.drop();
      }
    });

    it("a future child registered as a fixed address is skipped for good, and the skip is logged without the key", async () => {
      const store = await database.create();
      const lines: string[] = [];
      const cloud = await startTestCloud({ env: { ...CLOUD_ENV, DATABASE_URL: store.url }, deps: { logger: createLogger({ write: (line) => lines.push(line) }) } });
      try {
        const squatter = await signupMerchant(cloud.url, { base_address: BASE_KEY.address(1) });
        const owner = await signupMerchant(cloud.url, { base_xpub: BASE_XPUB });
        const created = [];
        for (let i = 0; i < 3; i++) created.push(await createOn(cloud, owner.api_key, { chain: 'base', amount_usd: 5 }));
        assertAllCreated(created);
        assert.deepEqual(created.map((r) => r.json.child_index), [0, 2, 3], 'index 1 is the fixed address: skipped');
        for (const r of created) assert.equal(r.json.receive_address, BASE_KEY.address(r.json.child_index));
        const skip = lines.find((line) => line.includes('skipped'));
        assert.ok(skip, 'the skip is logged');
        assert.equal(JSON.parse(skip).child_index, 1);
        assert.ok(!lines.some((line) => line.includes(BASE_XPUB)), 'no key in the log');
        // The squatter's own invoices at its address still work: the address is its fixed one, nobody else's.
        const fixed = await createOn(cloud, squatter.api_key, { chain: 'base', amount_usd: 5 });
        assert.equal(fixed.status, 201, fixed.text);
        assert.equal(fixed.json.receive_address, BASE_KEY.address(1));
      } finally {
        await cloud.stop();
        await store.drop();
      }
    });

    it('a fixed address that became a derived invoice\'s (a lost race, an older account) gets base_disabled and stores nothing', async () => {
      const store = await database.create();
      const cloud = await startTestCloud({ env: { ...CLOUD_ENV, DATABASE_URL: store.url } });
      try {
        const owner = await signupMerchant(cloud.url, { base_xpub: BASE_XPUB });
        const fixed = await signupMerchant(cloud.url, { base_address: BASE_ADDRESS });
        const held = await createOn(cloud, owner.api_key, { chain: 'base', amount_usd: 5 });
        assert.equal(held.status, 201, held.text);
        // What the race (or an account stored before the claims) leaves: the registration names the derived address.
        // As an account stored before receive methods (read from its older columns), and as one stored since.
        const methods = JSON.stringify([{ chain: 'base', xpub: null, address: held.json.receive_address }]);
        for (const receive_methods of [null, methods]) {
          await cloud.database.db.updateTable('cloud_merchants').set({ base_address: held.json.receive_address, receive_methods }).where('merchant_id', '=', fixed.merchant_id).execute();
          const refused = await createOn(cloud, fixed.api_key, { chain: 'base', amount_usd: 5 });
          assert.equal(refused.status, 400, refused.text);
          assert.equal(refused.json.error.code, 'base_disabled');
        }
        const stored = await cloud.database.db.selectFrom('invoices').select('invoice_id').where('merchant_id', '=', fixed.merchant_id).execute();
        assert.deepEqual(stored, [], 'no fixed-address invoice at the derived address');
        assert.deepEqual(await cloud.database.db.selectFrom('base_nonce_leases').select('nonce').execute(), [], 'no nonce leased');
      } finally {
        await cloud.stop();
        await store.drop();
      }
    });

    it('signups of fixed addresses racing derived invoices over the same addresses: each address goes to one side only', async () => {
      const store = await database.create();
      const instances = [await startTestCloud({ env: { ...CLOUD_ENV, DATABASE_URL: store.url } })];
      if (database.name === 'postgres') instances.push(await startTestCloud({ env: { ...CLOUD_ENV, DATABASE_URL: store.url } }));
      try {
        const owner = await signupMerchant(instances[0].url, { base_xpub: BASE_XPUB });
        await upgradeToPro(instances[0], owner.merchant_id);
        const count = 30;
        const invoices = Array.from({ length: count }, (_, i) => createOn(instances[i % instances.length], owner.api_key, { chain: 'base', amount_usd: 5 }));
        const signups = Array.from({ length: count }, (_, i) =>
          postJson(`${instances[(i + 1) % instances.length].url}/api/v1/signup`, { email: `race${i}-${Date.now()}@example.com`, shop_name: 'Race', base_address: BASE_KEY.address(i) }),
        );
        const [created, registered] = await Promise.all([Promise.all(invoices), Promise.all(signups)]);
        assertAllCreated(created);
        for (const r of registered) assert.ok(r.status === 201 || (r.status === 400 && r.json.error.code === 'invalid_address'), r.text);
        const derived = new Set(created.map((r) => r.json.receive_address as string));
        const fixed = (await fixedRegistrations(instances[0])).map((row) => row.base_address);
        assert.equal(fixed.length, registered.filter((r) => r.status === 201).length);
        assert.deepEqual(fixed.filter((address) => derived.has(address!)), [], 'no address is both');
        assert.equal(new Set(created.map((r) => r.json.child_index)).size, count);
      } finally {
        for (const instance of instances) await instance.stop();
        await store.drop();
      }
    });
  });

  describe(`a refused or failed request consumes nothing, on ${database.name}`, { skip: database.skip }, () => {
    it('listener: a create the database fails leaves the child index and the rate-limit window as they were', async () => {
      const store = await database.create();
      const listener = await startTestListener({ env: { DATABASE_URL: store.url, SERVICE_RATE_LIMIT: '4,100' } });
      try {
        await failInsertsOf(listener.database, { memo: 'fail', amountUsd: '13.13' });
        const post = (body: unknown) => postJson(`${listener.url}/invoice`, body);
        const first = await post({ amount_sats: 1_000 });
        assert.equal(first.status, 201);
        for (let i = 0; i < 3; i++) {
          const failed = await post({ amount_sats: 1_000, memo: 'fail' });
          assert.equal(failed.status, 500, failed.text);
          assert.equal(failed.json.error.code, 'create_failed');
        }
        const counter = await listener.database.db.selectFrom('address_counters').select('next_index').executeTakeFirstOrThrow();
        assert.equal(counter.next_index, 1, 'the counter is where the last stored invoice left it');
        // 4 per minute: the three failures took no slot, so three more go through, and only then 429.
        const next = [await post({ amount_sats: 1_000 }), await post({ amount_sats: 1_000 }), await post({ amount_sats: 1_000 })];
        assertAllCreated(next);
        assert.deepEqual(next.map((r) => r.json.child_index), [1, 2, 3], 'the next invoice follows the last stored one');
        assert.equal((await post({ amount_sats: 1_000 })).status, 429);
      } finally {
        await listener.stop();
        await store.drop();
      }
    });

    it('Cloud: a failed create leaves the child index, Base index, nonce, plan usage and rate-limit window as they were', async () => {
      const store = await database.create();
      const cloud = await startTestCloud({ env: { ...CLOUD_ENV, CLOUD_INVOICE_RATE_LIMIT: '4', DATABASE_URL: store.url } });
      try {
        await failInsertsOf(cloud.database, { memo: 'fail', amountUsd: '13.13' });
        const btc = await signupMerchant(cloud.url, { btc_xpub: BIP84_ZPUB });
        const xpub = await signupMerchant(cloud.url, { base_xpub: BASE_XPUB });
        const fixed = await signupMerchant(cloud.url, { base_address: BASE_ADDRESS });
        const cases = [
          { merchant: btc, ok: { amount_sats: 1_000 }, failing: { amount_sats: 1_000, memo: 'fail' } },
          { merchant: xpub, ok: { chain: 'base', amount_usd: 5 }, failing: { chain: 'base', amount_usd: 13.13 } },
          { merchant: fixed, ok: { chain: 'base', amount_usd: 13.12 }, failing: { chain: 'base', amount_usd: 13.13 } },
        ];
        const usageOf = async (apiKey: string) => (await getJson(`${cloud.url}/api/v1/me`, { 'X-Service-Api-Key': apiKey })).json.usage.invoices_this_month;
        const nonceOf = async (invoiceId: string) =>
          (await cloud.database.db.selectFrom('invoices').select('nonce').where('invoice_id', '=', invoiceId).executeTakeFirstOrThrow()).nonce;
        for (const { merchant, ok, failing } of cases) {
          const first = await createOn(cloud, merchant.api_key, ok);
          assert.equal(first.status, 201, first.text);
          for (let i = 0; i < 3; i++) {
            const failed = await createOn(cloud, merchant.api_key, failing);
            assert.equal(failed.status, 500, failed.text);
            assert.equal(failed.json.error.code, 'create_failed');
          }
          assert.equal(await usageOf(merchant.api_key), 1, 'plan usage counts stored invoices only');
          const next = [await createOn(cloud, merchant.api_key, ok), await createOn(cloud, merchant.api_key, ok), await createOn(cloud, merchant.api_key, ok)];
          assertAllCreated(next);
          if (merchant === fixed) {
            // The failed 13.13 requests leased no nonce: nonces of 13.12 continue 1, 2, 3, 4.
            assert.deepEqual(await Promise.all([first, ...next].map((r) => nonceOf(r.json.invoice_id))), [1, 2, 3, 4]);
          } else {
            assert.deepEqual([first, ...next].map((r) => r.json.child_index), [0, 1, 2, 3], 'no index skipped');
          }
          assert.equal(await usageOf(merchant.api_key), 4);
          const limited = await createOn(cloud, merchant.api_key, ok);
          assert.equal(limited.status, 429, 'four per minute: the failures took no slot');
        }
        const leases = await cloud.database.db.selectFrom('base_nonce_leases').select(['base_units', 'nonce']).execute();
        assert.deepEqual(leases.map((l) => String(l.base_units)).sort(), ['13120000', '13120000', '13120000', '13120000'], 'no nonce of the failed amount is held');
      } finally {
        await cloud.stop();
        await store.drop();
      }
    });

    it('a memo with an unpaired surrogate is refused with bad_body and consumes nothing', async () => {
      const store = await database.create();
      const listener = await startTestListener({ env: { DATABASE_URL: store.url } });
      try {
        const post = (body: string) => postJson(`${listener.url}/invoice`, body);
        assert.equal((await post('{"amount_sats":1000}')).json.child_index, 0);
        const odd = await post('{"amount_sats":1000,"memo":"a\\ud800b"}');
        assert.equal(odd.status, 400, odd.text);
        assert.equal(odd.json.error.code, 'bad_body');
        const stored = await listener.database.db.selectFrom('invoices').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
        assert.equal(Number(stored.n), 1, 'nothing was stored');
        assert.equal((await post('{"amount_sats":1000}')).json.child_index, 1);
      } finally {
        await listener.stop();
        await store.drop();
      }
    });
  });
}
