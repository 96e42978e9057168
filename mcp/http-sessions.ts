import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isInitializeRequest, WebStandardStreamableHTTPServerTransport, type McpServer } from '@modelcontextprotocol/server';
import { ServiceError } from '../core/errors.ts';
import { shareLedger, takeShare, type FairShareBounds, type ShareTenant } from '../core/fair-shares.ts';
import type { Logger } from '../core/log.ts';
import { createStreamKeepAlive } from './stream-keep-alive.ts';
import { answerWithWebHandler } from './web-handler-bridge.ts';

export interface McpSessionOptions {
  /** Open sessions at most; an initialize beyond it answers `capacity` until one closes or expires. */
  maxSessions: number;
  /**
   * Open sessions at most per owner (a Cloud merchant, a listener credential): an initialize beyond
   * it answers `too_many_sessions`, so one owner can never take the sessions every other owner needs.
   */
  maxSessionsPerOwner: number;
  /**
   * Cloud's fair shares of `maxSessions` (core/fair-shares.ts): each owner within its plan's cap,
   * and a reserve unpaid plans cannot take. Applies to requests that carry their owner's `tier`.
   */
  shares?: FairShareBounds;
  /** A session with no request for this long is closed (its client then initializes again). */
  idleMs: number;
  /** How often every open event stream gets a keep-alive comment (default 15 s), from one timer. */
  keepAliveMs?: number;
  logger: Logger;
  now?: () => number;
}

/** A session's transport as the HTTP route uses it: it writes the answer on the raw response. */
export interface McpTransport {
  handleRequest(req: IncomingMessage, res: ServerResponse, parsedBody?: unknown): Promise<void>;
}

interface Session {
  transport: McpTransport;
  server: McpServer;
  /** Who opened it (the key's merchant, or the listener's one key): nobody else may use it. */
  owner: string;
  lastUsedAt: number;
  /** Whether its owner's plan was unpaid when it opened (it counts in the unpaid plans' share). */
  unpaid: boolean;
  /** Gives its fair-share slot back. */
  releaseShare(): void;
}

export interface McpRequest {
  method: 'GET' | 'POST' | 'DELETE';
  sessionId: string | undefined;
  owner: string;
  /** The owner's plan tier, on Cloud (see McpSessionOptions.shares). */
  tier?: ShareTenant['tier'];
  body?: unknown;
  /** A fresh MCP server for a new session, from the one registration (createServer). */
  open(): McpServer;
}

const SESSION_SHARE_NAMES = { what: 'open MCP sessions', capSetting: 'CLOUD_MCP_SESSIONS_PER_PLAN', code: 'too_many_sessions' } as const;

/** A session with no request for 30 minutes is closed. */
export const MCP_IDLE_MS = 30 * 60_000;

/** Initializes under way, by owner: they hold their slot before their session exists. */
function openingSlots() {
  const opening = new Map<string, number>();
  return {
    of: (owner: string) => opening.get(owner) ?? 0,
    total: () => [...opening.values()].reduce((sum, count) => sum + count, 0),
    /** Holds a slot for `owner`; the call returned frees it, once however often it is called. */
    hold(owner: string): () => void {
      opening.set(owner, (opening.get(owner) ?? 0) + 1);
      let held = true;
      return () => {
        if (!held) return;
        held = false;
        const left = opening.get(owner)! - 1;
        if (left > 0) opening.set(owner, left);
        else opening.delete(owner);
      };
    },
  };
}

/** Seconds until the least recently used of `held` idles out (or a whole idle time when none is held). */
function idleRetryAfterS(held: Session[], idleMs: number, now: number): number {
  const freedAt = Math.min(...held.map((session) => session.lastUsedAt + idleMs), now + idleMs);
  return Math.max(1, Math.ceil((freedAt - now) / 1000));
}

/** Throws the ServiceError of a new session beyond the owner's bound or the process's. */
function refuseBeyondBounds(
  bounds: Pick<McpSessionOptions, 'maxSessions' | 'maxSessionsPerOwner' | 'idleMs'>,
  sessions: Map<string, Session>,
  opening: ReturnType<typeof openingSlots>,
  owner: string,
  now: () => number,
): void {
  const owned = [...sessions.values()].filter((session) => session.owner === owner);
  if (owned.length + opening.of(owner) >= bounds.maxSessionsPerOwner) {
    // Free again once the least recently used of its sessions idles out (or sooner, on a DELETE).
    const retryAfterS = idleRetryAfterS(owned, bounds.idleMs, now());
    throw new ServiceError('too_many_sessions', `This owner already holds ${bounds.maxSessionsPerOwner} open MCP sessions (MCP_MAX_SESSIONS_PER_OWNER); end one (DELETE) or retry later.`, { retryAfterS });
  }
  if (sessions.size + opening.total() >= bounds.maxSessions) throw new ServiceError('capacity', 'Too many open MCP sessions; retry shortly.', { retryAfterS: 5 });
}

/** The owner's fair-share slot, or the 429 naming its plan's cap or the unpaid plans' share. */
function takeSessionShare(options: McpSessionOptions, shares: ReturnType<typeof shareLedger>, sessions: ReadonlyMap<string, Session>, request: McpRequest, now: number): () => void {
  if (!options.shares || !request.tier) return () => undefined;
  const tenant = { id: request.owner, tier: request.tier };
  return takeShare(shares, options.shares, SESSION_SHARE_NAMES, tenant, (refusal) => {
    const held = [...sessions.values()].filter((session) => (refusal === 'plan_cap' ? session.owner === request.owner : session.unpaid));
    return idleRetryAfterS(held, options.idleMs, now);
  });
}

/**
 * The Streamable HTTP sessions of one process. Sessioned rather than stateless because
 * subscriptions and progress need a server-to-client stream (GET) tied to the client's session.
 * `transportFor` throws a ServiceError before anything is written, so refusals keep the error envelope.
 */
export function createMcpSessions(options: McpSessionOptions) {
  const now = options.now ?? Date.now;
  const sessions = new Map<string, Session>();

  function expireIdle(): void {
    const cutoff = now() - options.idleMs;
    for (const [id, session] of sessions) if (session.lastUsedAt <= cutoff) void end(id, session, 'idle');
  }

  async function end(id: string, session: Session, reason: string): Promise<void> {
    sessions.delete(id);
    session.releaseShare();
    options.logger.info('MCP session closed', { reason });
    await session.server.close().catch(() => undefined);
  }

  const sweeper = setInterval(expireIdle, Math.max(1_000, options.idleMs / 4));
  sweeper.unref();
  // One keep-alive timer for every session's event streams, instead of the transport's one per stream.
  const keepAlive = createStreamKeepAlive(options.keepAliveMs);

  const opening = openingSlots();
  // Sessions and initializes under way by owner and by unpaid plans, for the fair shares.
  const shares = shareLedger();

  async function open(request: McpRequest): Promise<McpTransport> {
    expireIdle();
    refuseBeyondBounds(options, sessions, opening, request.owner, now);
    const releaseShare = takeSessionShare(options, shares, sessions, request, now());
    // Held until the session exists or its initialize is answered without one: concurrent
    // initializes cannot all pass the bounds before any of them counts.
    const release = opening.hold(request.owner);
    let opened = false;
    const server = request.open();
    const web: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      keepAliveMs: 0,
      onsessioninitialized: (id) => {
        release();
        opened = true;
        sessions.set(id, { transport, server, owner: request.owner, lastUsedAt: now(), unpaid: request.tier?.paying === false, releaseShare });
      },
      onsessionclosed: (id) => {
        const session = sessions.get(id);
        if (session) void end(id, session, 'deleted by the client');
      },
    });
    const transport: McpTransport = {
      handleRequest: async (req, res, parsedBody) => {
        try {
          await answerWithWebHandler(req, res, (webRequest) => web.handleRequest(webRequest, { parsedBody }), keepAlive);
        } finally {
          release();
          if (!opened) releaseShare();
        }
      },
    };
    try {
      await server.connect(web);
    } catch (error) {
      release();
      releaseShare();
      throw error;
    }
    return transport;
  }

  return {
    /** The transport that must answer this request, or a ServiceError saying why none may. */
    async transportFor(request: McpRequest): Promise<McpTransport> {
      if (request.sessionId === undefined) {
        if (request.method === 'POST' && isInitializeRequest(request.body)) return open(request);
        throw new ServiceError('bad_body', 'Start with an initialize request; later requests carry its Mcp-Session-Id header.');
      }
      const session = sessions.get(request.sessionId);
      // Another key's session reads as unknown, exactly like an expired one.
      if (!session || session.owner !== request.owner) throw new ServiceError('not_found', 'No such MCP session (expired or closed): initialize a new one.');
      session.lastUsedAt = now();
      return session.transport;
    },
    get size() {
      return sessions.size;
    },
    /** Event streams open now (standing GETs and streamed answers), each kept alive. */
    get openStreams() {
      return keepAlive.size;
    },
    async close(): Promise<void> {
      clearInterval(sweeper);
      await Promise.all([...sessions].map(([id, session]) => end(id, session, 'shutdown')));
    },
  };
}

export type McpSessions = ReturnType<typeof createMcpSessions>;
