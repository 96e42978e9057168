import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { parseAccountKey, receiveAddress, type AccountKey } from '../../../core/btc/account-key.ts';
import { createReceiveAddressBook, onDemandAddresses, startAddressDeriver, type AddressDeriver } from '../../../core/btc/receive-address-book.ts';
import { silentLogger } from '../../../core/log.ts';

const fixtures = JSON.parse(readFileSync(new URL('../../fixtures/bip84.json', import.meta.url), 'utf8'));
const mainnet = parseAccountKey(fixtures.valid[0].key);
const testnet = parseAccountKey(fixtures.valid[2].key);

/** The real worker, with every request it answered recorded. */
function recording(deriver: AddressDeriver) {
  const requests: { keyId: string; from: number; count: number }[] = [];
  let answered = 0;
  return {
    requests,
    get answered() {
      return answered;
    },
    async derive(key: AccountKey, from: number, count: number) {
      requests.push({ keyId: key.keyId, from, count });
      const addresses = await deriver.derive(key, from, count);
      answered++;
      return addresses;
    },
    close: () => deriver.close(),
  };
}

async function until(condition: () => boolean) {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 25));
  assert.ok(condition(), 'timed out');
}

describe('receive addresses derived ahead on a worker thread', () => {
  const worker = startAddressDeriver(silentLogger);
  after(() => worker.close());

  it('the worker derives the BIP-84 vector addresses, for two keys through one worker', async () => {
    const [main, test] = await Promise.all([worker.derive(mainnet, 0, 2), worker.derive(testnet, 0, 1)]);
    assert.deepEqual(main, fixtures.valid[0].addresses);
    assert.deepEqual(test, fixtures.valid[2].addresses);
  });

  it('a book serves pre-derived addresses that equal inline derivation, and derives ahead as indexes are used', async () => {
    const deriver = recording(worker);
    const book = createReceiveAddressBook(deriver, mainnet, { nextIndex: 0, ahead: 8, batch: 4 });
    await until(() => deriver.answered >= 2);
    // Up to `ahead` past the highest index used: 0-3 and 4-7, then it waits.
    assert.deepEqual(deriver.requests, [0, 4].map((from) => ({ keyId: mainnet.keyId, from, count: 4 })));
    assert.deepEqual([book.addressAt(0), book.addressAt(1)], fixtures.valid[0].addresses);
    for (let index = 0; index < 20; index++) {
      if (index > 1) assert.equal(book.addressAt(index), receiveAddress(mainnet, index));
      book.allocated(index);
    }
    await until(() => deriver.requests.some((r) => r.from >= 24));
  });

  it('Cloud on SQLite: books of several merchants share the worker, each gets its own key\'s addresses; stale entries are dropped', async () => {
    const deriver = recording(worker);
    const first = createReceiveAddressBook(deriver, mainnet, { ahead: 4, batch: 4 });
    const second = createReceiveAddressBook(deriver, testnet, { ahead: 4, batch: 4 });
    assert.equal(deriver.requests.length, 0, 'nothing is derived before the first invoice of a key');
    first.allocated(0);
    second.allocated(0);
    await until(() => deriver.answered >= 2);
    assert.equal(first.addressAt(1), receiveAddress(mainnet, 1));
    assert.equal(second.addressAt(1), receiveAddress(testnet, 1));
    // Another instance took indexes 2-99: this one jumps ahead, and what it derived earlier is dropped.
    first.allocated(100);
    await until(() => deriver.requests.some((r) => r.keyId === mainnet.keyId && r.from >= 101));
    assert.equal(first.addressAt(2), receiveAddress(mainnet, 2), 'a dropped entry is derived inline, never wrong');
    assert.equal(first.addressAt(101), receiveAddress(mainnet, 101));
  });

  it('Cloud on SQLite, ramped: a key that makes two invoices derives a few addresses ahead, not a full buffer; a busy key reaches the full batch', async () => {
    const deriver = recording(worker);
    const book = createReceiveAddressBook(deriver, mainnet, { ahead: 64, batch: 32, ramp: true });
    book.allocated(0);
    await until(() => deriver.answered >= 2);
    // One invoice so far: two addresses ahead, one at a time.
    assert.deepEqual(deriver.requests, [1, 2].map((from) => ({ keyId: mainnet.keyId, from, count: 1 })));
    assert.equal(book.addressAt(1), receiveAddress(mainnet, 1));
    book.allocated(1);
    const derivedCount = () => deriver.requests.reduce((sum, r) => sum + r.count, 0);
    // Settled once every request is answered (a refill follows an answer at once): four ahead of index 1, two at a time.
    await until(() => derivedCount() >= 6 && deriver.answered === deriver.requests.length);
    assert.equal(derivedCount(), 6);
    for (let index = 2; index < 40; index++) {
      assert.equal(book.addressAt(index), receiveAddress(mainnet, index));
      book.allocated(index);
    }
    await until(() => deriver.requests.some((r) => r.count === 32));
  });

  it('Cloud on Postgres: one address at a time on the worker, nothing derived ahead', async () => {
    const deriver = recording(worker);
    const addresses = onDemandAddresses(deriver, testnet);
    assert.equal(await addresses.addressAt(0), fixtures.valid[2].addresses[0]);
    assert.equal(await addresses.addressAt(7), receiveAddress(testnet, 7));
    assert.deepEqual(deriver.requests, [
      { keyId: testnet.keyId, from: 0, count: 1 },
      { keyId: testnet.keyId, from: 7, count: 1 },
    ]);
  });

  it('a failed worker: books derive on request and stay right', async () => {
    const broken = startAddressDeriver(silentLogger);
    broken.close();
    await assert.rejects(broken.derive(mainnet, 0, 1));
    const book = createReceiveAddressBook(broken, mainnet, { nextIndex: 0 });
    book.allocated(0);
    assert.deepEqual([book.addressAt(0), book.addressAt(1)], fixtures.valid[0].addresses);
    assert.equal(await onDemandAddresses(broken, mainnet).addressAt(1), fixtures.valid[0].addresses[1]);
  });
});
