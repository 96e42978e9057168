import { randomBytes } from 'node:crypto';
import { BIP32Factory, type BIP32Interface } from 'bip32';
import * as bitcoin from 'bitcoinjs-lib';
import * as ecc from 'tiny-secp256k1';

const bip32 = BIP32Factory(ecc);

export interface Utxo {
  txid: string;
  vout: number;
  value: bigint;
}

/**
 * The sandbox's own funded key: one regtest P2WPKH address that receives coinbase rewards and
 * change, and signs real segwit spends. Regtest only, so its coins are worthless by construction.
 */
export class RegtestWallet {
  readonly network = bitcoin.networks.regtest;
  readonly address: string;
  readonly script: Uint8Array;
  private readonly key: BIP32Interface;
  private readonly scriptCode: Uint8Array;

  constructor(seed: Uint8Array = randomBytes(32)) {
    this.key = bip32.fromSeed(seed, this.network).derivePath("m/84'/1'/0'/0/0");
    const p2wpkh = bitcoin.payments.p2wpkh({ pubkey: this.key.publicKey, network: this.network });
    this.address = p2wpkh.address!;
    this.script = p2wpkh.output!;
    // BIP-143: a P2WPKH input signs the P2PKH script of its key hash.
    this.scriptCode = bitcoin.payments.p2pkh({ hash: p2wpkh.hash!, network: this.network }).output!;
  }

  /** Builds and signs a transaction spending `inputs` to `outputs`, sending what is left minus `fee` back as change. */
  buildSpend(inputs: Utxo[], outputs: { script: Uint8Array; value: bigint }[], fee: bigint): bitcoin.Transaction {
    const tx = new bitcoin.Transaction();
    tx.version = 2;
    for (const input of inputs) tx.addInput(Buffer.from(input.txid, 'hex').reverse(), input.vout, 0xfffffffd);
    for (const output of outputs) tx.addOutput(output.script, output.value);
    const totalIn = inputs.reduce((sum, u) => sum + u.value, 0n);
    const totalOut = outputs.reduce((sum, o) => sum + o.value, 0n);
    const change = totalIn - totalOut - fee;
    if (change < 0n) throw new Error(`insufficient funds: have ${totalIn} sats, need ${totalOut + fee}`);
    // Dust change would be unrelayable on a real node; leave it to the miner instead.
    if (change >= 546n) tx.addOutput(this.script, change);
    inputs.forEach((input, i) => {
      const hash = tx.hashForWitnessV0(i, this.scriptCode, input.value, bitcoin.Transaction.SIGHASH_ALL);
      const signature = bitcoin.script.signature.encode(this.key.sign(hash), bitcoin.Transaction.SIGHASH_ALL);
      tx.setWitness(i, [signature, this.key.publicKey]);
    });
    return tx;
  }
}
