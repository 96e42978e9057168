import * as bitcoin from 'bitcoinjs-lib';

export interface ChainBlock {
  hash: string;
  height: number;
  block: bitcoin.Block;
  raw: Uint8Array;
  txids: string[];
  /** Header time, epoch seconds. */
  time: number;
}

export interface KnownTx {
  tx: bitcoin.Transaction;
  txid: string;
  /** Height of the active-chain block holding it, or null while in the mempool. */
  height: number | null;
  fee: bigint;
}

/** Transactions paying or spending one output script, newest first, as Esplora orders address history. */
export interface ScriptHistory {
  mempool: KnownTx[];
  confirmed: KnownTx[];
}

export type ChainEvent = { type: 'mempool'; tx: KnownTx } | { type: 'block'; block: ChainBlock };

/**
 * What the Esplora and mempool.space WebSocket APIs read of a chain. Both the sandbox's regtest
 * chain and the benchmark's mainnet-shaped chain implement it, so both serve one protocol code.
 */
export interface EsploraChain {
  readonly network: bitcoin.Network;
  readonly tip: ChainBlock;
  blockAt(height: number): ChainBlock | undefined;
  blockByHash(hash: string): ChainBlock | undefined;
  isActive(block: ChainBlock): boolean;
  tx(txid: string): KnownTx | undefined;
  mempoolTxids(): string[];
  scriptHistory(script: Uint8Array): ScriptHistory;
  /** Accepts a transaction into the mempool and returns its txid; throws when its inputs are unknown or spent. */
  broadcast(tx: bitcoin.Transaction): string;
  /** Calls `listener` on every transaction entering the mempool and every block connected; returns the unsubscribe. */
  subscribe(listener: (event: ChainEvent) => void): () => void;
}

export interface ApiReply {
  status: number;
  type: 'text/plain' | 'application/json' | 'application/octet-stream';
  body: string | Uint8Array;
}

const text = (body: string, status = 200): ApiReply => ({ status, type: 'text/plain', body });
const json = (value: unknown): ApiReply => ({ status: 200, type: 'application/json', body: JSON.stringify(value) });
const HEX64 = /^[0-9a-f]{64}$/;
/** Esplora's page sizes (electrs rest.rs: MAX_MEMPOOL_TXS, CHAIN_TXS_PER_PAGE). */
const MEMPOOL_TXS_PER_PAGE = 50;
const CHAIN_TXS_PER_PAGE = 25;
/** Blocks per `/blocks/:start_height` page (electrs rest.rs: BLOCK_LIMIT). */
const BLOCKS_PER_PAGE = 10;

/**
 * The subset of the Esplora HTTP API (Blockstream esplora API.md; also served by mempool.space under
 * /api) that the listener reads, answered from the local chain in the same shapes and status codes.
 */
export function esploraRequest(chain: EsploraChain, method: string, path: string, body: string): ApiReply {
  const parts = path.split('/').filter(Boolean);
  const [head, id, tail, extra] = parts;
  if (method === 'POST' && head === 'tx' && parts.length === 1) return broadcast(chain, body.trim());
  if (method !== 'GET') return text('Not found', 404);

  if (head === 'blocks' && id === 'tip' && tail === 'height' && !extra) return text(String(chain.tip.height));
  if (head === 'blocks' && id === 'tip' && tail === 'hash' && !extra) return text(chain.tip.hash);
  if (head === 'blocks' && parts.length <= 2 && (id === undefined || /^\d+$/.test(id))) return json(recentBlocks(chain, id === undefined ? chain.tip.height : Number(id)));
  if (head === 'block-height' && parts.length === 2) {
    const block = /^\d+$/.test(id) ? chain.blockAt(Number(id)) : undefined;
    return block ? text(block.hash) : text('Block not found', 404);
  }
  if (head === 'block' && parts.length <= 3) {
    const block = HEX64.test(id) ? chain.blockByHash(id) : undefined;
    if (!block) return text('Block not found', 404);
    if (tail === undefined) return json(blockJson(chain, block));
    if (tail === 'raw') return { status: 200, type: 'application/octet-stream', body: block.raw };
    if (tail === 'txids') return json(block.txids);
    if (tail === 'status') return json(blockStatus(chain, block));
    if (tail === 'header') return text(block.block.toHex(true));
    return text('Not found', 404);
  }
  if (head === 'tx' && parts.length <= 3) {
    const known = HEX64.test(id) ? chain.tx(id) : undefined;
    if (!known) return text('Transaction not found', 404);
    if (tail === undefined) return json(txJson(chain, known));
    if (tail === 'hex') return text(known.tx.toHex());
    if (tail === 'raw') return { status: 200, type: 'application/octet-stream', body: known.tx.toBuffer() };
    if (tail === 'status') return json(txStatus(chain, known));
    return text('Not found', 404);
  }
  if (head === 'address' && id !== undefined && tail === 'txs') return addressTxs(chain, id, parts.slice(3));
  if (head === 'mempool' && id === 'txids' && parts.length === 2) return json(chain.mempoolTxids());
  return text('Not found', 404);
}

function broadcast(chain: EsploraChain, hex: string): ApiReply {
  let tx: bitcoin.Transaction;
  try {
    tx = bitcoin.Transaction.fromHex(hex);
  } catch {
    return text('sendrawtransaction RPC error: {"code":-22,"message":"TX decode failed"}', 400);
  }
  try {
    return text(chain.broadcast(tx));
  } catch {
    return text('sendrawtransaction RPC error: {"code":-25,"message":"bad-txns-inputs-missingorspent"}', 400);
  }
}

export function blockJson(chain: EsploraChain, block: ChainBlock) {
  const b = block.block;
  return {
    id: block.hash,
    height: block.height,
    version: b.version,
    timestamp: b.timestamp,
    tx_count: block.txids.length,
    size: block.raw.length,
    weight: b.weight(),
    merkle_root: Buffer.from(b.merkleRoot!).reverse().toString('hex'),
    previousblockhash: block.height === 0 ? null : Buffer.from(b.prevHash!).reverse().toString('hex'),
    mediantime: b.timestamp,
    nonce: b.nonce,
    bits: b.bits,
    difficulty: 0,
    in_best_chain: chain.isActive(block),
  };
}

/** `/blocks[/:start_height]`: up to 10 active-chain blocks from the start height (or the tip) down. */
function recentBlocks(chain: EsploraChain, start: number) {
  const blocks = [];
  for (let height = Math.min(start, chain.tip.height); height >= 0 && blocks.length < BLOCKS_PER_PAGE; height--) blocks.push(blockJson(chain, chain.blockAt(height)!));
  return blocks;
}

function blockStatus(chain: EsploraChain, block: ChainBlock) {
  const inBest = chain.isActive(block);
  return inBest
    ? { in_best_chain: true, height: block.height, next_best: chain.blockAt(block.height + 1)?.hash ?? null }
    : { in_best_chain: false };
}

function txStatus(chain: EsploraChain, known: KnownTx) {
  if (known.height === null) return { confirmed: false };
  const block = chain.blockAt(known.height)!;
  return { confirmed: true, block_height: block.height, block_hash: block.hash, block_time: block.time };
}

function outputJson(chain: EsploraChain, out: bitcoin.TxOutput) {
  let address: string | undefined;
  try {
    address = bitcoin.address.fromOutputScript(out.script, chain.network);
  } catch {
    address = undefined; // OP_RETURN and other scripts without an address
  }
  return {
    scriptpubkey: Buffer.from(out.script).toString('hex'),
    scriptpubkey_asm: bitcoin.script.toASM(out.script),
    scriptpubkey_type: scriptType(out.script),
    ...(address ? { scriptpubkey_address: address } : {}),
    value: Number(out.value),
  };
}

function scriptType(script: Uint8Array): string {
  if (script.length === 22 && script[0] === 0x00 && script[1] === 0x14) return 'v0_p2wpkh';
  if (script.length === 34 && script[0] === 0x00 && script[1] === 0x20) return 'v0_p2wsh';
  if (script.length === 34 && script[0] === 0x51 && script[1] === 0x20) return 'v1_p2tr';
  if (script[0] === 0x6a) return 'op_return';
  return 'unknown';
}

export function txJson(chain: EsploraChain, known: KnownTx) {
  const tx = known.tx;
  const coinbase = tx.isCoinbase();
  return {
    txid: known.txid,
    version: tx.version,
    locktime: tx.locktime,
    vin: tx.ins.map((input) => {
      const prevTxid = Buffer.from(input.hash).reverse().toString('hex');
      const prev = coinbase ? undefined : chain.tx(prevTxid)?.tx.outs[input.index];
      return {
        txid: prevTxid,
        vout: input.index,
        prevout: prev ? outputJson(chain, prev) : null,
        scriptsig: Buffer.from(input.script).toString('hex'),
        scriptsig_asm: bitcoin.script.toASM(input.script),
        witness: input.witness.map((w) => Buffer.from(w).toString('hex')),
        is_coinbase: coinbase,
        sequence: input.sequence,
      };
    }),
    vout: tx.outs.map((out) => outputJson(chain, out)),
    size: tx.byteLength(),
    weight: tx.weight(),
    fee: Number(known.fee),
    status: txStatus(chain, known),
  };
}

/**
 * Newest first, as Esplora pages them: `/txs` (up to 50 mempool then the first 25 confirmed),
 * `/txs/mempool` (up to 50), `/txs/chain[/:last_seen_txid]` (25 a page after the last one seen; an
 * unknown last_seen gives an empty page, a malformed one is ignored, as electrs does).
 */
function addressTxs(chain: EsploraChain, address: string, rest: string[]): ApiReply {
  const [which, lastSeen, ...extra] = rest;
  const known = which === undefined || (which === 'mempool' && lastSeen === undefined) || (which === 'chain' && extra.length === 0);
  if (!known) return text('Not found', 404);
  let script: Uint8Array;
  try {
    script = bitcoin.address.toOutputScript(address, chain.network);
  } catch {
    return text(isAddressOfAnotherNetwork(address) ? 'Address on invalid network' : 'Invalid Bitcoin address', 400);
  }
  const history = chain.scriptHistory(script);
  let page: KnownTx[];
  if (which === 'mempool') page = history.mempool.slice(0, MEMPOOL_TXS_PER_PAGE);
  else if (which === 'chain') page = confirmedPage(history.confirmed, lastSeen);
  else page = [...history.mempool.slice(0, MEMPOOL_TXS_PER_PAGE), ...history.confirmed.slice(0, CHAIN_TXS_PER_PAGE)];
  return json(page.map((k) => txJson(chain, k)));
}

function confirmedPage(confirmed: KnownTx[], lastSeen: string | undefined): KnownTx[] {
  if (lastSeen === undefined || !HEX64.test(lastSeen)) return confirmed.slice(0, CHAIN_TXS_PER_PAGE);
  const at = confirmed.findIndex((k) => k.txid === lastSeen);
  return at === -1 ? [] : confirmed.slice(at + 1, at + 1 + CHAIN_TXS_PER_PAGE);
}

function isAddressOfAnotherNetwork(address: string): boolean {
  return [bitcoin.networks.bitcoin, bitcoin.networks.testnet, bitcoin.networks.regtest].some((network) => {
    try {
      bitcoin.address.toOutputScript(address, network);
      return true;
    } catch {
      return false;
    }
  });
}
