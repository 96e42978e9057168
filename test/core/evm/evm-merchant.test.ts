import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import bs58check from 'bs58check';
import { HDNodeWallet } from 'ethers';
import { assetIdOf } from '../../../shared/index.ts';
import { ServiceError } from '../../../core/errors.ts';
import type { AddressDeriver } from '../../../core/btc/receive-address-book.ts';
import { base as baseChain } from '../../../core/evm/chains/base.ts';
import { ethereum } from '../../../core/evm/chains/ethereum.ts';
import type { EvmMerchantSettings } from '../../../core/evm/evm-merchant.ts';
import { parseEvmAccountXpub } from '../../../core/evm/keys.ts';

const wallet = HDNodeWallet.fromPhrase('test test test test test test test test test test test junk', undefined, "m/44'/60'/0'");
const XPUB = wallet.neuter().extendedKey;
const ADDRESS = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const base = baseChain.merchant;
const eth = ethereum.merchant;

/** The same account key with other metadata (parent fingerprint, child number): other text, same key. */
function withOtherMetadata(extendedKey: string): string {
  const payload = Buffer.from(bs58check.decode(extendedKey));
  payload.writeUInt32BE(0xdeadbeef, 5);
  payload.writeUInt32BE(0x80000007, 9);
  return bs58check.encode(payload);
}

const field = (part: string) => `receive_methods[1].${part}`;
const refused = (code: string, message: string) => (error: unknown) => error instanceof ServiceError && error.code === code && error.message === message;
const noDeriver: AddressDeriver = { derive: () => Promise.reject(new Error('not in this test')), close() {} };
const parts = { worker: () => noDeriver, sharedDatabase: false, maxEntries: 10 };
const baseSettings: EvmMerchantSettings = {
  chain: 'base',
  chainId: 8453,
  rpcUrls: ['http://127.0.0.1:9'],
  minSources: 1,
  wsUrl: null,
  blockTimeMs: 2_000,
  confirmations: 3,
  finality: 'count',
  tokens: new Map([
    ['usdc', '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'],
    ['usdt', '0xfde4C96c8593536E31F229EA8f37b2ADa2699bb2'],
  ]),
  explorerUrl: 'https://explorer.example',
};

test('an EVM receive method: an account xpub, an EIP-55 address or both, each checked with its field named', () => {
  assert.deepEqual(base.checkMethod({ xpub: XPUB, address: ADDRESS }, field), { xpub: XPUB, address: ADDRESS });
  assert.deepEqual(base.checkMethod({ xpub: null, address: ` ${ADDRESS} ` }, field), { xpub: null, address: ADDRESS });
  assert.throws(() => base.checkMethod({ xpub: 'xpub123', address: null }, () => 'base_xpub'), refused('invalid_xpub', 'base_xpub: not a valid extended public key.'));
  assert.throws(
    () => base.checkMethod({ xpub: null, address: ADDRESS.toLowerCase() }, field),
    refused('invalid_address', `receive_methods[1].address: give the EIP-55 checksummed form: ${ADDRESS}.`),
  );
  assert.throws(
    () => base.checkMethod({ xpub: wallet.extendedKey, address: null }, field),
    refused('invalid_xpub', 'receive_methods[1].xpub: an extended PRIVATE key was given; supply the account xpub (public key) only.'),
  );
  // The xpub is judged first.
  assert.throws(() => eth.checkMethod({ xpub: 'xpub123', address: '0x1' }, field), (error: unknown) => error instanceof ServiceError && error.code === 'invalid_xpub');
});

test('EVM extended private keys are found in any text; public keys are not', () => {
  assert.equal(base.containsPrivateKey(wallet.extendedKey), true);
  assert.equal(base.containsPrivateKey(`backup: ${wallet.extendedKey}.`), true);
  assert.equal(base.containsPrivateKey(XPUB), false);
  assert.equal(base.containsPrivateKey(ADDRESS), false);
});

test('migration 0009 moves a stored xpub from the id of its text to the id of its key: two texts of one key, one id', () => {
  const other = withOtherMetadata(XPUB);
  const textId = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 16);
  assert.deepEqual(base.keyIdRename(XPUB), { from: textId(XPUB), to: parseEvmAccountXpub(XPUB).keyId });
  assert.deepEqual(base.keyIdRename(other), { from: textId(other), to: parseEvmAccountXpub(XPUB).keyId });
  assert.notEqual(textId(other), textId(XPUB));
  assert.equal(base.keyIdRename('xpub123'), null);
});

test('a merchant\'s EVM receiver: USDC per xpub, USDT only at a fixed address', () => {
  const build = base.receivers(baseSettings, parts);
  assert.deepEqual(build({ xpub: XPUB, address: null })?.assets, [assetIdOf('base', 'USDC')]);
  assert.deepEqual(build({ xpub: null, address: ADDRESS })?.assets, [assetIdOf('base', 'USDC'), assetIdOf('base', 'USDT')]);
  assert.deepEqual(build({ xpub: XPUB, address: ADDRESS })?.assets, [assetIdOf('base', 'USDC'), assetIdOf('base', 'USDT')]);
});

test('the checkout links to the platform\'s explorer of the chain, else to the chain\'s mainnet explorer', () => {
  assert.equal(base.explorerUrl(baseSettings, '8453'), 'https://explorer.example');
  assert.equal(eth.explorerUrl(null, '1'), 'https://etherscan.io');
});
