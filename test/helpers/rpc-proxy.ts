import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFlood, type Flood } from './flood.ts';

export type ProxyMode =
  | { kind: 'pass' }
  | { kind: 'down' }
  /** Holds every request unanswered until `release()`: a node that hangs. */
  | { kind: 'hold' }
  | { kind: 'lag'; blocks: number }
  /** Answers null to the first `times` receipt requests of each transaction, as a node that has not mined it yet. */
  | { kind: 'unmined-receipts'; times: number }
  /**
   * A lying source: adds one made-up Transfer log (`value` units of `token` to `to`, transaction
   * FAKE_TX_HASH) to its eth_getLogs answers, in the real block `blockNumber` with that block's real
   * hash, and answers that transaction's receipt to match.
   */
  | { kind: 'fake-transfer'; token: string; to: string; value: bigint; blockNumber: number }
  /** A lying source: every receipt it answers carries another block hash at the same height. */
  | { kind: 'other-block-receipts' }
  /** A lying source: block `blockNumber` has another hash everywhere it shows (headers, logs, receipts). */
  | { kind: 'rewrite-block'; blockNumber: number }
  /** A lying source: every block header it answers (by number or by hash) carries its timestamp moved by `byS` seconds, its hash kept. */
  | { kind: 'shift-time'; byS: number }
  /** A silent source: it answers everything but block headers asked for by hash (null, as for a block it does not have). */
  | { kind: 'no-headers-by-hash' }
  /**
   * A censoring source: leaves every Transfer log to one of `recipients` out of its eth_getLogs
   * answers, and answers null (unknown) for the receipt of any transaction holding one.
   */
  | { kind: 'censor'; recipients: string[] }
  /** A lying source: answers `finalized` with its head block (too high) or the genesis block (too low). */
  | { kind: 'finalized'; claims: 'head' | 'genesis' }
  /**
   * Runs `run` once before forwarding the (`skip` + 1)-th request of `method` (with `dataPrefix`:
   * only calls whose `data` starts with it), then passes everything: someone acting on the chain
   * between a sender's checks and its send.
   */
  | { kind: 'before'; method: string; dataPrefix?: string; skip: number; run: () => Promise<void> }
  /** A broken or hostile source: every answer is a flood (a 100 MB body, a stream without end, headers then silence). */
  | { kind: 'flood'; flood: Flood };

/** The transaction hash of the made-up transfer. */
export const FAKE_TX_HASH = `0x${'fa'.repeat(32)}`;
const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
/** What a lying source says a block's hash is: the real one with its last bytes changed. */
const forgedHash = (hash: string) => `${hash.slice(0, -8)}deadbeef`;

interface JsonRpcRequest {
  method: string;
  params?: unknown[];
}

export interface RpcProxy {
  url: string;
  mode: ProxyMode;
  requests: number;
  /** Answers the held requests and passes everything through again. */
  release(): void;
  close(): Promise<void>;
}

/**
 * A second JSON-RPC source in front of the same node, on its own loopback port, that can be
 * taken down or made to lag: a real HTTP server standing in for an independent provider.
 * Lagging means it reports an older head and does not yet know receipts above it.
 */
/** Any answer (a header, a list of logs, a receipt) with block `number`'s hash, and its child's parent hash, forged. */
function rewriteBlock(result: unknown, number: number): unknown {
  if (Array.isArray(result)) return result.map((item) => rewriteBlock(item, number));
  if (!result || typeof result !== 'object') return result;
  const item = { ...(result as Record<string, unknown>) };
  const height = Number(item.number ?? item.blockNumber);
  if (height === number && typeof item.hash === 'string' && 'parentHash' in item) item.hash = forgedHash(item.hash);
  if (height === number && typeof item.blockHash === 'string') item.blockHash = forgedHash(item.blockHash);
  if (height === number + 1 && typeof item.parentHash === 'string') item.parentHash = forgedHash(item.parentHash);
  if (Array.isArray(item.logs)) item.logs = rewriteBlock(item.logs, number);
  return item;
}

/** Whether a raw log is a Transfer to one of the recipients. */
const paysOneOf = (log: { topics?: string[] }, recipients: readonly string[]) =>
  log.topics?.[0] === TRANSFER_TOPIC && recipients.some((r) => log.topics?.[2]?.toLowerCase() === `0x${r.slice(2).toLowerCase().padStart(64, '0')}`);

/** An answer with the Transfers to `recipients` left out: logs dropped, a receipt holding one unknown. */
function censored(method: string, result: unknown, recipients: readonly string[]): unknown {
  if (method === 'eth_getLogs' && Array.isArray(result)) return result.filter((log) => !paysOneOf(log, recipients));
  const receipt = result as { logs?: Array<{ topics?: string[] }> } | null;
  if (method === 'eth_getTransactionReceipt' && receipt?.logs?.some((log) => paysOneOf(log, recipients))) return null;
  return result;
}

export async function startRpcProxy(target: string): Promise<RpcProxy> {
  const held: Array<() => void> = [];
  const proxy: RpcProxy = {
    url: '',
    mode: { kind: 'pass' },
    requests: 0,
    release() {
      proxy.mode = { kind: 'pass' };
      for (const answer of held.splice(0)) answer();
    },
    close: async () => {},
  };
  const forward = async (body: unknown) => {
    const response = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return (await response.json()) as { result?: unknown; id: unknown; jsonrpc: string };
  };
  const server = createServer(async (req, res) => {
    proxy.requests++;
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (proxy.mode.kind === 'hold') await new Promise<void>((resolve) => held.push(resolve));
    if (proxy.mode.kind === 'down') {
      res.writeHead(503).end('down');
      return;
    }
    if (proxy.mode.kind === 'flood') return writeFlood(res, proxy.mode.flood, () => {});
    const request = JSON.parse(Buffer.concat(chunks).toString()) as JsonRpcRequest | JsonRpcRequest[];
    if (Array.isArray(request)) {
      // A batch (ethers sends one): each request answered as if it came alone.
      const answers = await Promise.all(request.map((one) => answerOne(one)));
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answers));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(await answerOne(request)));
  });
  const receiptAsks = new Map<string, number>();
  async function answerOne(request: JsonRpcRequest) {
    if (proxy.mode.kind === 'before' && request.method === proxy.mode.method) {
      const data = (request.params?.[0] as { data?: string; input?: string } | undefined)?.data ?? (request.params?.[0] as { input?: string } | undefined)?.input;
      const { dataPrefix, run } = proxy.mode;
      if (dataPrefix === undefined || (typeof data === 'string' && data.startsWith(dataPrefix))) {
        if (proxy.mode.skip > 0) proxy.mode = { ...proxy.mode, skip: proxy.mode.skip - 1 };
        else {
          proxy.mode = { kind: 'pass' };
          await run();
        }
      }
    }
    if (proxy.mode.kind === 'fake-transfer' && request.method === 'eth_getTransactionReceipt' && request.params?.[0] === FAKE_TX_HASH) {
      const log = await fakeLog(proxy.mode);
      return { jsonrpc: '2.0', id: (request as { id?: unknown }).id, result: { status: '0x1', transactionHash: FAKE_TX_HASH, blockHash: log.blockHash, blockNumber: log.blockNumber, logs: [log] } };
    }
    const answer = await forward(request);
    if (proxy.mode.kind === 'fake-transfer' && request.method === 'eth_getLogs') {
      const filter = request.params?.[0] as { address: string[]; topics: [string, null, string[]]; fromBlock: string; toBlock: string };
      const { token, to, blockNumber } = proxy.mode;
      const recipient = `0x${to.slice(2).toLowerCase().padStart(64, '0')}`;
      const matches =
        Number(filter.fromBlock) <= blockNumber &&
        blockNumber <= Number(filter.toBlock) &&
        filter.address.some((a) => a.toLowerCase() === token.toLowerCase()) &&
        filter.topics[2].some((t) => t.toLowerCase() === recipient);
      if (matches && Array.isArray(answer.result)) answer.result = [...answer.result, await fakeLog(proxy.mode)];
    }
    if (proxy.mode.kind === 'other-block-receipts' && request.method === 'eth_getTransactionReceipt' && answer.result) {
      const receipt = answer.result as { blockHash: string; logs: Array<{ blockHash: string }> };
      answer.result = { ...receipt, blockHash: forgedHash(receipt.blockHash), logs: receipt.logs.map((l) => ({ ...l, blockHash: forgedHash(l.blockHash) })) };
    }
    if (proxy.mode.kind === 'rewrite-block') answer.result = rewriteBlock(answer.result, proxy.mode.blockNumber);
    const header = answer.result as { timestamp?: string } | null;
    if (proxy.mode.kind === 'shift-time' && request.method.startsWith('eth_getBlockBy') && header?.timestamp) {
      answer.result = { ...header, timestamp: `0x${(Number(header.timestamp) + proxy.mode.byS).toString(16)}` };
    }
    if (proxy.mode.kind === 'no-headers-by-hash' && request.method === 'eth_getBlockByHash') answer.result = null;
    if (proxy.mode.kind === 'censor') answer.result = censored(request.method, answer.result, proxy.mode.recipients);
    if (proxy.mode.kind === 'finalized' && request.method === 'eth_getBlockByNumber' && request.params?.[0] === 'finalized') {
      const tag = proxy.mode.claims === 'head' ? 'latest' : '0x0';
      answer.result = (await forward({ jsonrpc: '2.0', id: 0, method: 'eth_getBlockByNumber', params: [tag, false] })).result;
    }
    if (proxy.mode.kind === 'unmined-receipts' && request.method === 'eth_getTransactionReceipt') {
      const hash = String(request.params?.[0]);
      const asked = (receiptAsks.get(hash) ?? 0) + 1;
      receiptAsks.set(hash, asked);
      if (asked <= proxy.mode.times) answer.result = null;
    }
    if (proxy.mode.kind === 'lag') {
      const head = Number((await forward({ jsonrpc: '2.0', id: 0, method: 'eth_blockNumber', params: [] })).result) - proxy.mode.blocks;
      if (request.method === 'eth_blockNumber') answer.result = `0x${head.toString(16)}`;
      const receipt = answer.result as { blockNumber?: string } | null;
      if (request.method === 'eth_getTransactionReceipt' && receipt && Number(receipt.blockNumber) > head) answer.result = null;
    }
    return answer;
  }
  /** The made-up log, in the real block's hash. */
  async function fakeLog(mode: { token: string; to: string; value: bigint; blockNumber: number }) {
    const block = (await forward({ jsonrpc: '2.0', id: 0, method: 'eth_getBlockByNumber', params: [`0x${mode.blockNumber.toString(16)}`, false] })).result as { hash: string };
    return {
      address: mode.token,
      topics: [TRANSFER_TOPIC, `0x${'11'.repeat(32)}`, `0x${mode.to.slice(2).toLowerCase().padStart(64, '0')}`],
      data: `0x${mode.value.toString(16).padStart(64, '0')}`,
      blockNumber: `0x${mode.blockNumber.toString(16)}`,
      blockHash: block.hash,
      transactionHash: FAKE_TX_HASH,
      transactionIndex: '0x0',
      logIndex: '0x0',
      removed: false,
    };
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return proxy;
}
