import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export type ProxyMode = { kind: 'pass' } | { kind: 'down' } | { kind: 'lag'; blocks: number };

export interface RpcProxy {
  url: string;
  mode: ProxyMode;
  requests: number;
  close(): Promise<void>;
}

/**
 * A second JSON-RPC source in front of the same node, on its own loopback port, that can be
 * taken down or made to lag: a real HTTP server standing in for an independent provider.
 * Lagging means it reports an older head and does not yet know receipts above it.
 */
export async function startRpcProxy(target: string): Promise<RpcProxy> {
  const proxy: RpcProxy = { url: '', mode: { kind: 'pass' }, requests: 0, close: async () => {} };
  const forward = async (body: unknown) => {
    const response = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return (await response.json()) as { result?: unknown; id: unknown; jsonrpc: string };
  };
  const server = createServer(async (req, res) => {
    proxy.requests++;
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (proxy.mode.kind === 'down') {
      res.writeHead(503).end('down');
      return;
    }
    const body = JSON.parse(Buffer.concat(chunks).toString()) as { method: string } | Array<{ method: string }>;
    const answerOne = async (request: { method: string }) => {
      const answer = await forward(request);
      if (proxy.mode.kind === 'lag') {
        const head = Number((await forward({ jsonrpc: '2.0', id: 0, method: 'eth_blockNumber', params: [] })).result) - proxy.mode.blocks;
        if (request.method === 'eth_blockNumber') answer.result = `0x${head.toString(16)}`;
        const receipt = answer.result as { blockNumber?: string } | null;
        if (request.method === 'eth_getTransactionReceipt' && receipt && Number(receipt.blockNumber) > head) answer.result = null;
      }
      return answer;
    };
    // A JSON-RPC batch lags call by call, like a node that is behind.
    const answer = Array.isArray(body) ? await Promise.all(body.map(answerOne)) : await answerOne(body);
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return proxy;
}
