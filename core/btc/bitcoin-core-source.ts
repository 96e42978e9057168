import { ChainSourceError, type ChainSource, type SourceTx } from './chain-source.ts';
import type { Fetch } from '../net/fetch.ts';
import { parseRawBlock, parseRawTx } from './raw-block.ts';
import { readBoundedJson } from '../net/bounded-body.ts';
import { sourceLabel } from '../net/request-budget.ts';
import * as caps from './answer-caps.ts';

export interface BitcoinCoreSourceOptions {
  /** BTC_RPC_URL, e.g. http://user:password@127.0.0.1:8332/ */
  url: string;
  fetch: Fetch;
  timeoutMs?: number;
  /** getrawtransaction calls per batched request. */
  batchSize?: number;
}

interface RpcReply {
  result: unknown;
  error: { code: number; message: string } | null;
  id: unknown;
}

const NOT_FOUND = -5;
const OUT_OF_RANGE = -8;

/** The largest answer to each single call: a whole block in hex, the mempool's txids, else one short value. */
function answerCap(method: string): number {
  if (method === 'getblock') return caps.MAX_BLOCK_HEX_BYTES;
  if (method === 'getrawmempool') return caps.MAX_MEMPOOL_TXIDS_BYTES;
  return caps.MAX_LINE_BYTES;
}

/** Bitcoin Core JSON-RPC: the merchant's own node, so no third party learns which addresses are watched. */
export function createBitcoinCoreSource(options: BitcoinCoreSourceOptions): ChainSource {
  // fetch refuses URLs carrying credentials, and they must never reach a log: move them to a header.
  const parsed = new URL(options.url);
  const auth = parsed.username
    ? `Basic ${Buffer.from(`${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}`).toString('base64')}`
    : undefined;
  parsed.username = '';
  parsed.password = '';
  const endpoint = parsed.toString();
  const timeoutMs = options.timeoutMs ?? 30_000;
  const batchSize = options.batchSize ?? 200;
  let nextId = 0;

  const label = sourceLabel(endpoint);
  /** `maxBytes`: the largest answer an honest node gives to `what` (answer-caps.ts). */
  async function post(body: unknown, what: string, maxBytes: number): Promise<unknown> {
    let res: Response;
    try {
      res = await options.fetch(endpoint, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...(auth ? { Authorization: auth } : {}) },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      throw new ChainSourceError('bitcoin-core', `RPC request failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    // Core answers RPC errors with HTTP 500/404 and a JSON body; anything else non-2xx is transport trouble.
    const type = res.headers.get('content-type') ?? '';
    if (!type.includes('json')) {
      await res.body?.cancel();
      throw new ChainSourceError('bitcoin-core', `RPC answered HTTP ${res.status}${res.status === 401 ? ' (check the credentials in BTC_RPC_URL)' : ''}`);
    }
    return caps.readCapped('bitcoin-core', () => readBoundedJson(res, { source: label, what, maxBytes, timeoutMs }));
  }

  const request = (method: string, params: unknown[]) => ({ jsonrpc: '1.0', id: ++nextId, method, params });

  /** Calls one method; an RPC error whose code is in `absentCodes` reads as null. */
  async function call<T>(method: string, params: unknown[], absentCodes: number[] = []): Promise<T | null> {
    const reply = (await post(request(method, params), method, answerCap(method))) as RpcReply;
    if (reply.error) {
      if (absentCodes.includes(reply.error.code)) return null;
      throw new ChainSourceError('bitcoin-core', `${method} failed: ${reply.error.code} ${reply.error.message}`);
    }
    return reply.result as T;
  }

  async function must<T>(method: string, params: unknown[]): Promise<T> {
    return (await call<T>(method, params))!;
  }

  return {
    kind: 'bitcoin-core',
    tipHeight: () => must<number>('getblockcount', []),
    tipHash: () => must<string>('getbestblockhash', []),
    blockHash: (height) => call<string>('getblockhash', [height], [OUT_OF_RANGE]),
    async block(hash, height) {
      const hex = await must<string>('getblock', [hash, 0]);
      try {
        return parseRawBlock(Buffer.from(hex, 'hex'), hash, height);
      } catch (error) {
        throw new ChainSourceError('bitcoin-core', error instanceof Error ? error.message : String(error));
      }
    },
    mempoolTxids: () => must<string[]>('getrawmempool', []),
    async transactions(txids) {
      const found: SourceTx[] = [];
      for (let i = 0; i < txids.length; i += batchSize) {
        const batch = txids.slice(i, i + batchSize);
        const replies = (await post(batch.map((txid) => request('getrawtransaction', [txid, false])), 'getrawtransaction batch', caps.maxRawTxBatchBytes(batch.length))) as RpcReply[];
        if (!Array.isArray(replies)) throw new ChainSourceError('bitcoin-core', 'batch reply is not an array');
        for (const reply of replies) {
          if (reply.error?.code === NOT_FOUND) continue;
          if (reply.error) throw new ChainSourceError('bitcoin-core', `getrawtransaction failed: ${reply.error.code} ${reply.error.message}`);
          found.push(parseRawTx(String(reply.result)));
        }
      }
      return found;
    },
  };
}
