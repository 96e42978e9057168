import { getAddress } from 'ethers';
import { TRANSFER_TOPIC, type RawLog } from './chain.ts';
import { RpcError, type RpcSource } from './rpc.ts';

/** One Transfer log as recorded: what every source must report identically for it to count. */
export interface ObservedTransfer {
  txHash: string;
  logIndex: number;
  blockNumber: number;
  blockHash: string;
  token: string;
  to: string;
  value: bigint;
}

interface Receipt {
  status: string;
  blockHash: string;
  blockNumber: string;
  logs: RawLog[];
}

/** One source's answer for a set of transfers: its head and each transaction's receipt (null: unknown to it). */
export interface SourceAnswer {
  source: string;
  head: number;
  receipts: ReadonlyMap<string, Receipt | null>;
}

/**
 * Asks one source, in one batch request where it takes batches, for its head and the receipts of
 * the given transactions. Null when the source cannot be reached or refuses a call: it then neither
 * agrees nor disagrees.
 */
export async function askSource(source: RpcSource, txHashes: readonly string[]): Promise<SourceAnswer | null> {
  try {
    const answers = await source.batch([{ method: 'eth_blockNumber', params: [] }, ...txHashes.map((hash) => ({ method: 'eth_getTransactionReceipt', params: [hash] }))]);
    if (answers.some((answer) => answer instanceof RpcError)) return null;
    const [headHex, ...receipts] = answers as [string, ...Array<Receipt | null>];
    return { source: source.label, head: Number(headHex), receipts: new Map(txHashes.map((hash, i) => [hash, receipts[i] ?? null])) };
  } catch {
    return null;
  }
}

/** What one source said about one recorded transfer. */
export type SourceView =
  | { kind: 'agrees' }
  /** Not deep enough on this source yet (or it lags): no vote either way. */
  | { kind: 'not-yet' }
  /** At the required depth, the source does not have this log. */
  | { kind: 'no-log' }
  /** The source has the transaction in another block at that height. */
  | { kind: 'other-block'; blockHash: string };

/** One source's view of one transfer, counted against that source's own head. */
export function viewOf(answer: SourceAnswer, transfer: ObservedTransfer, confirmations: number): SourceView {
  const deepEnough = answer.head - transfer.blockNumber + 1 >= confirmations;
  const receipt = answer.receipts.get(transfer.txHash) ?? null;
  if (!deepEnough) return { kind: 'not-yet' };
  if (!receipt) return { kind: 'no-log' };
  if (receipt.blockHash !== transfer.blockHash) {
    return Number(receipt.blockNumber) === transfer.blockNumber ? { kind: 'other-block', blockHash: receipt.blockHash } : { kind: 'no-log' };
  }
  if (receipt.status !== '0x1') return { kind: 'no-log' };
  return receiptHasLog(receipt, transfer) ? { kind: 'agrees' } : { kind: 'no-log' };
}

function receiptHasLog(receipt: Receipt, transfer: ObservedTransfer): boolean {
  const log = receipt.logs.find((l) => Number(l.logIndex) === transfer.logIndex);
  if (!log || log.topics[0] !== TRANSFER_TOPIC || log.topics.length !== 3) return false;
  try {
    return getAddress(log.address) === transfer.token && getAddress(`0x${log.topics[2].slice(-40)}`) === transfer.to && BigInt(log.data) === transfer.value;
  } catch {
    return false;
  }
}

/** A source named in /health: what it reported that the others do not. */
export interface Disagreement {
  source: string;
  reason: string;
}

/** How the sources judged one transfer: who agrees, and who is named for disagreeing. */
export interface Verdict {
  agreeing: string[];
  disagreements: Disagreement[];
}

/**
 * Judges one recorded transfer from every source's answer at settlement. A log only some sources
 * report names them when they are not more than the others that, at depth, do not have it (a
 * source cannot prove a log absent, but a made-up log is the attack); a block hash at the
 * transfer's height names the side with fewer sources, both on a tie. Pure.
 */
export function judge(transfer: ObservedTransfer, answers: readonly SourceAnswer[], confirmations: number): Verdict {
  const views = answers.map((answer) => ({ source: answer.source, view: viewOf(answer, transfer, confirmations) }));
  const agreeing = [...new Set(views.filter((v) => v.view.kind === 'agrees').map((v) => v.source))];
  const lacking = views.filter((v) => v.view.kind === 'no-log').map((v) => v.source);
  const otherBlocks = views.filter((v) => v.view.kind === 'other-block');
  const disagreements: Disagreement[] = [];
  const what = `transfer ${transfer.txHash} log ${transfer.logIndex} in block ${transfer.blockNumber}`;
  if (lacking.length && agreeing.length <= lacking.length) {
    const others = `${lacking.join(', ')} do not report`;
    for (const source of agreeing) disagreements.push({ source, reason: `reports ${what} that ${others}` });
  } else if (lacking.length) {
    for (const source of lacking) disagreements.push({ source, reason: `does not report ${what} that ${agreeing.join(', ')} do` });
  }
  if (otherBlocks.length) {
    const sameBlock = agreeing.filter((s) => !otherBlocks.some((o) => o.source === s));
    const named = sameBlock.length > otherBlocks.length ? [] : sameBlock;
    for (const source of named) disagreements.push({ source, reason: `reports block ${transfer.blockHash} at height ${transfer.blockNumber} where ${otherBlocks.map((o) => o.source).join(', ')} report another` });
    if (sameBlock.length >= otherBlocks.length) {
      for (const o of otherBlocks) {
        const hash = o.view.kind === 'other-block' ? o.view.blockHash : '';
        disagreements.push({ source: o.source, reason: `reports block ${hash} at height ${transfer.blockNumber} where ${sameBlock.join(', ')} report ${transfer.blockHash}` });
      }
    }
  }
  return { agreeing, disagreements };
}

/**
 * How an EVM confirmation was verified, as invoices and `invoice.confirmed` say it: by how many
 * independent sources reported the completing transfer, or, with one, the operator's own node
 * (`<PREFIX>_MIN_SOURCES=1`).
 */
export function evmVerification(agreeingSources: number): string {
  return agreeingSources > 1 ? `sources:${agreeingSources}` : 'own-node';
}
