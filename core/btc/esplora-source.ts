import { parseEsploraTx, type AddressSource } from './address-source.ts';
import { ChainSourceError, ChainSourceInvalidData, type ChainSource, type SourceBlock, type SourceTx } from './chain-source.ts';
import type { Fetch } from '../net/fetch.ts';
import { fetchWithin, type PacedFetch } from '../net/request-budget.ts';
import { headerFromEsploraJson, type HeaderSource } from './header-source.ts';
import { parseRawBlock, parseRawTx } from './raw-block.ts';
import { readBoundedBytes, readBoundedJson, readBoundedText, type BodyCap } from '../net/bounded-body.ts';
import { sourceLabel } from '../net/request-budget.ts';
import * as caps from './answer-caps.ts';

export interface EsploraSourceOptions {
  /** API base, e.g. https://mempool.space/api or https://mempool.space/testnet/api. */
  baseUrl: string;
  fetch: Fetch | PacedFetch;
  /** Per request, counted from when its request budget lets it go. */
  timeoutMs?: number;
  /** Mempool transactions fetched at once; the rest wait for the next poll (or their block). */
  concurrency?: number;
}

export type EsploraSource = ChainSource & AddressSource & HeaderSource;

/** A transaction is its bytes: ones that do not parse or hash to another txid than the one asked for are the source's lie. */
function transactionFromHex(hex: string, txid: string): SourceTx {
  let tx: SourceTx;
  try {
    tx = parseRawTx(hex);
  } catch (error) {
    throw new ChainSourceInvalidData('esplora', `transaction ${txid} does not parse: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (tx.txid !== txid) throw new ChainSourceInvalidData('esplora', `transaction ${txid} came back as ${tx.txid}`);
  return tx;
}

/** A request answered 429 is asked again this often (each after the window it opened) before it fails. */
const RETRIES_AFTER_429 = 2;

/** One GET: the answer to read, null for 404; a failure or another status is the source's error. */
async function esploraGet(fetch: Fetch | PacedFetch, base: string, path: string, timeoutMs: number): Promise<Response | null> {
  let res: Response;
  try {
    res = await fetchWithin(fetch, `${base}${path}`, timeoutMs);
    // Through a request budget the next try waits out the window the 429 opened: asked again, not failed.
    for (let retry = 0; res.status === 429 && 'paced' in fetch && retry < RETRIES_AFTER_429; retry++) {
      await res.body?.cancel();
      res = await fetchWithin(fetch, `${base}${path}`, timeoutMs);
    }
  } catch (error) {
    throw new ChainSourceError('esplora', `GET ${path} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (res.status === 404) {
    await res.body?.cancel();
    return null;
  }
  if (!res.ok) {
    await res.body?.cancel();
    throw new ChainSourceError('esplora', `GET ${path} answered HTTP ${res.status}`);
  }
  return res;
}

/** Esplora HTTP API (Blockstream esplora, mempool.space, or a self-hosted instance). */
export function createEsploraSource(options: EsploraSourceOptions): EsploraSource {
  const base = options.baseUrl.replace(/\/+$/, '');
  const timeoutMs = options.timeoutMs ?? 15_000;
  const concurrency = options.concurrency ?? 8;
  const label = sourceLabel(options.baseUrl);
  // Each answer read within its cap (answer-caps.ts): past it, or past the timeout, reading stops.
  const capped =
    <T>(reader: (res: Response, cap: BodyCap) => Promise<T>) =>
    (path: string, maxBytes: number) =>
    (res: Response) =>
      caps.readCapped('esplora', () => reader(res, { source: label, what: `GET ${path}`, maxBytes, timeoutMs }));
  const bytes = capped(readBoundedBytes);
  const text = capped(readBoundedText);
  const json = capped(readBoundedJson);

  const get = (path: string) => esploraGet(options.fetch, base, path, timeoutMs);

  async function getText(path: string, maxBytes: number): Promise<string | null> {
    const res = await get(path);
    return res ? (await text(path, maxBytes)(res)).trim() : null;
  }

  async function required<T>(path: string, read: (res: Response) => Promise<T>): Promise<T> {
    const res = await get(path);
    if (!res) throw new ChainSourceError('esplora', `GET ${path} answered 404`);
    return read(res);
  }

  return {
    kind: 'esplora',
    async tipHeight() {
      const body = await required('/blocks/tip/height', text('/blocks/tip/height', caps.MAX_LINE_BYTES));
      const height = Number(body.trim());
      if (!Number.isSafeInteger(height)) throw new ChainSourceError('esplora', 'tip height is not an integer');
      return height;
    },
    async tipHash() {
      const hash = (await required('/blocks/tip/hash', text('/blocks/tip/hash', caps.MAX_LINE_BYTES))).trim();
      if (!/^[0-9a-f]{64}$/.test(hash)) throw new ChainSourceError('esplora', 'tip hash is not a block hash');
      return hash;
    },
    async blockHash(height) {
      return getText(`/block-height/${height}`, caps.MAX_LINE_BYTES);
    },
    async block(hash, height): Promise<SourceBlock> {
      const raw = await required(`/block/${hash}/raw`, bytes(`/block/${hash}/raw`, caps.MAX_RAW_BLOCK_BYTES));
      try {
        return parseRawBlock(raw, hash, height);
      } catch (error) {
        throw new ChainSourceInvalidData('esplora', error instanceof Error ? error.message : String(error));
      }
    },
    async headerOf(hash) {
      if (!/^[0-9a-f]{64}$/.test(hash)) return null;
      const res = await get(`/block/${hash}`);
      return res ? headerFromEsploraJson(await json(`/block/${hash}`, caps.MAX_HEADER_JSON_BYTES)(res)) : null;
    },
    async headersDownFrom(top) {
      const blocks = await required(`/blocks/${top}`, json(`/blocks/${top}`, caps.MAX_HEADERS_PAGE_BYTES));
      if (!Array.isArray(blocks)) throw new ChainSourceError('esplora', 'blocks is not an array');
      return blocks.map(headerFromEsploraJson);
    },
    async mempoolTxids() {
      const ids = await required('/mempool/txids', json('/mempool/txids', caps.MAX_MEMPOOL_TXIDS_BYTES));
      if (!Array.isArray(ids)) throw new ChainSourceError('esplora', 'mempool txids is not an array');
      return ids.map(String);
    },
    async transactions(txids) {
      const found: SourceTx[] = [];
      for (let i = 0; i < txids.length; i += concurrency) {
        const asked = txids.slice(i, i + concurrency);
        const batch = await Promise.all(asked.map((txid) => getText(`/tx/${txid}/hex`, caps.MAX_TX_HEX_BYTES)));
        batch.forEach((hex, j) => {
          if (hex) found.push(transactionFromHex(hex, asked[j]));
        });
      }
      return found;
    },
    async addressTxs(address, page, lastSeenTxid) {
      const path = `/address/${encodeURIComponent(address)}/txs${page === 'all' ? '' : `/${page}`}${lastSeenTxid ? `/${lastSeenTxid}` : ''}`;
      const txs = await required(path, json(path, caps.MAX_ADDRESS_PAGE_BYTES));
      if (!Array.isArray(txs)) throw new ChainSourceError('esplora', 'address transactions is not an array');
      return txs.map(parseEsploraTx);
    },
  };
}
