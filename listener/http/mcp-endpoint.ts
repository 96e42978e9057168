import type { Context, Middleware } from 'koa';
import Router, { type RouterMiddleware } from '@koa/router';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ServiceError } from '../../core/errors.ts';
import type { McpSessions } from '../../mcp/http-sessions.ts';
import { readJsonBody } from './json-body.ts';

export interface McpEndpointOptions {
  sessions: McpSessions;
  /** Browser origins allowed in; a request without Origin (not from a browser) is always let through. */
  allowedOrigins: readonly string[];
  /** Checks the key (X-Service-Api-Key, or Authorization: Bearer) before the body is read. */
  authorize: Middleware;
  /** Who owns the sessions this request may use: its merchant, or the listener's one key. */
  ownerOf(ctx: Context): string;
  /** The MCP server of a new session, its tools bound to this request's caller. */
  open(ctx: Context): McpServer;
}

/**
 * A browser page of another site must not reach a local or keyed MCP server through the user's
 * browser (DNS rebinding, the MCP specification's security notes): its Origin must be allowed.
 */
function checkOrigin(allowedOrigins: readonly string[]): Middleware {
  const allowed = new Set(allowedOrigins);
  return async (ctx, next) => {
    const origin = ctx.get('Origin');
    if (origin && !allowed.has(origin)) throw new ServiceError('origin_not_allowed', 'This Origin may not use the MCP endpoint (see MCP_ALLOWED_ORIGINS).');
    if (origin) {
      ctx.set('Access-Control-Allow-Origin', origin);
      ctx.set('Access-Control-Expose-Headers', 'Mcp-Session-Id');
      ctx.vary('Origin');
    }
    await next();
  };
}

/**
 * The browser's CORS preflight of the MCP endpoint, for an allowed origin only: plumbing of the
 * endpoint's routes, not an operation of its own.
 */
export function mcpPreflight(path: string, allowedOrigins: readonly string[]): Router {
  return new Router().options(path, checkOrigin(allowedOrigins), (ctx) => {
    if (!ctx.get('Origin')) return;
    ctx.set('Access-Control-Allow-Methods', 'GET, POST, DELETE');
    ctx.set('Access-Control-Allow-Headers', 'Authorization, Content-Type, Last-Event-ID, Mcp-Protocol-Version, Mcp-Session-Id, X-Service-Api-Key');
    ctx.set('Access-Control-Max-Age', '600');
    ctx.status = 204;
  });
}

/** MCP clients send the key as a bearer token; the key checks read X-Service-Api-Key. */
const bearerAsApiKey: Middleware = async (ctx, next) => {
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(ctx.get('Authorization'));
  if (!ctx.get('X-Service-Api-Key') && bearer) ctx.request.headers['x-service-api-key'] = bearer[1];
  await next();
};

/**
 * The MCP Streamable HTTP endpoint's three methods (POST messages, GET the server's stream, DELETE
 * the session): origin, key, body within the usual limit, then the session's transport answers on
 * the raw response. Every refusal before that is the usual error envelope.
 */
export function mcpHandlers(options: McpEndpointOptions): Record<'post' | 'get' | 'delete', RouterMiddleware[]> {
  const serve =
    (method: 'GET' | 'POST' | 'DELETE'): RouterMiddleware =>
    async (ctx) => {
      const body = method === 'POST' ? await readJsonBody(ctx) : undefined;
      const transport = await options.sessions.transportFor({
        method,
        sessionId: ctx.get('Mcp-Session-Id') || undefined,
        owner: options.ownerOf(ctx),
        body,
        open: () => options.open(ctx),
      });
      // The transport writes the answer (JSON or an event stream) itself.
      ctx.status = 200;
      ctx.respond = false;
      await transport.handleRequest(ctx.req, ctx.res, body);
    };
  const checks = [checkOrigin(options.allowedOrigins), bearerAsApiKey, options.authorize];
  return { post: [...checks, serve('POST')], get: [...checks, serve('GET')], delete: [...checks, serve('DELETE')] };
}
