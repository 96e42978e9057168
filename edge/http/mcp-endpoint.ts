import type { Context, Middleware } from 'koa';
import Router, { type RouterMiddleware } from '@koa/router';
import { isInitializeRequest } from '@modelcontextprotocol/server';
import { ServiceError } from '../../core/errors.ts';
import type { Logger } from '../../core/log.ts';
import type { FairShareBounds, ShareTier } from '../../core/fair-shares.ts';
import type { McpSessions } from '../../mcp/http-sessions.ts';
import type { ServerDeps } from '../../mcp/deps.ts';
import { createModernMcpHandler, type ModernMcpHandler } from '../../mcp/modern-handler.ts';
import { createInvoiceListen, isListenRequest } from '../../mcp/listen/invoice-listen.ts';
import { createServer } from '../../mcp/server.ts';
import { undeclaredTaskListen } from '../../mcp/tasks/extension.ts';
import { MAX_BODY_BYTES, readJsonBody } from './json-body.ts';
import { answerMcpListen } from './mcp-listen.ts';
import { refuseMissingScope, type OAuthResource } from '../oauth/protected-resource.ts';
import { missingScope, UNDECLARED, type Principal } from '../oauth/scopes.ts';
import type { InitializeRateLimit, RateLimitConfig } from '../settings.ts';
import type { RateLimiter } from './sliding-window.ts';

export interface McpEndpointOptions {
  sessions: McpSessions;
  /** Browser origins allowed in; a request without Origin (not from a browser) is always let through. */
  allowedOrigins: readonly string[];
  /** The server's own origins (PUBLIC_URL's; any loopback origin for a server on loopback), also allowed. */
  isOwnOrigin(origin: string): boolean;
  /** Checks the credential (a key, or an OAuth access token) before the body is read; see requireMcpCredentials. */
  authorize: Middleware;
  /** The endpoint's OAuth side, for the step-up challenge of a call outside the token's scopes. */
  oauth(ctx: Context): Promise<OAuthResource | null>;
  /** Who owns the sessions this request may use, each within its bound: its merchant, or its credential on the listener. */
  ownerOf(ctx: Context): string;
  /**
   * Cloud: the owner's plan tier, within whose fair share its sessions and listen streams count
   * (the sessions' `shares` and `listen.shares`); absent on the listener, whose one merchant owns all.
   */
  tierOf?(ctx: Context): ShareTier;
  /** How fast sessions may start, per owner and per client address; null: unlimited. */
  initializeLimits: InitializeLimits | null;
  /**
   * What the MCP server of a new session or of one 2026-07-28 request works with, its listener
   * client bound to this request's caller (createServer builds the server from it).
   */
  serverDeps(ctx: Context): ServerDeps;
  /** 2026-07-28 `subscriptions/listen`: its bounds. */
  listen: ListenOptions;
  logger: Logger;
}

export interface ListenOptions {
  /** Open listen streams at most (MCP_MAX_LISTEN_STREAMS). */
  maxStreams: number;
  /** Open listen streams at most per owner (MCP_MAX_SESSIONS_PER_OWNER, the bound of a 2025 session's stream). */
  maxStreamsPerOwner: number;
  /** A listen stream's lifetime (MCP_LISTEN_STREAM_MAX_S): then it ends and its client listens again. */
  streamMaxMs: number;
  /** Cloud's fair shares of `maxStreams` between plans (core/fair-shares.ts). */
  shares?: FairShareBounds;
}

/** Session starts per minute: one window per owner, one per client address, and no shared one to fill. */
export interface InitializeLimits {
  perOwner: RateLimiter;
  perAddress: RateLimiter;
}

/** The initialize limits of MCP_INITIALIZE_RATE_LIMIT (null: off), their windows kept where `limiter` keeps them. */
export function initializeLimits(rate: InitializeRateLimit | null, limiter: (name: string, config: RateLimitConfig) => RateLimiter): InitializeLimits | null {
  if (rate === null) return null;
  const window = (perClient: number) => ({ perClient, overall: Number.MAX_SAFE_INTEGER });
  return { perOwner: limiter('mcp-initialize-owner', window(rate.perOwner)), perAddress: limiter('mcp-initialize-address', window(rate.perAddress)) };
}

/** Refuses an initialize past either window with `too_many_sessions` and its Retry-After. */
async function admitInitialize(limits: InitializeLimits, owner: string, address: string): Promise<void> {
  for (const [limiter, client, who] of [[limits.perAddress, address, 'this address'], [limits.perOwner, owner, 'this owner']] as const) {
    const retryAfterS = await limiter.take(client);
    if (retryAfterS > 0) throw new ServiceError('too_many_sessions', `Too many MCP sessions started from ${who} (MCP_INITIALIZE_RATE_LIMIT); retry in ${retryAfterS} s.`, { retryAfterS });
  }
}

/**
 * A browser page of another site must not reach a local or keyed MCP server through the user's
 * browser (DNS rebinding, the MCP specification's security notes): its Origin must be allowed.
 */
function checkOrigin(allowedOrigins: readonly string[], isOwnOrigin: (origin: string) => boolean): Middleware {
  const allowed = new Set(allowedOrigins);
  return async (ctx, next) => {
    const origin = ctx.get('Origin');
    if (origin && !allowed.has(origin) && !isOwnOrigin(origin)) throw new ServiceError('origin_not_allowed', 'This Origin may not use the MCP endpoint (see MCP_ALLOWED_ORIGINS).');
    if (origin) {
      ctx.set('Access-Control-Allow-Origin', origin);
      ctx.set('Access-Control-Expose-Headers', EXPOSED_HEADERS);
      ctx.vary('Origin');
    }
    await next();
  };
}

/** What a browser client may read: the session (2025), the era it got, the auth challenge. */
const EXPOSED_HEADERS = 'Mcp-Session-Id, Mcp-Protocol-Version, WWW-Authenticate';

/**
 * What a browser client may send: the credential, the 2025 session and resumption headers, and the
 * 2026-07-28 standard headers (`Mcp-Method`, `Mcp-Name`, and a tool argument mirrored as
 * `Mcp-Param-<name>`). A preflight names each header it asks for, so the `Mcp-Param-*` ones the
 * browser asks about are echoed back (none of this server's tools declares one today).
 */
const ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'Last-Event-ID', 'Mcp-Protocol-Version', 'Mcp-Session-Id', 'Mcp-Method', 'Mcp-Name', 'X-Service-Api-Key'];

function allowedRequestHeaders(requested: string): string {
  const params = requested
    .split(',')
    .map((name) => name.trim())
    .filter((name) => /^mcp-param-[a-z0-9-]+$/i.test(name));
  return [...ALLOWED_HEADERS, ...params].join(', ');
}

const LOOPBACK_ORIGIN = /^https?:\/\/(localhost|127(\.\d{1,3}){3}|\[::1\])(:\d+)?$/;

/**
 * The server's own origins: its public URL's, and every loopback origin when it listens on loopback
 * (a page of another site cannot carry a loopback Origin, DNS rebinding or not).
 */
export function ownOrigins(publicUrl: string | null, onLoopback: boolean): (origin: string) => boolean {
  const own = publicUrl ? new URL(publicUrl).origin : null;
  return (origin) => origin === own || (onLoopback && LOOPBACK_ORIGIN.test(origin));
}

/**
 * The browser's CORS preflight of the MCP endpoint, for an allowed origin only: plumbing of the
 * endpoint's routes, not an operation of its own.
 */
export function mcpPreflight(path: string, allowedOrigins: readonly string[], isOwnOrigin: (origin: string) => boolean): Router {
  return new Router().options(path, checkOrigin(allowedOrigins, isOwnOrigin), (ctx) => {
    if (!ctx.get('Origin')) return;
    ctx.set('Access-Control-Allow-Methods', 'GET, POST, DELETE');
    ctx.set('Access-Control-Allow-Headers', allowedRequestHeaders(ctx.get('Access-Control-Request-Headers')));
    ctx.set('Access-Control-Max-Age', '600');
    ctx.status = 204;
  });
}

/**
 * The MCP Streamable HTTP endpoint's three methods (POST messages, GET the server's stream, DELETE
 * the session): origin, credential, body within the usual limit and scope first, whatever the era;
 * then a 2025-era request goes to its session's transport and a 2026-07-28 one to the stateless
 * modern handler, each answering on the raw response. Every refusal before that is the usual error
 * envelope.
 */
export function mcpHandlers(options: McpEndpointOptions): Record<'post' | 'get' | 'delete', RouterMiddleware[]> {
  const open = (ctx: Context) => createServer(options.serverDeps(ctx));
  const modern: ModernMcpHandler<Context> = createModernMcpHandler({
    open: (ctx) => createServer(options.serverDeps(ctx), 'modern'),
    maxRequestBodySize: MAX_BODY_BYTES,
    maxListenStreams: options.listen.maxStreams,
    logger: options.logger,
  });
  // Invoice updates for the 2026-07-28 listen streams: the caller's invoices only, from the status feed.
  const listen = createInvoiceListen({ bus: modern.bus, maxStreamsPerOwner: options.listen.maxStreamsPerOwner, lifetimeMs: options.listen.streamMaxMs, shares: options.listen.shares });
  const serve =
    (method: 'GET' | 'POST' | 'DELETE'): RouterMiddleware =>
    async (ctx) => {
      const body = method === 'POST' ? await readJsonBody(ctx) : undefined;
      const missing = missingScope(body, (ctx.state.principal as Principal).scopes);
      if (missing === UNDECLARED) throw new ServiceError('insufficient_scope', 'This MCP method or tool is open to full-access API keys only.');
      if (missing) await refuseMissingScope(ctx, missing, await options.oauth(ctx));
      const owner = options.ownerOf(ctx);
      const tier = options.tierOf?.(ctx);
      if (await modern.isModern(ctx.req, body)) {
        const taskListenRefusal = undeclaredTaskListen(body);
        if (taskListenRefusal) {
          ctx.status = 400;
          ctx.body = taskListenRefusal;
          return;
        }
        if (isListenRequest(body)) {
          const { listener, updates } = options.serverDeps(ctx);
          await answerMcpListen(ctx, { owner, tier, listener, updates }, body, { listen, forward: modern.forward(body, ctx), keepAlive: modern.keepAlive });
          return;
        }
        ctx.status = 200;
        ctx.respond = false;
        await modern.answer(ctx.req, ctx.res, body, ctx);
        return;
      }
      const sessionId = ctx.get('Mcp-Session-Id') || undefined;
      if (options.initializeLimits && sessionId === undefined && isInitializeRequest(body)) await admitInitialize(options.initializeLimits, owner, ctx.ip);
      const transport = await options.sessions.transportFor({
        method,
        sessionId,
        owner,
        tier,
        body,
        open: () => open(ctx),
      });
      // The transport writes the answer (JSON or an event stream) itself.
      ctx.status = 200;
      ctx.respond = false;
      await transport.handleRequest(ctx.req, ctx.res, body);
    };
  const checks = [checkOrigin(options.allowedOrigins, options.isOwnOrigin), options.authorize];
  return { post: [...checks, serve('POST')], get: [...checks, serve('GET')], delete: [...checks, serve('DELETE')] };
}
