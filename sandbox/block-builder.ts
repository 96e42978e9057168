import * as bitcoin from 'bitcoinjs-lib';

const REGTEST_BITS = 0x207fffff;
const WITNESS_COMMIT_HEADER = Uint8Array.from([0x6a, 0x24, 0xaa, 0x21, 0xa9, 0xed]);

/**
 * A coinbase paying `value` to `payout`: the BIP-34 height push, then `tag` so that a fork's
 * coinbase at the same height gets a new txid, and a placeholder for the witness commitment.
 */
export function coinbaseTransaction(height: number, tag: number, payout: Uint8Array, value: bigint): bitcoin.Transaction {
  const tx = new bitcoin.Transaction();
  tx.version = 2;
  const scriptSig = bitcoin.script.compile([bitcoin.script.number.encode(height), bitcoin.script.number.encode(tag)]);
  tx.addInput(new Uint8Array(32), 0xffffffff, 0xffffffff, scriptSig);
  tx.setWitness(0, [new Uint8Array(32)]);
  tx.addOutput(payout, value);
  tx.addOutput(new Uint8Array(38), 0n);
  return tx;
}

/**
 * A real block of `txs` (coinbase first, from coinbaseTransaction): witness commitment, merkle root
 * and regtest proof of work, so any parser sees what a node would serve.
 */
export function assembleBlock(txs: bitcoin.Transaction[], prevHash: Uint8Array, timestamp: number): bitcoin.Block {
  // Coinbase wtxid counts as zero, so the commitment can be computed before it is written in.
  const witnessRoot = bitcoin.Block.calculateMerkleRoot(txs, true);
  txs[0].outs[1].script = Buffer.concat([WITNESS_COMMIT_HEADER, witnessRoot]);
  const block = new bitcoin.Block();
  block.version = 0x20000000;
  block.prevHash = prevHash;
  block.merkleRoot = bitcoin.Block.calculateMerkleRoot(txs);
  block.timestamp = timestamp;
  block.bits = REGTEST_BITS;
  block.transactions = txs;
  while (!block.checkProofOfWork()) block.nonce++;
  return block;
}
