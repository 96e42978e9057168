import { createServer, request, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CredentialProxy {
  /** The proxy's origin, e.g. `http://127.0.0.1:41234`; paths are the target's. */
  url: string;
  close(): Promise<void>;
}

/**
 * What an agent host configured with an API key does: adds `Authorization: Bearer <key>` to every
 * request and otherwise passes bytes and headers through unchanged, Host and Origin included (the
 * conformance suite's DNS-rebinding scenario sends a foreign Host and Origin, and must meet the
 * server's own Origin check, not the proxy's). The conformance suite's `server` command has no way
 * to send a credential, and our MCP endpoints take none without one.
 */
export async function startCredentialProxy(target: string, key: string): Promise<CredentialProxy> {
  const to = new URL(target);
  const server = createServer((incoming, outgoing) => {
    const headers: IncomingHttpHeaders = { ...incoming.headers, authorization: `Bearer ${key}` };
    const forwarded = request({ host: to.hostname, port: to.port, method: incoming.method, path: incoming.url, headers }, (answer) => {
      outgoing.writeHead(answer.statusCode ?? 502, answer.statusMessage, answer.rawHeaders);
      answer.pipe(outgoing);
    });
    forwarded.on('error', (error) => {
      if (!outgoing.headersSent) outgoing.writeHead(502, { 'content-type': 'text/plain' });
      outgoing.end(`credential proxy: ${error.message}`);
    });
    // A client that hangs up (e.g. closes an event stream) ends the forwarded request too.
    outgoing.on('close', () => forwarded.destroy());
    incoming.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
