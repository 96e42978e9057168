import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface PublicProviderRules {
  /** Every n-th request is answered 429, alternating Retry-After forms (seconds, HTTP-date, none). */
  every429?: number;
  /** Seconds of the Retry-After window. */
  retryAfterS?: number;
  /** eth_getLogs block range above this is refused like Infura: -32602 "range N exceeds limit of M". */
  maxLogRange?: number;
  /** eth_getLogs answers with more logs than this are refused like Infura: -32005 with a suggested range. */
  maxLogResults?: number;
  /** Batch bodies are refused with a single JSON-RPC error, as some public endpoints do. */
  refuseBatches?: boolean;
}

export interface PublicRpcProxy {
  url: string;
  rules: PublicProviderRules;
  counts: { requests: number; batches: number; refusedBatches: number; http429: number; rangeErrors: number; resultErrors: number; insideWindow: number };
  close(): Promise<void>;
}

interface JsonRpcRequest {
  id: unknown;
  method: string;
  params: unknown[];
}
interface LogFilter {
  fromBlock: string;
  toBlock: string;
}

/**
 * A real HTTP server in front of a node that answers like a public JSON-RPC provider: rate limited
 * with 429 and Retry-After, eth_getLogs limited in block range and result count with the
 * providers' own error codes and words, batches refused. It counts every request that arrives
 * inside a Retry-After window it announced.
 */
export async function startPublicRpcProxy(target: string, rules: PublicProviderRules): Promise<PublicRpcProxy> {
  const counts = { requests: 0, batches: 0, refusedBatches: 0, http429: 0, rangeErrors: 0, resultErrors: 0, insideWindow: 0 };
  const proxy: PublicRpcProxy = { url: '', rules, counts, close: async () => {} };
  let windowEnd = 0;
  let style = 0;

  const forward = async (body: unknown) => {
    const response = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return response.json() as Promise<unknown>;
  };

  async function answer(request: JsonRpcRequest): Promise<unknown> {
    const reply = (await forward(request)) as { result?: unknown };
    if (request.method !== 'eth_getLogs') return reply;
    const filter = request.params[0] as LogFilter;
    const [from, to] = [Number(filter.fromBlock), Number(filter.toBlock)];
    if (proxy.rules.maxLogRange && to - from + 1 > proxy.rules.maxLogRange) {
      counts.rangeErrors++;
      return { jsonrpc: '2.0', id: request.id, error: { code: -32602, message: `range ${to - from + 1} exceeds limit of ${proxy.rules.maxLogRange}` } };
    }
    const logs = reply.result as Array<{ blockNumber: string }>;
    if (proxy.rules.maxLogResults !== undefined && Array.isArray(logs) && logs.length > proxy.rules.maxLogResults) {
      counts.resultErrors++;
      // Infura suggests the range up to the block before the one that overflows.
      const last = Math.max(from, Number(logs[proxy.rules.maxLogResults].blockNumber) - 1);
      return {
        jsonrpc: '2.0',
        id: request.id,
        error: {
          code: -32005,
          data: { from: filter.fromBlock, to: `0x${last.toString(16)}`, limit: proxy.rules.maxLogResults },
          message: `query returned more than ${proxy.rules.maxLogResults} results. Try with this block range [${filter.fromBlock}, 0x${last.toString(16)}].`,
        },
      };
    }
    return reply;
  }

  const server = createServer(async (req, res) => {
    counts.requests++;
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const now = Date.now();
    if (now < windowEnd) counts.insideWindow++;
    if (proxy.rules.every429 && counts.requests % proxy.rules.every429 === 0) {
      counts.http429++;
      const seconds = proxy.rules.retryAfterS ?? 1;
      const headers: Record<string, string> = {};
      const form = style++ % 3;
      if (form === 0) {
        headers['retry-after'] = String(seconds);
        windowEnd = Math.max(windowEnd, now + seconds * 1000);
      } else if (form === 1) {
        // An HTTP-date has whole seconds: the window ends at the date it names.
        const end = Math.ceil((now + seconds * 1000) / 1000) * 1000;
        headers['retry-after'] = new Date(end).toUTCString();
        windowEnd = Math.max(windowEnd, end);
      }
      res.writeHead(429, { 'content-type': 'application/json', ...headers }).end('{"jsonrpc":"2.0","id":null,"error":{"code":429,"message":"Too Many Requests"}}');
      return;
    }
    const body = JSON.parse(Buffer.concat(chunks).toString()) as JsonRpcRequest | JsonRpcRequest[];
    let reply: unknown;
    if (Array.isArray(body)) {
      counts.batches++;
      if (proxy.rules.refuseBatches) {
        counts.refusedBatches++;
        reply = { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'batch requests are not supported' } };
      } else {
        reply = await Promise.all(body.map(answer));
      }
    } else {
      reply = await answer(body);
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(reply));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v3/SECRET_KEY`;
  proxy.close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return proxy;
}
