import { AnswerTooLarge, AnswerTooSlow } from '../net/bounded-body.ts';
import { ChainSourceError, ChainSourceInvalidData, type ChainSource } from './chain-source.ts';

/**
 * The largest answer an honest Bitcoin source gives, per kind of request (core/net/bounded-body.ts
 * stops reading past it). Each cap is the largest legitimate answer with room to spare, never a
 * guess at the usual one: a cap an honest source can reach would stall the watcher on it.
 */

/**
 * A block's serialized size, witness included, is at most its weight limit: 4,000,000 weight units,
 * where every byte weighs at least 1 (BIP 141). `/block/:hash/raw` answers those bytes.
 */
export const MAX_RAW_BLOCK_BYTES = 4_000_000;

/** A block as hex (Bitcoin Core's `getblock <hash> 0`, inside its JSON-RPC envelope): two characters a byte. */
export const MAX_BLOCK_HEX_BYTES = 2 * MAX_RAW_BLOCK_BYTES + 1_024;

/**
 * One transaction as hex (`/tx/:txid/hex`): a mempool one is standard (400,000 weight units at
 * most), but it may be mined by the time it is asked for, and a mined one can fill its block.
 */
export const MAX_TX_HEX_BYTES = MAX_BLOCK_HEX_BYTES;

/** A standard transaction (the mempool holds no other) as hex: 400,000 weight units, two characters a byte. */
const MAX_STANDARD_TX_HEX_BYTES = 2 * 400_000;

/** A batch of `getrawtransaction` answers from Bitcoin Core: each a standard mempool transaction in hex, in its envelope. */
export const maxRawTxBatchBytes = (batchSize: number) => batchSize * (MAX_STANDARD_TX_HEX_BYTES + 256);

/** A tip height or hash, a block hash at a height: one short line. */
export const MAX_LINE_BYTES = 1_024;

/** One block header as Esplora's JSON (`/block/:hash`): some 700 bytes. */
export const MAX_HEADER_JSON_BYTES = 16_384;

/** `/blocks/:height`: ten (mempool.space: fifteen) such headers. */
export const MAX_HEADERS_PAGE_BYTES = 256 * 1_024;

/**
 * An address page (`/address/:a/txs`): up to 50 mempool and 25 confirmed transactions in Esplora's
 * JSON, which repeats each input's previous output, about three times a transaction's raw size.
 * 16 MB holds 75 transactions of 70 KB raw; a payment to an invoice address is a few hundred bytes.
 * A page over the cap only delays a "payment seen": what is credited is read from verified blocks.
 * The mempool WebSocket's pushes carry the same JSON for the tracked addresses: the same cap per frame.
 */
export const MAX_ADDRESS_PAGE_BYTES = 16 * 1_024 * 1_024;

/**
 * The mempool's txids (`/mempool/txids`, `getrawmempool`): 67 bytes each in JSON. Bitcoin Core's
 * default 300 MB mempool has held under a million transactions at its fullest (2023); 1.5 million
 * txids leave room.
 */
export const MAX_MEMPOOL_TXIDS_BYTES = 1_500_000 * 67;

/**
 * Reads a source's answer within its cap, as the chain source's errors: an answer over its cap is
 * one no honest source gives, so it counts as invalid data (the source is set aside like one that
 * served a bad block); one too slow is a source that did not answer.
 */
export async function readCapped<T>(kind: ChainSource['kind'], read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof AnswerTooLarge) throw new ChainSourceInvalidData(kind, error.message);
    if (error instanceof AnswerTooSlow) throw new ChainSourceError(kind, error.message);
    throw error;
  }
}
