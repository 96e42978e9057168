import { getAddress, id, zeroPadValue } from 'ethers';
import { RpcError, type RpcSource } from './rpc.ts';

export const TRANSFER_TOPIC = id('Transfer(address,address,uint256)');

export interface BlockHeader {
  number: number;
  hash: string;
  parentHash: string;
  /** Block timestamp in epoch ms. */
  time: number;
}

export interface TransferLog {
  token: string;
  from: string;
  to: string;
  value: bigint;
  txHash: string;
  logIndex: number;
  blockNumber: number;
  blockHash: string;
}

interface RawLog {
  address: string;
  topics: string[];
  data: string;
  transactionHash: string;
  logIndex: string;
  blockNumber: string;
  blockHash: string;
  removed?: boolean;
}

export async function headNumber(source: RpcSource): Promise<number> {
  return Number(await source.call<string>('eth_blockNumber', []));
}

export async function blockHeader(source: RpcSource, number: number): Promise<BlockHeader | null> {
  const block = await source.call<{ number: string; hash: string; parentHash: string; timestamp: string } | null>(
    'eth_getBlockByNumber',
    [toHex(number), false],
  );
  if (!block) return null;
  return { number: Number(block.number), hash: block.hash, parentHash: block.parentHash, time: Number(block.timestamp) * 1000 };
}

export interface TransferFilter {
  tokens: readonly string[];
  recipients: readonly string[];
  fromBlock: number;
  toBlock: number;
  /** Recipients per eth_getLogs call: providers cap the size of a topic OR-list. */
  recipientsPerCall: number;
  /** Blocks per eth_getLogs call: providers cap the block range of one query. */
  maxBlockRange: number;
}

/**
 * Transfer logs of the given tokens to the given recipients, with one eth_getLogs call per
 * chunk of recipients and block range: the number of calls does not grow with the number of
 * transfers or invoices beyond one call per chunk. A range the node refuses (too many results
 * or too wide) is halved until it passes.
 */
export async function transferLogs(source: RpcSource, filter: TransferFilter): Promise<TransferLog[]> {
  const logs: TransferLog[] = [];
  if (filter.recipients.length === 0 || filter.tokens.length === 0) return logs;
  for (let i = 0; i < filter.recipients.length; i += filter.recipientsPerCall) {
    const topics = filter.recipients.slice(i, i + filter.recipientsPerCall).map((a) => zeroPadValue(a, 32));
    for (let from = filter.fromBlock; from <= filter.toBlock; from += filter.maxBlockRange) {
      const to = Math.min(filter.toBlock, from + filter.maxBlockRange - 1);
      logs.push(...(await logsSplitting(source, [...filter.tokens], topics, from, to)));
    }
  }
  return logs;
}

async function logsSplitting(source: RpcSource, tokens: string[], recipientTopics: string[], from: number, to: number): Promise<TransferLog[]> {
  try {
    const raw = await source.call<RawLog[]>('eth_getLogs', [
      { address: tokens, topics: [TRANSFER_TOPIC, null, recipientTopics], fromBlock: toHex(from), toBlock: toHex(to) },
    ]);
    return raw.filter((log) => !log.removed && log.topics.length === 3).map(decodeTransfer);
  } catch (error) {
    if (!(error instanceof RpcError) || from === to) throw error;
    const middle = Math.floor((from + to) / 2);
    return [
      ...(await logsSplitting(source, tokens, recipientTopics, from, middle)),
      ...(await logsSplitting(source, tokens, recipientTopics, middle + 1, to)),
    ];
  }
}

export function decodeTransfer(log: RawLog): TransferLog {
  return {
    token: getAddress(log.address),
    from: topicToAddress(log.topics[1]),
    to: topicToAddress(log.topics[2]),
    value: BigInt(log.data === '0x' ? 0 : log.data),
    txHash: log.transactionHash,
    logIndex: Number(log.logIndex),
    blockNumber: Number(log.blockNumber),
    blockHash: log.blockHash,
  };
}

function topicToAddress(topic: string): string {
  return getAddress(`0x${topic.slice(-40)}`);
}

export function toHex(n: number): string {
  return `0x${n.toString(16)}`;
}

export type { RawLog };
