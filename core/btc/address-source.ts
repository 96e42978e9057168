import { ChainSourceError, type SourceOutput, type SourceTx } from './chain-source.ts';

/** A transaction touching an address, as the Esplora address routes describe it. */
export interface AddressTx extends SourceTx {
  /** Null while unconfirmed. */
  blockHeight: number | null;
  blockHash: string | null;
}

/** Which of an address's transactions: `/txs` (mempool, then the newest confirmed), `/txs/mempool`, `/txs/chain`. */
export type AddressTxsPage = 'all' | 'mempool' | 'chain';

/**
 * The Esplora address routes (mempool.space, Blockstream, a self-hosted Esplora). Only third-party
 * sources are asked about addresses, and only for open invoices: a full scan never uses them.
 */
export interface AddressSource {
  /** One page, newest first; `chain` pages continue after `lastSeenTxid` (25 per page). */
  addressTxs(address: string, page: AddressTxsPage, lastSeenTxid?: string): Promise<AddressTx[]>;
  /** The transactions' raw bytes, parsed (each one's txid is the hash of its bytes); ones not found are omitted. */
  transactions(txids: string[]): Promise<SourceTx[]>;
}

/** Esplora's transaction JSON (also the mempool.space WebSocket's): outputs and confirmation status. */
export function parseEsploraTx(json: unknown): AddressTx {
  const tx = json as { txid?: unknown; vout?: unknown; status?: { confirmed?: unknown; block_height?: unknown; block_hash?: unknown } };
  if (typeof tx?.txid !== 'string' || !/^[0-9a-f]{64}$/.test(tx.txid) || !Array.isArray(tx.vout)) {
    throw new ChainSourceError('esplora', 'address transaction is malformed');
  }
  const outputs: SourceOutput[] = tx.vout.map((out: { scriptpubkey?: unknown; value?: unknown }) => {
    if (typeof out?.scriptpubkey !== 'string' || !Number.isSafeInteger(out.value)) throw new ChainSourceError('esplora', 'address transaction output is malformed');
    return { script: out.scriptpubkey.toLowerCase(), value: BigInt(out.value as number) };
  });
  const confirmed = tx.status?.confirmed === true;
  return {
    txid: tx.txid,
    outputs,
    blockHeight: confirmed && Number.isSafeInteger(tx.status?.block_height) ? (tx.status!.block_height as number) : null,
    blockHash: confirmed && typeof tx.status?.block_hash === 'string' ? tx.status.block_hash : null,
  };
}
