import * as bitcoin from 'bitcoinjs-lib';
import { assembleBlock, coinbaseTransaction } from './block-builder.ts';
import type { ChainBlock, ChainEvent, EsploraChain, KnownTx, ScriptHistory } from './esplora-api.ts';
import { RegtestWallet, type Utxo } from './regtest-wallet.ts';

export type { ChainBlock, KnownTx } from './esplora-api.ts';

interface UtxoEntry {
  value: bigint;
  script: Uint8Array;
  height: number | null;
  coinbase: boolean;
}

export interface ReorgOptions {
  /** How many blocks to mine on the fork; default depth + 1, so the fork has more work as on a real node. */
  blocks?: number;
  /** Transactions of the disconnected blocks (or mempool) to forget, with everything spending them. */
  drop?: string[];
  /** Whether the new blocks take the mempool (default true). With false they are empty. */
  includeMempool?: boolean;
}

export type Payee = { address: string } | { script: Uint8Array };

const COINBASE_MATURITY = 100;
const HALVING_INTERVAL = 150; // regtest
const DEFAULT_FEE = 1_000n;

const outpointKey = (txid: string, vout: number) => `${txid}:${vout}`;
const hashToId = (hash: Uint8Array) => Buffer.from(hash).reverse().toString('hex');

/**
 * An in-memory Bitcoin regtest chain of real transactions and blocks: txids, scripts, merkle roots,
 * witness commitments and proof of work are all genuine, so anything reading it (the listener through
 * Esplora or Core RPC) parses exactly what a real node would serve. Consensus rules beyond spending
 * existing unspent outputs are not enforced; it exists for tests and the sandbox.
 */
export class LocalBtcChain implements EsploraChain {
  readonly wallet: RegtestWallet;
  readonly network = bitcoin.networks.regtest;
  private readonly now: () => number;
  private active: ChainBlock[] = [];
  private readonly byHash = new Map<string, ChainBlock>();
  private txs = new Map<string, KnownTx>();
  private mempool: string[] = [];
  private utxos = new Map<string, UtxoEntry>();
  private walletUtxos = new Map<string, Utxo>();
  private coinbaseNonce = 0;
  private readonly listeners = new Set<(event: ChainEvent) => void>();
  private readonly assemble: typeof assembleBlock;

  /** `assemble`: how blocks are built (default: real ones); a test may fabricate blocks a liar would serve. */
  constructor(options: { wallet?: RegtestWallet; now?: () => number; assemble?: typeof assembleBlock } = {}) {
    this.wallet = options.wallet ?? new RegtestWallet();
    this.now = options.now ?? Date.now;
    this.assemble = options.assemble ?? assembleBlock;
    // A genesis block plus enough blocks for the first coinbase to mature, so the wallet can pay at once.
    this.mine(COINBASE_MATURITY + 1);
  }

  get tip(): ChainBlock {
    return this.active[this.active.length - 1];
  }

  blockAt(height: number): ChainBlock | undefined {
    return this.active[height];
  }

  /** Any block ever mined, including ones a reorg left behind. */
  blockByHash(hash: string): ChainBlock | undefined {
    return this.byHash.get(hash);
  }

  isActive(block: ChainBlock): boolean {
    return this.active[block.height]?.hash === block.hash;
  }

  tx(txid: string): KnownTx | undefined {
    return this.txs.get(txid);
  }

  mempoolTxids(): string[] {
    return [...this.mempool];
  }

  /** Scans every transaction: the sandbox chain is small, so it keeps no address index. */
  scriptHistory(script: Uint8Array): ScriptHistory {
    const target = Buffer.from(script);
    const touches = (known: KnownTx) =>
      known.tx.outs.some((out) => target.equals(out.script)) ||
      known.tx.ins.some((input) => {
        const prev = this.txs.get(hashToId(input.hash))?.tx.outs[input.index];
        return prev !== undefined && target.equals(prev.script);
      });
    const matching = [...this.txs.values()].filter(touches);
    const position = (known: KnownTx) => this.active[known.height!].txids.indexOf(known.txid);
    return {
      mempool: matching.filter((k) => k.height === null).reverse(),
      confirmed: matching.filter((k) => k.height !== null).sort((a, b) => b.height! - a.height! || position(b) - position(a)),
    };
  }

  subscribe(listener: (event: ChainEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  outputSpentBy(txid: string, vout: number): boolean {
    return this.txs.has(txid) && !this.utxos.has(outpointKey(txid, vout));
  }

  balance(): bigint {
    let sum = 0n;
    for (const utxo of this.walletUtxos.values()) sum += utxo.value;
    return sum;
  }

  /** Pays each payee from the sandbox wallet in one transaction and puts it in the mempool. */
  pay(outputs: (Payee & { value: bigint })[], fee = DEFAULT_FEE): string {
    const scripts = outputs.map((o) => ({ script: this.scriptOf(o), value: o.value }));
    const need = scripts.reduce((sum, o) => sum + o.value, fee);
    const inputs = this.selectCoins(need);
    return this.broadcast(this.wallet.buildSpend(inputs, scripts, fee));
  }

  /** Accepts a transaction into the mempool if all its inputs are unspent outputs we know. */
  broadcast(tx: bitcoin.Transaction): string {
    const txid = tx.getId();
    if (this.txs.has(txid)) return txid;
    this.accept(tx, null);
    this.mempool.push(txid);
    this.emit({ type: 'mempool', tx: this.txs.get(txid)! });
    return txid;
  }

  mine(count = 1, includeMempool = true): ChainBlock[] {
    const mined: ChainBlock[] = [];
    for (let i = 0; i < count; i++) {
      const txids = includeMempool ? this.mempool : [];
      this.mempool = includeMempool ? [] : this.mempool;
      mined.push(this.mineBlock(txids.map((id) => this.txs.get(id)!.tx)));
    }
    return mined;
  }

  /**
   * Replaces the last `depth` blocks with a fork. Their transactions go back to the mempool (minus
   * `drop` and whatever spends a dropped or vanished output), as a node does on a reorg.
   */
  reorg(depth: number, options: ReorgOptions = {}): ChainBlock[] {
    if (depth < 1 || depth >= this.active.length) throw new Error(`reorg depth must be 1..${this.active.length - 1}`);
    const drop = new Set(options.drop ?? []);
    const disconnected = this.active.splice(this.active.length - depth);
    const candidates = [
      ...disconnected.flatMap((b) => b.block.transactions!.slice(1)),
      ...this.mempool.map((id) => this.txs.get(id)!.tx),
    ].filter((tx) => !drop.has(tx.getId()));
    this.replayActiveChain();
    for (const tx of candidates) {
      if (tx.ins.every((input) => this.utxos.has(outpointKey(hashToId(input.hash), input.index)))) this.broadcast(tx);
    }
    return this.mine(options.blocks ?? depth + 1, options.includeMempool ?? true);
  }

  private emit(event: ChainEvent): void {
    for (const listener of this.listeners) listener(event);
  }

  private scriptOf(payee: Payee): Uint8Array {
    return 'script' in payee ? payee.script : bitcoin.address.toOutputScript(payee.address, this.network);
  }

  private selectCoins(need: bigint): Utxo[] {
    const spendable = [...this.walletUtxos.entries()]
      .map(([key, utxo]) => ({ utxo, entry: this.utxos.get(key)! }))
      .filter(({ entry }) => !entry.coinbase || this.tip.height - entry.height! + 1 >= COINBASE_MATURITY)
      // Oldest confirmed first: the coins least likely to vanish in a reorg.
      .sort((a, b) => (a.entry.height ?? Infinity) - (b.entry.height ?? Infinity));
    const picked: Utxo[] = [];
    let sum = 0n;
    for (const { utxo } of spendable) {
      if (sum >= need) break;
      picked.push(utxo);
      sum += utxo.value;
    }
    if (sum < need) throw new Error(`sandbox wallet has ${sum} spendable sats, need ${need}`);
    return picked;
  }

  private accept(tx: bitcoin.Transaction, height: number | null): void {
    const txid = tx.getId();
    const coinbase = tx.isCoinbase();
    let totalIn = 0n;
    if (!coinbase) {
      const keys = tx.ins.map((input) => outpointKey(hashToId(input.hash), input.index));
      for (const key of keys) {
        const spent = this.utxos.get(key);
        if (!spent) throw new Error(`input ${key} of ${txid} is missing or already spent`);
        totalIn += spent.value;
      }
      for (const key of keys) {
        this.utxos.delete(key);
        this.walletUtxos.delete(key);
      }
    }
    const walletScript = Buffer.from(this.wallet.script);
    tx.outs.forEach((out, vout) => {
      const key = outpointKey(txid, vout);
      this.utxos.set(key, { value: out.value, script: out.script, height, coinbase });
      if (walletScript.equals(out.script)) this.walletUtxos.set(key, { txid, vout, value: out.value });
    });
    const totalOut = tx.outs.reduce((sum, out) => sum + out.value, 0n);
    this.txs.set(txid, { tx, txid, height, fee: coinbase ? 0n : totalIn - totalOut });
  }

  private confirm(txid: string, height: number): void {
    const known = this.txs.get(txid)!;
    known.height = height;
    known.tx.outs.forEach((_, vout) => {
      const utxo = this.utxos.get(outpointKey(txid, vout));
      if (utxo) utxo.height = height;
    });
  }

  private replayActiveChain(): void {
    this.txs = new Map();
    this.utxos = new Map();
    this.walletUtxos = new Map();
    this.mempool = [];
    for (const block of this.active) for (const tx of block.block.transactions!) this.accept(tx, block.height);
  }

  private mineBlock(txs: bitcoin.Transaction[]): ChainBlock {
    const height = this.active.length;
    const fees = txs.reduce((sum, tx) => sum + this.txs.get(tx.getId())!.fee, 0n);
    const coinbase = coinbaseTransaction(height, ++this.coinbaseNonce, this.wallet.script, subsidy(height) + fees);
    const all = [coinbase, ...txs];
    const prevHash = height === 0 ? new Uint8Array(32) : Buffer.from(this.tip.hash, 'hex').reverse();
    const block = this.assemble(all, prevHash, Math.max(Math.floor(this.now() / 1000), height === 0 ? 0 : this.tip.time + 1));

    const chainBlock: ChainBlock = {
      hash: block.getId(),
      height,
      block,
      raw: block.toBuffer(),
      txids: all.map((tx) => tx.getId()),
      time: block.timestamp,
    };
    this.active.push(chainBlock);
    this.byHash.set(chainBlock.hash, chainBlock);
    this.accept(coinbase, height);
    for (const tx of txs) this.confirm(tx.getId(), height);
    this.emit({ type: 'block', block: chainBlock });
    return chainBlock;
  }
}

function subsidy(height: number): bigint {
  const halvings = Math.floor(height / HALVING_INTERVAL);
  return halvings >= 64 ? 0n : 5_000_000_000n >> BigInt(halvings);
}
