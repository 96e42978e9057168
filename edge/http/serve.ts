import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type Koa from 'koa';
import type { Middleware } from 'koa';
import { errorCatalogue, type ErrorCode, type ErrorEnvelope } from '../../shared/index.ts';
import type { Logger } from '../../core/log.ts';
import { StartFailure, type HttpBounds } from '../settings.ts';

/**
 * What Node would answer with a bare status line (a request line plus headers over `maxHeaderSize`,
 * 16 KB by default; malformed HTTP; a request not received in time) gets the error envelope and
 * `Connection: close`. Nothing is written when a response on this socket has already begun.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  const responseBegun = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent;
  if (error.code === 'ECONNRESET' || !socket.writable || responseBegun) {
    socket.destroy();
    return;
  }
  const code: ErrorCode = error.code === 'HPE_HEADER_OVERFLOW' ? 'headers_too_large' : 'bad_body';
  const message = code === 'headers_too_large' ? 'The request line and headers exceed 16 KB.' : 'The request is not well-formed HTTP or did not arrive in time.';
  const body = JSON.stringify({ error: { code, message } } satisfies ErrorEnvelope);
  const { status } = errorCatalogue[code];
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** The settings a listening address comes from, named when it cannot be bound. */
export interface AddressSettings {
  port: string;
  host: string;
}

/** Why host:port cannot be bound, in one line naming the setting to change. */
export function bindFailure(error: NodeJS.ErrnoException, port: number, host: string, settings: AddressSettings): StartFailure {
  const where = `Cannot listen on ${host}:${port}`;
  switch (error.code) {
    case 'EADDRINUSE':
      return new StartFailure(`${where}: the port is already in use (EADDRINUSE). Set ${settings.port} to a free port, or stop what holds it.`);
    case 'EACCES':
    case 'EPERM':
      return new StartFailure(`${where}: not permitted (${error.code}); ports below 1024 need privileges. Set ${settings.port} to 1024 or above.`);
    case 'EADDRNOTAVAIL':
      return new StartFailure(`${where}: ${host} is not an address of this machine (EADDRNOTAVAIL). Set ${settings.host} to one of its addresses, 0.0.0.0 or 127.0.0.1.`);
    default:
      return new StartFailure(`${where}: ${error.code ?? error.message}. Check ${settings.host} and ${settings.port}.`);
  }
}

/** A bound port, not serving yet: `serve` hands it the app; requests that came before wait for it. */
export interface BoundHttp {
  server: Server;
  url: string;
  serve(app: Koa): void;
}

/**
 * Binds host:port (0 = a free port) before anything else starts, so that a port that cannot be
 * bound ends the start at once (StartFailure naming the setting). The server holds the HTTP bounds:
 * connections at most (beyond: closed at once), and the time a client may take to send its
 * headers and its whole request (beyond: the envelope, 400 `bad_body`, and the connection closed).
 */
export async function bindHttp(
  port: number,
  host: string,
  options: { logger?: Logger; bounds?: Pick<HttpBounds, 'maxConnections' | 'headersTimeoutMs' | 'requestTimeoutMs'>; settings?: AddressSettings } = {},
): Promise<BoundHttp> {
  let handler: ((req: IncomingMessage, res: ServerResponse) => void) | null = null;
  const early: Array<[IncomingMessage, ServerResponse]> = [];
  // The app answers a missing Host itself (see wellFormedRequest), in the envelope; Node's answer has no body.
  const server = createServer(
    {
      requireHostHeader: false,
      // Node looks for requests over their time every 30 s unless told: every second holds the timeouts to the second.
      ...(options.bounds && { headersTimeout: options.bounds.headersTimeoutMs, requestTimeout: options.bounds.requestTimeoutMs, connectionsCheckingInterval: 1_000 }),
    },
    (req, res) => (handler ? handler(req, res) : early.push([req, res])),
  );
  if (options.bounds) server.maxConnections = options.bounds.maxConnections;
  server.keepAliveTimeout = 65_000;
  server.on('clientError', answerClientError);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
  } catch (error) {
    throw bindFailure(error as NodeJS.ErrnoException, port, host, options.settings ?? { port: 'PORT', host: 'HOST' });
  }
  // Once listening, a server error (such as running out of file descriptors) is logged, never fatal.
  server.on('error', (error) => options.logger?.error('HTTP server error', { error }));
  const address = server.address() as AddressInfo;
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    server,
    url: `http://${shown}:${address.port}`,
    serve(app) {
      handler = app.callback();
      for (const [req, res] of early.splice(0)) handler(req, res);
    },
  };
}

/** Serves a Koa app on host:port (0 = a free port) and returns the server and its URL. */
export async function serveHttp(app: Koa, port: number, host: string, logger?: Logger): Promise<{ server: Server; url: string }> {
  const bound = await bindHttp(port, host, { logger });
  bound.serve(app);
  return bound;
}

/**
 * Stops taking connections, lets the requests under way finish for `graceMs` at most (idle
 * keep-alive connections close at once, and each busy one as soon as its answer is out), then
 * closes whatever is left.
 */
export async function closeServer(server: Server, graceMs = 0): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const idle = setInterval(() => server.closeIdleConnections(), 50);
  const deadline = setTimeout(() => server.closeAllConnections(), graceMs);
  await closed;
  clearInterval(idle);
  clearTimeout(deadline);
}

/** The handlers of the two documents, openapi.json and llms.txt, served as generated. */
export function documentHandlers(documents: { openapi: string; llms: string }): { openapi: Middleware; llms: Middleware } {
  return {
    openapi: (ctx) => {
      ctx.type = 'application/json';
      ctx.body = documents.openapi;
    },
    llms: (ctx) => {
      ctx.type = 'text/plain; charset=utf-8';
      ctx.body = documents.llms;
    },
  };
}
