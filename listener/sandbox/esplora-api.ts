import * as bitcoin from 'bitcoinjs-lib';
import type { ChainBlock, KnownTx, LocalBtcChain } from './local-btc-chain.ts';

export interface ApiReply {
  status: number;
  type: 'text/plain' | 'application/json' | 'application/octet-stream';
  body: string | Uint8Array;
}

const text = (body: string, status = 200): ApiReply => ({ status, type: 'text/plain', body });
const json = (value: unknown): ApiReply => ({ status: 200, type: 'application/json', body: JSON.stringify(value) });
const HEX64 = /^[0-9a-f]{64}$/;

/**
 * The subset of the Esplora HTTP API (Blockstream esplora API.md; also served by mempool.space under
 * /api) that the listener reads, answered from the local chain in the same shapes and status codes.
 */
export function esploraRequest(chain: LocalBtcChain, method: string, path: string, body: string): ApiReply {
  const parts = path.split('/').filter(Boolean);
  const [head, id, tail, extra] = parts;
  if (method === 'POST' && head === 'tx' && parts.length === 1) return broadcast(chain, body.trim());
  if (method !== 'GET') return text('Not found', 404);

  if (head === 'blocks' && id === 'tip' && tail === 'height' && !extra) return text(String(chain.tip.height));
  if (head === 'blocks' && id === 'tip' && tail === 'hash' && !extra) return text(chain.tip.hash);
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
  if (head === 'address' && tail === 'txs' && parts.length <= 5) return addressTxs(chain, id, extra, parts[4]);
  if (head === 'mempool' && id === 'txids' && parts.length === 2) return json(chain.mempoolTxids());
  return text('Not found', 404);
}

function broadcast(chain: LocalBtcChain, hex: string): ApiReply {
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

function blockJson(chain: LocalBtcChain, block: ChainBlock) {
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

function blockStatus(chain: LocalBtcChain, block: ChainBlock) {
  const inBest = chain.isActive(block);
  return inBest
    ? { in_best_chain: true, height: block.height, next_best: chain.blockAt(block.height + 1)?.hash ?? null }
    : { in_best_chain: false };
}

function txStatus(chain: LocalBtcChain, known: KnownTx) {
  if (known.height === null) return { confirmed: false };
  const block = chain.blockAt(known.height)!;
  return { confirmed: true, block_height: block.height, block_hash: block.hash, block_time: block.time };
}

function outputJson(chain: LocalBtcChain, out: bitcoin.TxOutput) {
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

function txJson(chain: LocalBtcChain, known: KnownTx) {
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

/** Newest first, as Esplora pages them: `/txs` (mempool then confirmed), `/txs/mempool`, `/txs/chain[/:last_seen]`. */
function addressTxs(chain: LocalBtcChain, address: string, which: string | undefined, lastSeen: string | undefined): ApiReply {
  if (which !== undefined && which !== 'chain' && which !== 'mempool') return text('Not found', 404);
  let script: Buffer;
  try {
    script = Buffer.from(bitcoin.address.toOutputScript(address, chain.network));
  } catch {
    return text(`Invalid Bitcoin address`, 400);
  }
  const touches = (known: KnownTx) =>
    known.tx.outs.some((out) => script.equals(out.script)) ||
    known.tx.ins.some((input) => {
      const prev = chain.tx(Buffer.from(input.hash).reverse().toString('hex'));
      return prev !== undefined && script.equals(prev.tx.outs[input.index]?.script ?? new Uint8Array());
    });
  const matching = [...chain.allTxs()].filter(touches);
  const mempool = matching.filter((k) => k.height === null).reverse();
  const confirmed = matching.filter((k) => k.height !== null).sort((a, b) => b.height! - a.height!);
  let page: KnownTx[];
  if (which === 'mempool') page = mempool.slice(0, 50);
  else if (which === 'chain') {
    const from = lastSeen ? confirmed.findIndex((k) => k.txid === lastSeen) : -1;
    page = confirmed.slice(from + 1, from + 26);
  } else page = [...mempool.slice(0, 50), ...confirmed.slice(0, 25)];
  return json(page.map((k) => txJson(chain, k)));
}
