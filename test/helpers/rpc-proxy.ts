import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export type ProxyMode =
  | { kind: 'pass' }
  | { kind: 'down' }
  /** Holds every request unanswered until `release()`: a node that hangs. */
  | { kind: 'hold' }
  | { kind: 'lag'; blocks: number }
  /** Answers null to the first `times` receipt requests of each transaction, as a node that has not mined it yet. */
  | { kind: 'unmined-receipts'; times: number };

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
    const answer = await forward(request);
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
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return proxy;
}
