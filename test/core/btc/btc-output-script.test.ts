import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import * as bitcoin from 'bitcoinjs-lib';
import { outputScriptHex } from '../../../core/btc/output-script.ts';

test('output scripts of addresses: BIP-173 and BIP-350 vectors, and the same as bitcoinjs for every kind', () => {
  const main = bitcoin.networks.bitcoin;
  // BIP-173 (P2WPKH) and BIP-350 (P2TR) valid-address vectors, mainnet.
  assert.equal(outputScriptHex('BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4', main), '0014751e76e8199196d454941c45d1b3a323f1433bd6');
  assert.equal(
    outputScriptHex('bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0', main),
    '512079be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798',
  );
  for (const network of [main, bitcoin.networks.testnet, bitcoin.networks.regtest]) {
    const addresses = [
      bitcoin.payments.p2wpkh({ hash: randomBytes(20), network }).address!,
      bitcoin.payments.p2wsh({ hash: randomBytes(32), network }).address!,
      bitcoin.payments.p2pkh({ hash: randomBytes(20), network }).address!,
      bitcoin.payments.p2sh({ hash: randomBytes(20), network }).address!,
    ];
    for (const address of addresses) {
      assert.equal(outputScriptHex(address, network), Buffer.from(bitcoin.address.toOutputScript(address, network)).toString('hex'), address);
    }
  }
  // An address of another network is refused, as bitcoinjs refuses it.
  const testnetAddress = bitcoin.payments.p2wpkh({ hash: randomBytes(20), network: bitcoin.networks.testnet }).address!;
  assert.throws(() => outputScriptHex(testnetAddress, main));
});
