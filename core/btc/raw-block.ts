import { hash as digest } from 'node:crypto';
import { MAX_RAW_BLOCK_BYTES } from './answer-caps.ts';
import type { SourceBlock, SourceOutput, SourceTx } from './chain-source.ts';

/**
 * A reader of serialized blocks and transactions that keeps only what the watcher needs (txids and
 * outputs) and hashes with node:crypto. bitcoinjs's full Block.fromBuffer built every input and
 * witness as objects and hashed each transaction three times in JavaScript: most of the time and
 * the memory of a 4,000-transaction block pass.
 */
class Reader {
  pos = 0;
  constructor(readonly buf: Buffer) {}

  need(n: number): void {
    if (this.pos + n > this.buf.length) throw new Error('truncated block or transaction');
  }

  skip(n: number): void {
    this.need(n);
    this.pos += n;
  }

  varint(): number {
    this.need(1);
    const first = this.buf[this.pos++];
    if (first < 0xfd) return first;
    const size = first === 0xfd ? 2 : first === 0xfe ? 4 : 8;
    this.need(size);
    const value = size === 8 ? Number(this.buf.readBigUInt64LE(this.pos)) : this.buf.readUIntLE(this.pos, size);
    this.pos += size;
    if (!Number.isSafeInteger(value) || value > this.buf.length) throw new Error('implausible count in block or transaction');
    return value;
  }
}

/** Double SHA-256 with node:crypto's one-shot hash: no hash objects to build and collect, 8,000 times a block. */
function sha256d(data: Uint8Array): Buffer {
  return digest('sha256', digest('sha256', data, 'buffer'), 'buffer');
}

const displayHex = (hash: Uint8Array) => Buffer.from(hash).reverse().toString('hex');

/** One transaction at the reader's position; the txid hashes the serialization without witness data. */
function readTx(r: Reader): { tx: SourceTx; txidBytes: Buffer } {
  const { buf } = r;
  const start = r.pos;
  r.skip(4); // version
  const segwit = buf[r.pos] === 0 && buf[r.pos + 1] === 1;
  if (segwit) r.skip(2);
  const bodyStart = r.pos;
  const inputs = r.varint();
  for (let i = 0; i < inputs; i++) {
    r.skip(36); // previous output
    r.skip(r.varint()); // script
    r.skip(4); // sequence
  }
  const outputCount = r.varint();
  const outputs: SourceOutput[] = [];
  for (let i = 0; i < outputCount; i++) {
    r.need(8);
    const value = buf.readBigUInt64LE(r.pos);
    r.pos += 8;
    const length = r.varint();
    r.need(length);
    outputs.push({ script: buf.toString('hex', r.pos, r.pos + length), value });
    r.pos += length;
  }
  const bodyEnd = r.pos;
  if (segwit) {
    for (let i = 0; i < inputs; i++) {
      const items = r.varint();
      for (let j = 0; j < items; j++) r.skip(r.varint());
    }
  }
  const lockTime = r.pos;
  r.skip(4);
  // Without witness data the serialization is one stretch of the buffer; with it, three pieces joined.
  const txidBytes = segwit
    ? sha256d(Buffer.concat([buf.subarray(start, start + 4), buf.subarray(bodyStart, bodyEnd), buf.subarray(lockTime, lockTime + 4)]))
    : sha256d(buf.subarray(start, r.pos));
  return { tx: { txid: displayHex(txidBytes), outputs }, txidBytes };
}

/** The merkle root of txids laid end to end (32 bytes each): each pair is a contiguous 64 bytes, hashed without copying. */
function merkleRoot(txids: Buffer): Buffer {
  let level = txids;
  while (level.length > 32) {
    const count = level.length / 32;
    // An odd level pairs its last hash with itself.
    if (count % 2) level = Buffer.concat([level, level.subarray(level.length - 32)]);
    const next = Buffer.allocUnsafe(Math.ceil(count / 2) * 32);
    for (let i = 0; i < next.length; i += 32) sha256d(level.subarray(i * 2, i * 2 + 64)).copy(next, i);
    level = next;
  }
  return level;
}

export function parseRawTx(raw: Uint8Array | string): SourceTx {
  const r = new Reader(typeof raw === 'string' ? Buffer.from(raw, 'hex') : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength));
  const { tx } = readTx(r);
  if (r.pos !== r.buf.length) throw new Error('trailing bytes after transaction');
  return tx;
}

/**
 * Parses a serialized block (Esplora /block/:hash/raw, Core getblock verbosity 0) and checks it is
 * the block asked for. The header hash commits to the merkle root, which commits to every txid and
 * so to every output: a backend cannot slip in, change or hide an output. (Witness data is not
 * read, so the witness commitment is not needed.)
 */
export function parseRawBlock(raw: Uint8Array, expectedHash: string, height: number): SourceBlock {
  // Whatever cap its answer was read under (a block in hex comes in an envelope), no valid block is larger.
  if (raw.byteLength > MAX_RAW_BLOCK_BYTES) throw new Error(`block ${expectedHash} is ${raw.byteLength} bytes, over the ${MAX_RAW_BLOCK_BYTES} a block may weigh`);
  const r = new Reader(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength));
  r.need(80);
  const header = r.buf.subarray(0, 80);
  const hash = displayHex(sha256d(header));
  if (hash !== expectedHash) throw new Error(`block ${expectedHash} came back as ${hash}`);
  r.pos = 80;
  const count = r.varint();
  if (count === 0) throw new Error(`block ${hash} has no transactions`);
  const txs: SourceTx[] = [];
  const txids: Buffer[] = [];
  for (let i = 0; i < count; i++) {
    const { tx, txidBytes } = readTx(r);
    txs.push(tx);
    txids.push(txidBytes);
  }
  if (r.pos !== r.buf.length) throw new Error(`block ${hash} has trailing bytes`);
  if (!merkleRoot(Buffer.concat(txids)).equals(header.subarray(36, 68))) throw new Error(`block ${hash} transactions do not match its merkle root`);
  return { hash, height, prevHash: displayHex(header.subarray(4, 36)), time: header.readUInt32LE(68), txs };
}
