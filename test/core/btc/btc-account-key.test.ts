import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { derivationPath, parseAccountKey, receiveAddress, containsExtendedPrivateKey } from '../../../core/btc/account-key.ts';
import { satsToBtc } from '../../../core/btc/amount.ts';
import { bip21Uri } from '../../../core/btc/bip21.ts';

const fixtures = JSON.parse(readFileSync(new URL('../../fixtures/bip84.json', import.meta.url), 'utf8'));

describe('BIP-84 account keys (known answers)', () => {
  for (const vector of fixtures.valid) {
    it(`derives the vector addresses: ${vector.description}`, () => {
      const key = parseAccountKey(vector.key);
      assert.equal(key.network, vector.network);
      vector.addresses.forEach((address: string, index: number) => {
        assert.equal(receiveAddress(key, index), address);
        assert.equal(derivationPath(key, index), vector.paths[index]);
      });
    });
  }
  for (const vector of fixtures.invalid) {
    it(`refuses ${vector.description}`, () => {
      assert.throws(() => parseAccountKey(vector.key), (error: Error) => error.message.includes(vector.error));
    });
  }
  it('spots private keys inside any text, and not public ones', () => {
    for (const vector of fixtures.invalid.filter((v: { error: string }) => v.error === 'PRIVATE')) {
      assert.equal(containsExtendedPrivateKey(`prefix ${vector.key} suffix`), true);
    }
    for (const vector of fixtures.valid) assert.equal(containsExtendedPrivateKey(vector.key), false);
  });
  it('the same key material in xpub and zpub form shares one key id (one index sequence)', () => {
    assert.equal(parseAccountKey(fixtures.valid[0].key).keyId, parseAccountKey(fixtures.valid[1].key).keyId);
  });
  it('BTC_NETWORK may move a test key to regtest but never a mainnet key', () => {
    const regtest = parseAccountKey(fixtures.valid[2].key, 'regtest');
    assert.match(receiveAddress(regtest, 0), /^bcrt1q/);
    assert.throws(() => parseAccountKey(fixtures.valid[0].key, 'testnet'), /mainnet key/);
  });
});

describe('amounts and BIP-21', () => {
  it('converts sats to exact 8-decimal BTC strings', () => {
    assert.equal(satsToBtc(1), '0.00000001');
    assert.equal(satsToBtc(1000), '0.00001000');
    assert.equal(satsToBtc(100_000_000), '1.00000000');
    assert.equal(satsToBtc(2_100_000_000_000_000), '21000000.00000000');
    assert.equal(satsToBtc(123_456_789), '1.23456789');
  });
  it('builds the BIP-21 examples', () => {
    // BIP-21: bitcoin:175tWpb8K1S7NmH4Zx6rewF9WQrcZv245W?amount=20.3&label=Luke-Jr
    assert.equal(bip21Uri('175tWpb8K1S7NmH4Zx6rewF9WQrcZv245W', '20.30000000', 'Luke-Jr'), 'bitcoin:175tWpb8K1S7NmH4Zx6rewF9WQrcZv245W?amount=20.3&label=Luke-Jr');
    assert.equal(bip21Uri('bc1qx', '50.00000000'), 'bitcoin:bc1qx?amount=50');
    assert.equal(bip21Uri('bc1qx', '0.00001000', "Order #42 & co's"), "bitcoin:bc1qx?amount=0.00001&label=Order%20%2342%20%26%20co%27s");
  });
});
