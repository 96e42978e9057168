import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HDNodeWallet } from 'ethers';
import { KeyError, parseChecksummedAddress, parseEvmAccountXpub } from '../../../core/evm/keys.ts';
import { parseEvmTokens } from '../../../core/evm/tokens.ts';
import { evmSpecs } from '../../helpers/evm-chain.ts';

const ABANDON = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const JUNK = 'test test test test test test test test test test test junk';

function accountXpub(mnemonic: string): string {
  return HDNodeWallet.fromPhrase(mnemonic, undefined, "m/44'/60'/0'").neuter().extendedKey;
}

// Known answers: BIP-44 Ethereum address of the abandon…about mnemonic (published by wallets
// and ethers' tests), and the default accounts anvil and hardhat print for test…junk.
const vectors: [string, number, string][] = [
  [ABANDON, 0, '0x9858EfFD232B4033E47d90003D41EC34EcaEda94'],
  [JUNK, 0, '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'],
  [JUNK, 1, '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'],
  [JUNK, 2, '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC'],
];

for (const [mnemonic, index, address] of vectors) {
  test(`account xpub child 0/${index} of "${mnemonic.split(' ')[0]}…" is ${address}`, () => {
    const key = parseEvmAccountXpub(accountXpub(mnemonic));
    assert.equal(key.address(index), address);
    assert.equal(key.derivationPath(index), `m/44'/60'/0'/0/${index}`);
  });
}

test('an extended private key is refused', () => {
  const xprv = HDNodeWallet.fromPhrase(ABANDON, undefined, "m/44'/60'/0'").extendedKey;
  assert.match(xprv, /^xprv/);
  assert.throws(() => parseEvmAccountXpub(xprv), (e: unknown) => e instanceof KeyError && /PRIVATE/.test(e.message));
});

test('an xpub at another depth than the account level is refused', () => {
  const deeper = HDNodeWallet.fromPhrase(ABANDON, undefined, "m/44'/60'/0'/0").neuter().extendedKey;
  assert.throws(() => parseEvmAccountXpub(deeper), /depth 4/);
  assert.throws(() => parseEvmAccountXpub('xpub-not-a-key'), /not a valid extended public key/);
});

// EIP-55's own examples.
const eip55 = ['0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359', '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB', '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb'];

test('EIP-55 checksummed addresses are accepted as given', () => {
  for (const address of eip55) assert.equal(parseChecksummedAddress(address), address);
});

test('a wrong checksum, a lowercase address or a short one is refused', () => {
  assert.throws(() => parseChecksummedAddress('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD'), /checksum/);
  assert.throws(() => parseChecksummedAddress(eip55[0].toLowerCase()), /0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed/);
  assert.throws(() => parseChecksummedAddress('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeA'), KeyError);
});

test('MERCHANT_EVM_TOKENS: known symbols per chain, overrides, and errors', () => {
  assert.deepEqual([...parseEvmTokens('usdc', 8453, evmSpecs()[0].knownTokens[8453])], [['usdc', '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913']]);
  assert.deepEqual([...parseEvmTokens('usdc, usdt', 8453, evmSpecs()[0].knownTokens[8453]).keys()], ['usdc', 'usdt']);
  assert.deepEqual([...parseEvmTokens(`usdt:${eip55[0]}`, 31337)], [['usdt', eip55[0]]]);
  assert.throws(() => parseEvmTokens('usdt', 84532, evmSpecs()[0].knownTokens[84532]), /usdt:0x<contract>/);
  assert.throws(() => parseEvmTokens('dai', 8453), /unknown token/);
  assert.throws(() => parseEvmTokens('usdc,usdc', 8453, evmSpecs()[0].knownTokens[8453]), /twice/);
});
