import assert from 'node:assert/strict';
import { test } from 'node:test';
import bs58check from 'bs58check';
import { ServiceError } from '../../../core/errors.ts';
import { AccountKeyError } from '../../../core/btc/account-key.ts';
import { btcMerchant, merchantAccountKey, type BtcMerchantSettings } from '../../../core/btc/btc-merchant.ts';
import type { AddressDeriver } from '../../../core/btc/receive-address-book.ts';
import { BIP84_ZPUB } from '../../helpers/listener.ts';

// BIP-84 test vector account private key (the zprv of BIP84_ZPUB).
const BIP84_ZPRV = 'zprvAdG4iTXWBoARxkkzNpNh8r6Qag3irQB8PzEMkAFeTRXxHpbF9z4QgEvBRmfvqWvGp42t42nvgGpNgYSJA9iefm1yYNZKEm7z6qUWCroSQnE';

/** The same extended key under other version bytes: zpub → vpub makes it a test-network key. */
function withVersion(extendedKey: string, version: number): string {
  const payload = Buffer.from(bs58check.decode(extendedKey));
  payload.writeUInt32BE(version, 0);
  return bs58check.encode(payload);
}
const BIP84_VPUB = withVersion(BIP84_ZPUB, 0x045f1cf6);

const platform = (testKeyNetwork: BtcMerchantSettings['testKeyNetwork'] = 'testnet'): BtcMerchantSettings => ({
  testKeyNetwork,
  explorerUrls: { mainnet: 'https://mempool.space', regtest: 'http://127.0.0.1:3000' },
});
const field = (part: string) => `receive_methods[0].${part}`;
const refused = (code: string, message: string) => (error: unknown) => error instanceof ServiceError && error.code === code && error.message === message;
const noDeriver: AddressDeriver = { derive: () => Promise.reject(new Error('not in this test')), close() {} };

test('a Bitcoin receive method is an account key: checked, stored as given, never a fixed address', () => {
  assert.deepEqual(btcMerchant.checkMethod({ xpub: BIP84_ZPUB, address: null }, field), { xpub: BIP84_ZPUB, address: null });
  assert.throws(
    () => btcMerchant.checkMethod({ xpub: BIP84_ZPUB, address: 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu' }, field),
    refused('invalid_address', 'receive_methods[0].address: a fixed address is for EVM chains only.'),
  );
  assert.throws(() => btcMerchant.checkMethod({ xpub: null, address: null }, field), refused('invalid_xpub', 'receive_methods[0].xpub is required for btc.'));
  assert.throws(
    () => btcMerchant.checkMethod({ xpub: 'xpub123', address: null }, () => 'btc_xpub'),
    refused('invalid_xpub', 'btc_xpub is not a valid extended public key (bad base58check or length).'),
  );
  assert.throws(() => btcMerchant.checkMethod({ xpub: BIP84_ZPRV, address: null }, () => 'btc_xpub'), (error: unknown) => error instanceof ServiceError && error.code === 'invalid_xpub' && /PRIVATE/.test(error.message));
});

test('Bitcoin private keys are found in any text; public keys are not', () => {
  assert.equal(btcMerchant.containsPrivateKey(BIP84_ZPRV), true);
  assert.equal(btcMerchant.containsPrivateKey(`my key: ${BIP84_ZPRV} (backup)`), true);
  assert.equal(btcMerchant.containsPrivateKey(BIP84_ZPUB), false);
  assert.equal(btcMerchant.containsPrivateKey('Shop of zprv fame'), false);
});

test('Bitcoin key ids were always the key\'s own: migration 0009 moves none', () => {
  assert.equal(btcMerchant.keyIdRename(BIP84_ZPUB), null);
});

test('a test-network key is read on the platform\'s test network; the explorer follows the invoice\'s network', () => {
  assert.equal(merchantAccountKey(platform(), BIP84_VPUB).network, 'testnet');
  assert.equal(merchantAccountKey(platform('regtest'), BIP84_VPUB).network, 'regtest');
  assert.equal(merchantAccountKey(platform('regtest'), BIP84_ZPUB).network, 'mainnet');
  // One key whatever its text or network: merchants who registered it share its address sequence.
  assert.equal(merchantAccountKey(platform('regtest'), BIP84_VPUB).keyId, merchantAccountKey(platform(), BIP84_ZPUB).keyId);
  assert.equal(btcMerchant.explorerUrl(platform(), null), 'https://mempool.space');
  assert.equal(btcMerchant.explorerUrl(platform(), 'regtest'), 'http://127.0.0.1:3000');
  assert.equal(btcMerchant.explorerUrl(platform(), 'signet'), null);
  assert.equal(btcMerchant.explorerUrl(null, null), null);
});

test('a merchant\'s Bitcoin receiver offers BTC; no key, no receiver; a stored key that no longer parses is an error', () => {
  for (const sharedDatabase of [false, true]) {
    const build = btcMerchant.receivers(platform(), { worker: () => noDeriver, sharedDatabase, maxEntries: 2 });
    assert.deepEqual(build({ xpub: BIP84_ZPUB, address: null })?.assets, ['btc']);
    assert.equal(build({ xpub: null, address: null }), null);
    assert.throws(() => build({ xpub: 'xpub123', address: null }), AccountKeyError);
  }
});
