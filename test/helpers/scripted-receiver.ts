import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** Resolves when the sender closes the connection (e.g. after a timeout abort). */
  closed: Promise<void>;
}

/** How to answer one request; `hang` never answers. */
export type Answer = { status: number; body?: string; headers?: Record<string, string> } | 'hang';

/** A real HTTP server on 127.0.0.1 that records every request and answers as the test scripts it. */
export async function startScriptedReceiver(answer: (req: ReceivedRequest, index: number) => Answer) {
  const requests: ReceivedRequest[] = [];
  const hanging = new Set<ServerResponse>();
  const listeners = new Set<() => void>();
  const server = createServer(async (req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const received: ReceivedRequest = {
      method: req.method ?? '',
      path: req.url ?? '',
      headers: req.headers,
      body: Buffer.concat(chunks),
      closed: new Promise((resolve) => res.once('close', () => resolve())),
    };
    requests.push(received);
    const reply = answer(received, requests.length - 1);
    listeners.forEach((l) => l());
    if (reply === 'hang') {
      hanging.add(res);
      return;
    }
    res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
    res.end(reply.body ?? '');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhook`,
    requests,
    /** Resolves once `count` requests have arrived. */
    waitForRequests(count: number): Promise<void> {
      return new Promise((resolve) => {
        const check = () => requests.length >= count && (listeners.delete(check), resolve());
        listeners.add(check);
        check();
      });
    },
    async close() {
      for (const res of hanging) res.destroy();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
