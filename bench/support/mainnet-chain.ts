/**
 * A chain shaped like Bitcoin mainnet for bench/mainnet-shape.ts: a mempool of 100,000 transactions,
 * new ones arriving, and blocks of about 1.5 MB taken from it. Transactions are real serialisations
 * (segwit inputs with signature-sized witnesses, P2WPKH/P2TR/P2WSH/P2SH/P2PKH outputs, now and then
 * an OP_RETURN) of realistic sizes, unsigned and spending made-up outputs: nothing here checks
 * signatures. Blocks follow regtest's consensus rules from their own genesis block (proof of work,
 * bits, rising times), so the listener's header chain verifies them as it would real ones, under
 * regtest's rules. It implements EsploraChain, so the sandbox's own Esplora and WebSocket code serves it.
 */
import { createHash, randomBytes, randomInt } from 'node:crypto';
import * as bitcoin from 'bitcoinjs-lib';
import { assembleBlock, coinbaseTransaction } from '../../sandbox/block-builder.ts';
import type { ChainBlock, ChainEvent, EsploraChain, KnownTx, ScriptHistory } from '../../sandbox/esplora-api.ts';

interface StoredTx {
  raw: Buffer;
  fee: bigint;
  height: number | null;
}

export interface MainnetChainOptions {
  mempoolSize?: number;
  /** Raw bytes a block aims at. */
  blockBytes?: number;
  onProgress?: (text: string) => void;
}

const SUBSIDY = 312_500_000n;
const MIN_OUTPUT = 546;

/** Weighted choice: `[weight, value]` pairs. */
function pick<T>(choices: [number, T][]): T {
  let roll = Math.random() * choices.reduce((sum, [weight]) => sum + weight, 0);
  for (const [weight, value] of choices) {
    roll -= weight;
    if (roll <= 0) return value;
  }
  return choices[choices.length - 1][1];
}

const INPUT_COUNTS: [number, number][] = [[60, 1], [24, 2], [8, 3], [5, 5], [3, 12]];
const OUTPUT_COUNTS: [number, number][] = [[12, 1], [68, 2], [10, 3], [7, 6], [3, 25]];
const script = (...parts: (number[] | Buffer)[]) => Buffer.concat(parts.map((part) => Buffer.from(part)));
// The standard templates by share of mainnet outputs (roughly): P2WPKH, P2TR, P2SH, P2PKH, P2WSH.
const OUTPUT_SCRIPTS: [number, () => Uint8Array][] = [
  [45, () => script([0x00, 0x14], randomBytes(20))],
  [25, () => script([0x51, 0x20], randomBytes(32))],
  [10, () => script([0xa9, 0x14], randomBytes(20), [0x87])],
  [10, () => script([0x76, 0xa9, 0x14], randomBytes(20), [0x88, 0xac])],
  [10, () => script([0x00, 0x20], randomBytes(32))],
];

const varint = (n: number) => (n < 0xfd ? Buffer.from([n]) : Buffer.from([0xfd, n & 0xff, n >> 8]));
const uint32 = (n: number) => {
  const buf = Buffer.alloc(4);
  buf.writeUInt32LE(n);
  return buf;
};
const sha256d = (data: Buffer) => createHash('sha256').update(createHash('sha256').update(data).digest()).digest();

interface Synthetic {
  txid: string;
  raw: Buffer;
  fee: bigint;
}

/**
 * A transaction as wallets on mainnet send them (segwit v0 serialisation, BIP-144), with a fee of
 * 1-40 sat/vB. Serialised here rather than through bitcoinjs, which takes ten times as long to
 * build the 100,000 of a mempool; `first` replaces the first output (a payment).
 */
function syntheticTransaction(first?: { script: Uint8Array; value: bigint }): Synthetic {
  const inputCount = pick(INPUT_COUNTS);
  const inputs: Buffer[] = [];
  const witnesses: Buffer[] = [];
  for (let i = 0; i < inputCount; i++) {
    inputs.push(randomBytes(32), uint32(randomInt(4)), Buffer.from([0]), uint32(0xfffffffd));
    // A DER signature with its sighash byte (71-72 bytes) and a compressed public key.
    const signature = randomBytes(71 + randomInt(2));
    witnesses.push(Buffer.from([2, signature.length]), signature, Buffer.from([33, 2 + randomInt(2)]), randomBytes(32));
  }
  const outs: { script: Uint8Array; value: bigint }[] = [];
  const outputCount = pick(OUTPUT_COUNTS);
  for (let i = 0; i < outputCount; i++) outs.push(i === 0 && first ? first : { script: pick(OUTPUT_SCRIPTS)(), value: BigInt(MIN_OUTPUT + randomInt(50_000_000)) });
  if (Math.random() < 0.03) outs.push({ script: script([0x6a, 40], randomBytes(40)), value: 0n });
  const outputs = outs.flatMap(({ script: bytes, value }) => {
    const amount = Buffer.alloc(8);
    amount.writeBigUInt64LE(value);
    return [amount, varint(bytes.length), Buffer.from(bytes)];
  });
  const version = uint32(2);
  const body = Buffer.concat([varint(inputCount), ...inputs, varint(outs.length), ...outputs]);
  const locktime = uint32(0);
  const witness = Buffer.concat(witnesses);
  const raw = Buffer.concat([version, Buffer.from([0x00, 0x01]), body, witness, locktime]);
  const stripped = Buffer.concat([version, body, locktime]);
  const vsize = Math.ceil((stripped.length * 3 + raw.length) / 4);
  return { txid: sha256d(stripped).reverse().toString('hex'), raw, fee: BigInt(vsize * (1 + randomInt(40))) };
}

export class MainnetShapedChain implements EsploraChain {
  readonly network = bitcoin.networks.regtest;
  readonly mempoolSize: number;
  readonly blockBytes: number;
  private readonly blocks = new Map<number, ChainBlock>();
  private readonly byHash = new Map<string, ChainBlock>();
  private tipBlock!: ChainBlock;
  private readonly txs = new Map<string, StoredTx>();
  /** Mempool txids in arrival order (a Map keeps insertion order). */
  private readonly mempool = new Map<string, StoredTx>();
  /** Broadcast transactions: mined first (as a high fee would have them), not before `notBefore`. */
  private priority: { txid: string; notBefore: number }[] = [];
  /**
   * Output script (hex) → txids, for broadcast transactions only: background transactions pay fresh
   * random scripts, which no address route or tracked address can ask for.
   */
  private readonly scriptIndex = new Map<string, string[]>();
  private readonly listeners = new Set<(event: ChainEvent) => void>();
  private txidList: string[] | null = null;
  private coinbaseTag = 0;

  constructor(options: MainnetChainOptions = {}) {
    this.mempoolSize = options.mempoolSize ?? 100_000;
    this.blockBytes = options.blockBytes ?? 1_500_000;
    const progress = options.onProgress ?? (() => {});
    for (let made = 0; made < this.mempoolSize; made += 10_000) {
      progress(`building the mempool: ${made.toLocaleString('en')} of ${this.mempoolSize.toLocaleString('en')} transactions`);
      this.fill(Math.min(10_000, this.mempoolSize - made));
    }
    // A full-sized genesis block, so the tip is a full-sized one, then the mempool back to its size.
    this.tipBlock = this.mineOn(0, new Uint8Array(32));
    this.fill(this.mempoolSize - this.mempool.size);
  }

  get tip(): ChainBlock {
    return this.tipBlock;
  }

  blockAt(height: number): ChainBlock | undefined {
    return this.blocks.get(height);
  }

  blockByHash(hash: string): ChainBlock | undefined {
    return this.byHash.get(hash);
  }

  isActive(block: ChainBlock): boolean {
    return this.blocks.get(block.height) === block;
  }

  tx(txid: string): KnownTx | undefined {
    const stored = this.txs.get(txid);
    return stored ? { tx: bitcoin.Transaction.fromBuffer(stored.raw), txid, height: stored.height, fee: stored.fee } : undefined;
  }

  mempoolTxids(): string[] {
    this.txidList ??= [...this.mempool.keys()];
    return this.txidList;
  }

  get mempoolCount(): number {
    return this.mempool.size;
  }

  scriptHistory(script: Uint8Array): ScriptHistory {
    const known = (this.scriptIndex.get(Buffer.from(script).toString('hex')) ?? []).map((txid) => this.tx(txid)!);
    return {
      mempool: known.filter((k) => k.height === null).reverse(),
      confirmed: known.filter((k) => k.height !== null).reverse(),
    };
  }

  broadcast(tx: bitcoin.Transaction, notBefore = 0): string {
    const txid = tx.getId();
    if (this.txs.has(txid)) return txid;
    this.add(txid, { raw: Buffer.from(tx.toBuffer()), fee: 0n, height: null });
    this.priority.push({ txid, notBefore });
    for (const out of tx.outs) {
      const key = Buffer.from(out.script).toString('hex');
      this.scriptIndex.set(key, [...(this.scriptIndex.get(key) ?? []), txid]);
    }
    this.emit({ type: 'mempool', tx: this.tx(txid)! });
    return txid;
  }

  /**
   * Broadcasts a transaction paying `value` sats to `address`, from a made-up input; no block takes
   * it before `notBefore` (epoch ms), as when a low fee keeps a payment waiting.
   */
  pay(address: string, value: bigint, notBefore = 0): string {
    const { raw } = syntheticTransaction({ script: bitcoin.address.toOutputScript(address, this.network), value });
    return this.broadcast(bitcoin.Transaction.fromBuffer(raw), notBefore);
  }

  /** `count` new transactions arrive in the mempool, each announced to subscribers. */
  arrive(count: number): void {
    for (let i = 0; i < count; i++) {
      const txid = this.fill(1)[0];
      this.emit({ type: 'mempool', tx: this.tx(txid)! });
    }
  }

  /**
   * Mines a block of about `blockBytes` (broadcast transactions first, then the oldest), then tops
   * the mempool back up to its size without announcing each: the transactions that would have
   * arrived over the ten real minutes the compressed interval stands for.
   */
  mine(): ChainBlock {
    const block = this.mineOn(this.tipBlock.height + 1, Buffer.from(this.tipBlock.hash, 'hex').reverse());
    this.tipBlock = block;
    this.fill(this.mempoolSize - this.mempool.size);
    this.emit({ type: 'block', block });
    return block;
  }

  subscribe(listener: (event: ChainEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private mineOn(height: number, prevHash: Uint8Array): ChainBlock {
    const chosen: string[] = [];
    let size = 1_000; // header, count and coinbase
    let fees = 0n;
    const take = (txid: string) => {
      const stored = this.mempool.get(txid);
      if (!stored) return;
      chosen.push(txid);
      size += stored.raw.length;
      fees += stored.fee;
      this.mempool.delete(txid);
    };
    const now = Date.now();
    for (const { txid, notBefore } of this.priority) if (notBefore <= now) take(txid);
    this.priority = this.priority.filter(({ notBefore }) => notBefore > now);
    for (const txid of this.mempool.keys()) {
      if (size >= this.blockBytes) break;
      take(txid);
    }
    this.txidList = null;
    const payout = OUTPUT_SCRIPTS[0][1]();
    const coinbase = coinbaseTransaction(height, ++this.coinbaseTag, payout, SUBSIDY + fees);
    const txs = [coinbase, ...chosen.map((txid) => bitcoin.Transaction.fromBuffer(this.txs.get(txid)!.raw))];
    // Each block's time above its parent's: the median-time rule holds however fast blocks come.
    const block = assembleBlock(txs, prevHash, Math.max(Math.floor(Date.now() / 1000), height === 0 ? 0 : this.tipBlock.time + 1));
    const chainBlock: ChainBlock = { hash: block.getId(), height, block, raw: block.toBuffer(), txids: [coinbase.getId(), ...chosen], time: block.timestamp };
    this.txs.set(chainBlock.txids[0], { raw: Buffer.from(coinbase.toBuffer()), fee: 0n, height });
    for (const txid of chosen) this.txs.get(txid)!.height = height;
    this.blocks.set(height, chainBlock);
    this.byHash.set(chainBlock.hash, chainBlock);
    return chainBlock;
  }

  private fill(count: number): string[] {
    const added: string[] = [];
    for (let i = 0; i < count; i++) {
      const { txid, raw, fee } = syntheticTransaction();
      this.add(txid, { raw, fee, height: null });
      added.push(txid);
    }
    return added;
  }

  private add(txid: string, stored: StoredTx): void {
    this.txs.set(txid, stored);
    this.mempool.set(txid, stored);
    this.txidList = null;
  }

  private emit(event: ChainEvent): void {
    for (const listener of this.listeners) listener(event);
  }
}
