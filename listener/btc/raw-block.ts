import * as bitcoin from 'bitcoinjs-lib';
import type { SourceBlock, SourceTx } from './chain-source.ts';

const hex = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');

export function parseRawTx(raw: Uint8Array | string): SourceTx {
  const tx = typeof raw === 'string' ? bitcoin.Transaction.fromHex(raw) : bitcoin.Transaction.fromBuffer(raw);
  return txOutputs(tx);
}

/** Parses a serialized block (Esplora /block/:hash/raw, Core getblock verbosity 0) and checks it is the block asked for. */
export function parseRawBlock(raw: Uint8Array, expectedHash: string, height: number): SourceBlock {
  const block = bitcoin.Block.fromBuffer(raw);
  const hash = block.getId();
  if (hash !== expectedHash) throw new Error(`block ${expectedHash} came back as ${hash}`);
  // The header hash commits to the merkle root, which commits to every txid: a backend cannot slip in or hide a transaction.
  if (!block.checkTxRoots()) throw new Error(`block ${hash} transactions do not match its merkle root`);
  return {
    hash,
    height,
    prevHash: Buffer.from(block.prevHash!).reverse().toString('hex'),
    time: block.timestamp,
    txs: block.transactions!.map(txOutputs),
  };
}

function txOutputs(tx: bitcoin.Transaction): SourceTx {
  return { txid: tx.getId(), outputs: tx.outs.map((out) => ({ script: hex(out.script), value: out.value })) };
}
