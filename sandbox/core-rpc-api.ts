import * as bitcoin from 'bitcoinjs-lib';
import type { ChainBlock, KnownTx, LocalBtcChain } from './local-btc-chain.ts';

interface RpcRequest {
  id?: unknown;
  method?: unknown;
  params?: unknown;
}

class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The Bitcoin Core JSON-RPC methods the listener calls, with Core's error codes
 * (-5 not found, -8 invalid parameter, -32601 unknown method). Batches (a JSON array) are answered
 * entry by entry, as Core does.
 */
export function coreRpcRequest(chain: LocalBtcChain, body: string): { status: number; body: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return { status: 500, body: JSON.stringify({ result: null, error: { code: -32700, message: 'Parse error' }, id: null }) };
  }
  if (Array.isArray(parsed)) return { status: 200, body: JSON.stringify(parsed.map((r) => answer(chain, r))) };
  const reply = answer(chain, parsed as RpcRequest);
  const status = reply.error === null ? 200 : reply.error.code === -32601 ? 404 : 500;
  return { status, body: JSON.stringify(reply) };
}

function answer(chain: LocalBtcChain, request: RpcRequest) {
  const id = request?.id ?? null;
  try {
    const params = Array.isArray(request?.params) ? request.params : [];
    return { result: call(chain, String(request?.method), params), error: null, id };
  } catch (error) {
    if (!(error instanceof RpcError)) throw error;
    return { result: null, error: { code: error.code, message: error.message }, id };
  }
}

function call(chain: LocalBtcChain, method: string, params: unknown[]): unknown {
  switch (method) {
    case 'getblockcount':
      return chain.tip.height;
    case 'getbestblockhash':
      return chain.tip.hash;
    case 'getblockhash': {
      const block = typeof params[0] === 'number' ? chain.blockAt(params[0]) : undefined;
      if (!block) throw new RpcError(-8, 'Block height out of range');
      return block.hash;
    }
    case 'getblock': {
      const block = typeof params[0] === 'string' ? chain.blockByHash(params[0]) : undefined;
      if (!block) throw new RpcError(-5, 'Block not found');
      const verbosity = params[1] === undefined ? 1 : Number(params[1]);
      if (verbosity === 0) return Buffer.from(block.raw).toString('hex');
      return blockJson(chain, block, verbosity);
    }
    case 'getrawmempool':
      return chain.mempoolTxids();
    case 'getrawtransaction': {
      const known = typeof params[0] === 'string' ? chain.tx(params[0]) : undefined;
      if (!known) throw new RpcError(-5, 'No such mempool or blockchain transaction. Use gettransaction for wallet transactions.');
      return params[1] ? txJson(chain, known) : known.tx.toHex();
    }
    case 'sendrawtransaction':
      try {
        return chain.broadcast(bitcoin.Transaction.fromHex(String(params[0])));
      } catch {
        throw new RpcError(-25, 'bad-txns-inputs-missingorspent');
      }
    default:
      throw new RpcError(-32601, 'Method not found');
  }
}

const btc = (sats: bigint) => Number(sats) / 1e8;

function blockJson(chain: LocalBtcChain, block: ChainBlock, verbosity: number) {
  const b = block.block;
  const active = chain.isActive(block);
  return {
    hash: block.hash,
    confirmations: active ? chain.tip.height - block.height + 1 : -1,
    height: block.height,
    version: b.version,
    merkleroot: Buffer.from(b.merkleRoot!).reverse().toString('hex'),
    time: b.timestamp,
    mediantime: b.timestamp,
    nonce: b.nonce,
    bits: b.bits.toString(16),
    nTx: block.txids.length,
    ...(block.height > 0 ? { previousblockhash: Buffer.from(b.prevHash!).reverse().toString('hex') } : {}),
    ...(active && chain.blockAt(block.height + 1) ? { nextblockhash: chain.blockAt(block.height + 1)!.hash } : {}),
    size: block.raw.length,
    weight: b.weight(),
    tx: verbosity >= 2 ? b.transactions!.map((tx) => txJson(chain, chain.tx(tx.getId()) ?? { tx, txid: tx.getId(), height: block.height, fee: 0n })) : block.txids,
  };
}

function txJson(chain: LocalBtcChain, known: KnownTx) {
  const tx = known.tx;
  const block = known.height === null ? undefined : chain.blockAt(known.height);
  return {
    txid: known.txid,
    hash: Buffer.from(tx.getHash(true)).reverse().toString('hex'),
    version: tx.version,
    size: tx.byteLength(),
    vsize: tx.virtualSize(),
    weight: tx.weight(),
    locktime: tx.locktime,
    vin: tx.isCoinbase()
      ? [{ coinbase: Buffer.from(tx.ins[0].script).toString('hex'), sequence: tx.ins[0].sequence }]
      : tx.ins.map((input) => ({
          txid: Buffer.from(input.hash).reverse().toString('hex'),
          vout: input.index,
          scriptSig: { hex: Buffer.from(input.script).toString('hex') },
          txinwitness: input.witness.map((w) => Buffer.from(w).toString('hex')),
          sequence: input.sequence,
        })),
    vout: tx.outs.map((out, n) => {
      let address: string | undefined;
      try {
        address = bitcoin.address.fromOutputScript(out.script, chain.network);
      } catch {
        address = undefined;
      }
      return { value: btc(out.value), n, scriptPubKey: { hex: Buffer.from(out.script).toString('hex'), ...(address ? { address } : {}) } };
    }),
    hex: tx.toHex(),
    ...(block ? { blockhash: block.hash, confirmations: chain.tip.height - block.height + 1, blocktime: block.time } : {}),
  };
}
