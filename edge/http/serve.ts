import { createServer, STATUS_CODES, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type Koa from 'koa';
import type { Middleware } from 'koa';
import { errorCatalogue, type ErrorCode, type ErrorEnvelope } from '../../shared/index.ts';
import type { Logger } from '../../core/log.ts';

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

/** Serves a Koa app on host:port (0 = a free port) and returns the server and its URL. */
export async function serveHttp(app: Koa, port: number, host: string, logger?: Logger): Promise<{ server: Server; url: string }> {
  // The app answers a missing Host itself (see wellFormedRequest), in the envelope; Node's answer has no body.
  const server = createServer({ requireHostHeader: false }, app.callback());
  server.keepAliveTimeout = 65_000;
  server.on('clientError', answerClientError);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  // Once listening, a server error (such as running out of file descriptors) is logged, never fatal.
  server.on('error', (error) => logger?.error('HTTP server error', { error }));
  const address = server.address() as AddressInfo;
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return { server, url: `http://${shown}:${address.port}` };
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
