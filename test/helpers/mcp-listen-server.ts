/**
 * An HTTP server for MCP 2026-07-28 `subscriptions/listen` on a real database and status feed,
 * built from the parts the endpoint uses (edge/http/mcp-listen.ts in front of the SDK 2 handler):
 * each merchant (header x-merchant, standing for its key) reads its invoices through its own
 * reader, as Cloud's client reads them; the feed's watches counted, to see them all released.
 */
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import type { Kysely } from 'kysely';
import { createMcpHandler, InMemoryServerEventBus, McpServer } from '@modelcontextprotocol/server';
import { silentLogger } from '../../core/log.ts';
import type { CoreTables } from '../../core/schema.ts';
import { findInvoice } from '../../core/invoices/invoice.repository.ts';
import type { StatusFeed } from '../../core/invoices/status-feed.ts';
import { errorMiddleware } from '../../edge/http/error-middleware.ts';
import { readJsonBody } from '../../edge/http/json-body.ts';
import { answerMcpListen } from '../../edge/http/mcp-listen.ts';
import { feedUpdates } from '../../mcp/invoice-watch.ts';
import { createInvoiceListen, isListenRequest, type InvoiceListen, type ListenCaller } from '../../mcp/listen/invoice-listen.ts';
import { createStreamKeepAlive } from '../../mcp/stream-keep-alive.ts';
import { answerWithWebHandler } from '../../mcp/web-handler-bridge.ts';

/** The real feed, with a count of its open watches (what a leak would leave behind). */
function countedFeed(feed: Pick<StatusFeed, 'watch'>) {
  let open = 0;
  return {
    watch: (invoiceId: string, listener: Parameters<StatusFeed['watch']>[1]) => {
      open++;
      const stop = feed.watch(invoiceId, listener);
      let live = true;
      return () => {
        if (!live) return;
        live = false;
        open--;
        stop();
      };
    },
    get open() {
      return open;
    },
  };
}

export interface ListenServer {
  url: string;
  listen: InvoiceListen;
  feed: ReturnType<typeof countedFeed>;
  close(): Promise<void>;
}

export interface ListenServerLimits {
  perStream?: number;
  perOwner?: number;
  overall?: number;
  lifetimeMs?: number;
}

export async function startListenServer(db: Kysely<CoreTables>, feed: Pick<StatusFeed, 'watch'>, limits: ListenServerLimits = {}): Promise<ListenServer> {
  const bus = new InMemoryServerEventBus();
  const counted = countedFeed(feed);
  // A listen request reads only the server's capabilities: resources it can subscribe to.
  const factory = () => new McpServer({ name: 'service-mcp', version: '1.0.0' }, { capabilities: { resources: { subscribe: true } } });
  const handler = createMcpHandler(factory, { legacy: 'reject', bus, keepAliveMs: 0, maxSubscriptions: limits.overall ?? 1024 });
  const listen = createInvoiceListen({ bus, maxInvoicesPerStream: limits.perStream, maxStreamsPerOwner: limits.perOwner ?? 100, lifetimeMs: limits.lifetimeMs ?? 600_000 });
  const keepAlive = createStreamKeepAlive();
  const callerOf = (merchantId: string): ListenCaller => ({
    owner: merchantId,
    listener: {
      getInvoice: async (invoiceId) => {
        const row = await findInvoice(db, merchantId, invoiceId);
        return row ? { ok: true, value: row } : { ok: false, failure: { code: 'not_found', message: 'No such invoice.', status: 404 } };
      },
    },
    updates: feedUpdates(counted, merchantId),
  });
  const app = new Koa();
  // As the listener's app: a client that drops its stream is no error to print.
  app.silent = true;
  app.use(errorMiddleware(silentLogger));
  app.use(async (ctx) => {
    const body = ctx.method === 'POST' ? await readJsonBody(ctx) : undefined;
    if (isListenRequest(body)) return answerMcpListen(ctx, callerOf(ctx.get('x-merchant')), body, { listen, keepAlive, forward: (request) => handler.fetch(request, { parsedBody: body }) });
    ctx.respond = false;
    await answerWithWebHandler(ctx.req, ctx.res, (request) => handler.fetch(request, { parsedBody: body }), keepAlive);
  });
  const server = app.listen(0, '127.0.0.1');
  server.maxConnections = 10_000;
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    listen,
    feed: counted,
    async close() {
      await handler.close();
      listen.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
