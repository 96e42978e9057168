import type { IncomingMessage, ServerResponse } from 'node:http';
import { createMcpHandler, isLegacyRequest, type McpServer, type ServerEventBus } from '@modelcontextprotocol/server';
import type { Logger } from '../core/log.ts';
import { createStreamKeepAlive, type StreamKeepAlive } from './stream-keep-alive.ts';
import { answerWithWebHandler, webRequestOf } from './web-handler-bridge.ts';

export interface ModernMcpOptions<Caller extends object> {
  /** The MCP server answering one request, its tools bound to that request's caller (createServer). */
  open(caller: Caller): McpServer;
  /** The largest request body, in bytes: the same bound as the JSON body the endpoint reads. */
  maxRequestBodySize: number;
  /** Open `subscriptions/listen` streams at most (MCP_MAX_LISTEN_STREAMS); beyond, the SDK answers -32603. */
  maxListenStreams: number;
  /** How often an open event stream gets a keep-alive comment (default 15 s), from one timer for all of them. */
  keepAliveMs?: number;
  logger: Logger;
}

/** The 2026-07-28 side of the MCP endpoint: stateless, one server per request. */
export interface ModernMcpHandler<Caller extends object> {
  /** Whether this request speaks 2026-07-28 (or claims to, malformed): the SDK's own classification. */
  isModern(req: IncomingMessage, body: unknown): Promise<boolean>;
  /** Answers one modern request for `caller` on the raw response (JSON, or an event stream). */
  answer(req: IncomingMessage, res: ServerResponse, body: unknown, caller: Caller): Promise<void>;
  /**
   * The handler's web face for one request of `caller` (its parsed `body`): for a caller that
   * answers through the bridge itself (a `subscriptions/listen`, admitted first; see mcp/listen/).
   */
  forward(body: unknown, caller: Caller): (request: Request) => Promise<Response>;
  /** Keeps every event stream of the handler alive, from one timer (the SDK's own is off). */
  keepAlive: StreamKeepAlive;
  /**
   * The bus the listen streams subscribe to: this process's, on which mcp/listen/ publishes the
   * changes of the status feed (which itself carries the changes other instances commit).
   */
  bus: ServerEventBus;
  close(): Promise<void>;
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
      if (!caller) throw new Error('MCP request without a caller: only answer() or forward() may hand requests to the modern handler.');
      return options.open(caller);
    },
    {
      legacy: 'reject',
      maxSubscriptions: options.maxListenStreams,
      maxRequestBodySize: options.maxRequestBodySize,
      // One timer keeps every stream alive (keepAlive below) instead of one per stream: a thousand
      // idle listen streams would be a thousand timers.
      keepAliveMs: 0,
      // Refusals of malformed requests land here too: the client has its answer, this is for operators.
      onerror: (error) => options.logger.info('MCP request refused or failed', { error: error.message }),
    },
  );
  const keepAlive = createStreamKeepAlive(options.keepAliveMs);
  const forward = (body: unknown, caller: Caller) => (request: Request) => {
    callers.set(request, caller);
    return handler.fetch(request, { parsedBody: body });
  };

  return {
    isModern: async (req, body) => !(await isLegacyRequest(webRequestOf(req), body, { maxRequestBodySize: options.maxRequestBodySize })),
    answer: (req, res, body, caller) => answerWithWebHandler(req, res, forward(body, caller), keepAlive),
    forward,
    keepAlive,
    bus: handler.bus,
    close: () => handler.close(),
  };
}
