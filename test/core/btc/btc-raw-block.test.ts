import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as bitcoin from 'bitcoinjs-lib';
import { randomBytes } from 'node:crypto';
import { parseRawBlock, parseRawTx } from '../../../core/btc/raw-block.ts';
import { LocalBtcChain } from '../../../sandbox/local-btc-chain.ts';

// The mainnet genesis block, byte for byte (header, one coinbase transaction).
const GENESIS_HEX =
  '0100000000000000000000000000000000000000000000000000000000000000000000003ba3edfd7a7b12b27ac72c3e67768f617fc81bc3888a51323a9fb8aa4b1e5e4a29ab5f49ffff001d1dac2b7c' +
  '01' +
  '01000000010000000000000000000000000000000000000000000000000000000000000000ffffffff4d04ffff001d0104455468652054696d65732030332f4a616e2f32303039204368616e63656c6c6f72206f6e206272696e6b206f66207365636f6e64206261696c6f757420666f722062616e6b73ffffffff0100f2052a01000000434104678afdb0fe5548271967f1a67130b7105cd6a828e03909a67962e0ea1f61deb649f6bc3f4cef38c4f35504e51ec112de5c384df7ba0b8d578a4c702b6bf11d5fac00000000';

test('the genesis block parses to its known hash, txid and output', () => {
  const block = parseRawBlock(Buffer.from(GENESIS_HEX, 'hex'), '000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f', 0);
  assert.equal(block.prevHash, '0'.repeat(64));
  assert.equal(block.time, 1231006505);
  assert.equal(block.txs.length, 1);
  assert.equal(block.txs[0].txid, '4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b');
  assert.equal(block.txs[0].outputs[0].value, 5_000_000_000n);
  assert.match(block.txs[0].outputs[0].script, /^4104678afdb0fe55.*ac$/);
});

test('segwit blocks of 1 to 6 transactions parse as bitcoinjs reads them; tampering is refused', () => {
  const chain = new LocalBtcChain();
  const payee = () => ({ address: bitcoin.payments.p2wpkh({ hash: randomBytes(20), network: bitcoin.networks.regtest }).address!, value: 5_000n });
  for (let n = 0; n <= 5; n++) {
    for (let i = 0; i < n; i++) chain.pay([payee(), payee()]);
    const [mined] = chain.mine(1);
    const raw = mined.block.toBuffer();
    const ours = parseRawBlock(raw, mined.hash, mined.height);
    const theirs = bitcoin.Block.fromBuffer(raw);
    assert.equal(ours.prevHash, Buffer.from(theirs.prevHash!).reverse().toString('hex'));
    assert.deepEqual(
      ours.txs,
      theirs.transactions!.map((tx) => ({ txid: tx.getId(), outputs: tx.outs.map((o) => ({ script: Buffer.from(o.script).toString('hex'), value: o.value })) })),
    );
    for (const tx of theirs.transactions!) assert.deepEqual(parseRawTx(tx.toHex()), ours.txs.find((t) => t.txid === tx.getId()));
    if (n >= 1) {
      // Change one output value: the txid changes, so the merkle root no longer matches the header.
      const tampered = Buffer.from(raw);
      // The value (8 bytes) and script length (1 byte) come just before the script.
      const valueAt = tampered.indexOf(Buffer.from(theirs.transactions![1].outs[0].script)) - 9;
      tampered.writeBigUInt64LE(1n, valueAt);
      assert.throws(() => parseRawBlock(tampered, mined.hash, mined.height), /merkle root/);
      assert.throws(() => parseRawBlock(raw.subarray(0, raw.length - 1), mined.hash, mined.height), /truncated|trailing/);
    }
  }
});

test('a block over 4,000,000 bytes is refused before parsing, whatever cap its answer came under', () => {
  // The genesis block with padding after it: its header and transaction are valid, its size is not.
  const padded = Buffer.concat([Buffer.from(GENESIS_HEX, 'hex'), Buffer.alloc(4_000_001 - GENESIS_HEX.length / 2)]);
  assert.throws(() => parseRawBlock(padded, '000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f', 0), /is 4000001 bytes, over the 4000000 a block may weigh/);
});
