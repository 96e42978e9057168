import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type Router from '@koa/router';
import type Koa from 'koa';

/** Serves a Koa app on host:port (0 = a free port) and returns the server and its URL. */
export async function serveHttp(app: Koa, port: number, host: string): Promise<{ server: Server; url: string }> {
  const server = createServer(app.callback());
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return { server, url: `http://${shown}:${address.port}` };
}

/** GET openapi.json and llms.txt on a router (under its prefix). */
export function documentRoutes(router: Router, documents: { openapi: string; llms: string }): void {
  router.get('/openapi.json', (ctx) => {
    ctx.type = 'application/json';
    ctx.body = documents.openapi;
  });
  router.get('/llms.txt', (ctx) => {
    ctx.type = 'text/plain; charset=utf-8';
    ctx.body = documents.llms;
  });
}
