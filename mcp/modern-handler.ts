import type { IncomingMessage, ServerResponse } from 'node:http';
import { createMcpHandler, isLegacyRequest, type McpServer, type ServerEventBus } from '@modelcontextprotocol/server';
import { ServiceError } from '../core/errors.ts';
import type { Logger } from '../core/log.ts';
import { MAX_SUBSCRIPTIONS } from './invoice-watch.ts';
import type { ListenerClient } from './listener-client.ts';
import { answerWithWebHandler, webRequestOf } from './web-handler-bridge.ts';

export interface ModernMcpOptions<Caller extends object> {
  /** The MCP server answering one request, its tools bound to that request's caller (createServer). */
  open(caller: Caller): McpServer;
  /**
   * Where open `subscriptions/listen` streams hear of changes (tools, resources, an invoice's
   * `resources/updated`); default: a bus of this process that nothing publishes on yet.
   */
  bus?: ServerEventBus;
  /** The largest request body, in bytes: the same bound as the JSON body the endpoint reads. */
  maxRequestBodySize: number;
  /** Open `subscriptions/listen` streams at most (MCP_MAX_LISTEN_STREAMS); beyond, the SDK answers -32603. */
  maxListenStreams: number;
  /** Open `subscriptions/listen` streams at most per owner, so one owner cannot take every stream. */
  maxListenStreamsPerOwner: number;
  /** How often an open event stream gets a keep-alive comment (default 15 s). */
  keepAliveMs?: number;
  logger: Logger;
}

/** The 2026-07-28 side of the MCP endpoint: stateless, one server per request. */
export interface ModernMcpHandler<Caller extends object> {
  /** Whether this request speaks 2026-07-28 (or claims to, malformed): the SDK's own classification. */
  isModern(req: IncomingMessage, body: unknown): Promise<boolean>;
  /**
   * Holds a `subscriptions/listen` stream's place in its owner's bound until the returned release is
   * called (a no-op for any other request), or throws a ServiceError before anything is written.
   */
  admit(body: unknown, owner: string): () => void;
  /** Answers one modern request for `caller` on the raw response (JSON, or an event stream). */
  answer(req: IncomingMessage, res: ServerResponse, body: unknown, caller: Caller): Promise<void>;
  /** The bus the listen streams subscribe to (the one given, or the default). */
  bus: ServerEventBus;
  close(): Promise<void>;
}

const isListen = (body: unknown) => typeof body === 'object' && body !== null && (body as { method?: unknown }).method === 'subscriptions/listen';

const INVOICE_PREFIX = 'invoice://';

/**
 * Refuses a `subscriptions/listen` that asks for the updates of an invoice its caller cannot read
 * (another merchant's reads as `not_found`, as reading it would), or of more invoices than a 2025
 * session may subscribe to. The SDK's listen router matches events by URI alone, across callers,
 * so ownership is checked here, before the stream opens. Any other request passes.
 */
export async function refuseForeignListen(body: unknown, listener: Pick<ListenerClient, 'getInvoice'>): Promise<void> {
  if (!isListen(body)) return;
  const uris = (body as { params?: { notifications?: { resourceSubscriptions?: unknown } } }).params?.notifications?.resourceSubscriptions;
  if (!Array.isArray(uris)) return;
  if (uris.length > MAX_SUBSCRIPTIONS) throw new ServiceError('bad_body', `At most ${MAX_SUBSCRIPTIONS} resources per subscriptions/listen.`);
  for (const uri of uris) {
    if (typeof uri !== 'string' || !uri.startsWith(INVOICE_PREFIX)) continue;
    const read = await listener.getInvoice(uri.slice(INVOICE_PREFIX.length));
    if (!read.ok) throw new ServiceError('not_found', `No invoice ${uri} to listen to.`);
  }
}

/**
 * The one place the 2026-07-28 handler is built: the SDK's `createMcpHandler`, strict (2025-era
 * traffic is routed to the sessions before it), validating the per-request envelope and the
 * `Mcp-Method`/`Mcp-Name`/`MCP-Protocol-Version` headers itself. The factory gets the caller of
 * the request it serves through the web Request the SDK hands it back.
 */
export function createModernMcpHandler<Caller extends object>(options: ModernMcpOptions<Caller>): ModernMcpHandler<Caller> {
  const callers = new WeakMap<Request, Caller>();
  const handler = createMcpHandler(
    ({ requestInfo }) => {
      const caller = requestInfo && callers.get(requestInfo);
      if (!caller) throw new Error('MCP request without a caller: only answer() may hand requests to the modern handler.');
      return options.open(caller);
    },
    {
      legacy: 'reject',
      bus: options.bus,
      maxSubscriptions: options.maxListenStreams,
      maxRequestBodySize: options.maxRequestBodySize,
      ...(options.keepAliveMs !== undefined && { keepAliveMs: options.keepAliveMs }),
      // Refusals of malformed requests land here too: the client has its answer, this is for operators.
      onerror: (error) => options.logger.info('MCP request refused or failed', { error: error.message }),
    },
  );
  const listening = new Map<string, number>();

  return {
    isModern: async (req, body) => !(await isLegacyRequest(webRequestOf(req), body, { maxRequestBodySize: options.maxRequestBodySize })),
      admit(body, owner) {
      if (!isListen(body)) return () => undefined;
      const open = listening.get(owner) ?? 0;
      if (open >= options.maxListenStreamsPerOwner) throw new ServiceError('too_many_sessions', `This owner already holds ${open} open subscriptions/listen streams; close one or retry later.`, { retryAfterS: 5 });
      listening.set(owner, open + 1);
      let held = true;
      return () => {
        if (!held) return;
        held = false;
        const left = listening.get(owner)! - 1;
        if (left > 0) listening.set(owner, left);
        else listening.delete(owner);
      };
    },
    answer: (req, res, body, caller) =>
      answerWithWebHandler(req, res, (request) => {
        callers.set(request, caller);
        return handler.fetch(request, { parsedBody: body });
      }),
    bus: handler.bus,
    close: () => handler.close(),
  };
}
