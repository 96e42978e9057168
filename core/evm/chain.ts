import { getAddress, id, zeroPadValue } from 'ethers';
import { RpcError, RpcUnavailableError, type RpcSource } from './rpc.ts';

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

/** The calls of a source's head batch: its head, its chain id until checked, its `finalized` block when the chain settles by the tag. */
interface HeadAnswer {
  head: number;
  /** Null when not asked. */
  chainId: number | null;
  /** Null when not asked or not answered (the node does not serve the tag). */
  finalized: number | null;
  /** Its header at the height asked (null: it does not have that block; undefined: not asked). */
  header?: BlockHeader | null;
}

/**
 * One request where the node takes batches: the head, and with it the chain id, the `finalized`
 * block and the header at one height when asked. The head must be answered; a refused tag is no answer; anything unreadable is
 * the source's fault and fails the call (the source is then not heard this pass).
 */
export async function headOf(source: RpcSource, ask: { chainId: boolean; finalized: boolean; header: number | null }): Promise<HeadAnswer> {
  const calls = [
    { method: 'eth_blockNumber', params: [] },
    ...(ask.chainId ? [{ method: 'eth_chainId', params: [] }] : []),
    ...(ask.finalized ? [{ method: 'eth_getBlockByNumber', params: ['finalized', false] }] : []),
    ...(ask.header !== null ? [headerCall(ask.header)] : []),
  ];
  const [head, ...rest] = await source.batch(calls);
  const chainId = ask.chainId ? rest.shift() : undefined;
  const finalized = ask.finalized ? rest.shift() : undefined;
  const header = ask.header !== null ? headerAnswer(rest.shift()) : undefined;
  if (head instanceof RpcError) throw head;
  if (chainId instanceof RpcError) throw chainId;
  return {
    head: quantity(head, 'eth_blockNumber', source),
    chainId: ask.chainId ? quantity(chainId, 'eth_chainId', source) : null,
    finalized: finalized && !(finalized instanceof RpcError) ? quantity((finalized as RawHeader).number, 'the finalized block', source) : null,
    header,
  };
}

/** A hex quantity a source answered, or its failure naming what was unreadable. */
function quantity(value: unknown, what: string, source: RpcSource): number {
  if (typeof value !== 'string' || !/^0x[0-9a-f]{1,15}$/i.test(value)) throw new RpcUnavailableError(`${source.label} answered ${what} that is not a hex number`);
  return Number(value);
}

interface RawHeader {
  number: string;
  hash: string;
  parentHash: string;
  timestamp: string;
}

function toHeader(block: RawHeader | null): BlockHeader | null {
  if (!block) return null;
  if (typeof block.hash !== 'string' || typeof block.parentHash !== 'string' || typeof block.number !== 'string' || typeof block.timestamp !== 'string') {
    throw new RpcUnavailableError('a source answered a block header without its number, hash, parent hash or timestamp');
  }
  return { number: Number(block.number), hash: block.hash, parentHash: block.parentHash, time: Number(block.timestamp) * 1000 };
}

export async function blockHeader(source: RpcSource, number: number): Promise<BlockHeader | null> {
  return toHeader(await source.call<RawHeader | null>('eth_getBlockByNumber', [toHex(number), false]));
}

/** Headers of several blocks in one batch where the node takes batches; null for a block it does not have. */
export async function blockHeaders(source: RpcSource, numbers: number[]): Promise<Map<number, BlockHeader | null>> {
  const answers = await source.batch(numbers.map(headerCall));
  return new Map(numbers.map((n, i) => [n, headerAnswer(answers[i])]));
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
 * chunk of recipients and block range, sent as one batch where the node takes batches: the
 * number of calls does not grow with the number of transfers or invoices beyond one call per
 * chunk. A range the provider refuses for its size is split (see logsSplitting). The headers of
 * `headerNumbers` are asked ahead of the logs in the same batch (a header asked first and a log of
 * a later fork is a reorg the next pass finds; never the reverse).
 */
export async function scanBlocks(source: RpcSource, filter: TransferFilter, headerNumbers: readonly number[]): Promise<{ headers: Map<number, BlockHeader | null>; logs: TransferLog[] }> {
  const queries: LogQuery[] = [];
  for (let i = 0; filter.tokens.length > 0 && i < filter.recipients.length; i += filter.recipientsPerCall) {
    const topics = filter.recipients.slice(i, i + filter.recipientsPerCall).map((a) => zeroPadValue(a, 32));
    for (let from = filter.fromBlock; from <= filter.toBlock; from += filter.maxBlockRange) {
      queries.push({ tokens: [...filter.tokens], recipientTopics: topics, from, to: Math.min(filter.toBlock, from + filter.maxBlockRange - 1) });
    }
  }
  const answers = await source.batch([...headerNumbers.map(headerCall), ...queries.map(getLogsCall)]);
  const headers = new Map<number, BlockHeader | null>();
  for (const [i, number] of headerNumbers.entries()) headers.set(number, headerAnswer(answers[i]));
  const logs: TransferLog[] = [];
  for (const [i, answer] of answers.slice(headerNumbers.length).entries()) {
    logs.push(...(answer instanceof RpcError ? await afterRefusal(source, queries[i], answer) : decodeTransfers(answer as RawLog[])));
  }
  return { headers, logs };
}

const headerCall = (n: number) => ({ method: 'eth_getBlockByNumber', params: [toHex(n), false] });

function headerAnswer(answer: unknown): BlockHeader | null {
  if (answer instanceof RpcError) throw answer;
  return toHeader(answer as RawHeader | null);
}

interface LogQuery {
  tokens: string[];
  recipientTopics: string[];
  from: number;
  to: number;
}

function getLogsCall(q: LogQuery) {
  return {
    method: 'eth_getLogs',
    params: [{ address: q.tokens, topics: [TRANSFER_TOPIC, null, q.recipientTopics], fromBlock: toHex(q.from), toBlock: toHex(q.to) }],
  };
}

function decodeTransfers(raw: RawLog[]): TransferLog[] {
  return raw.filter((log) => !log.removed && log.topics.length === 3).map(decodeTransfer);
}

/**
 * How public providers refuse an eth_getLogs query for its size, in their own words: Infura
 * (-32005 "query returned more than 10000 results. Try with this block range [0x…, 0x…]", -32602
 * "range 1000000 exceeds limit of 10000"), Alchemy ("Log response size exceeded…", "You can make
 * eth_getLogs requests with up to a 500 block range… this block range should work: [0x…, 0x…]"),
 * QuickNode ("eth_getLogs and eth_newFilter are limited to a 10,000 blocks range"), and other
 * nodes ("query returned more than 10000 results", "block range too high", "block range is too
 * wide (maximum 1024)", "block range is bigger than maxBlockRange").
 */
const LOG_LIMIT = [
  /returned more than [\d,]+ results/i,
  /response size/i,
  /block range/i,
  /blocks range/i,
  /range \d+ exceeds limit/i,
  /too many (results|logs|blocks)/i,
  /limit exceeded/i,
];
const LIMIT_EXCEEDED = -32005;

export function isLogLimitError(error: RpcError): boolean {
  return error.code === LIMIT_EXCEEDED || LOG_LIMIT.some((pattern) => pattern.test(error.message));
}

/** The end block of the range the provider suggests ("[0xfrom, 0xto]"), when it starts where we asked and is narrower. */
function suggestedEnd(error: RpcError, from: number, to: number): number | null {
  const match = /\[\s*(0x[0-9a-f]+)\s*,\s*(0x[0-9a-f]+)\s*\]/i.exec(error.message);
  if (!match) return null;
  const [start, end] = [Number(match[1]), Number(match[2])];
  return start === from && end >= from && end < to ? end : null;
}

/**
 * A query refused for its size is split, at the end the provider suggests or else in halves,
 * down to single blocks; any other error is the caller's (the watcher retries next poll).
 */
async function afterRefusal(source: RpcSource, q: LogQuery, error: RpcError): Promise<TransferLog[]> {
  if (!isLogLimitError(error) || q.from === q.to) throw error;
  const end = suggestedEnd(error, q.from, q.to) ?? Math.floor((q.from + q.to) / 2);
  return [...(await logsSplitting(source, { ...q, to: end })), ...(await logsSplitting(source, { ...q, from: end + 1 }))];
}

async function logsSplitting(source: RpcSource, q: LogQuery): Promise<TransferLog[]> {
  const call = getLogsCall(q);
  try {
    return decodeTransfers(await source.call<RawLog[]>(call.method, call.params));
  } catch (error) {
    if (!(error instanceof RpcError)) throw error;
    return afterRefusal(source, q, error);
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
