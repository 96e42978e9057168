import type { Context } from 'koa';
import type { InvoiceListen, ListenCaller, ListenMessage } from '../../mcp/listen/invoice-listen.ts';
import type { StreamKeepAlive } from '../../mcp/stream-keep-alive.ts';
import { answerWithWebHandler } from '../../mcp/web-handler-bridge.ts';

export interface McpListenAnswer {
  listen: InvoiceListen;
  /**
   * Hands the request on to the MCP 2026-07-28 handler (createMcpHandler's fetch, with the parsed
   * body; the handler built with `listen`'s bus, and keepAliveMs 0 when `keepAlive` is given).
   */
  forward(request: Request): Promise<Response>;
  /** Keeps the stream alive with every other MCP stream of the process, from one timer. */
  keepAlive?: StreamKeepAlive;
}

/**
 * Answers a 2026-07-28 `subscriptions/listen` POST whose body the route has read and whose
 * credential it has checked. Admitted here, before the SDK, because only here are both the caller
 * and the listen filter known: the SDK's listen router checks neither resources nor callers (its
 * documented posture leaves authorization to the layer in front of it). A refusal past the owner's
 * stream cap is thrown before anything is written, so it keeps the error envelope (429
 * `too_many_sessions` with Retry-After); the others are answered in-band, as the SDK's own are.
 */
export async function answerMcpListen(ctx: Context, caller: ListenCaller, message: ListenMessage, options: McpListenAnswer): Promise<void> {
  const admission = await options.listen.admit(caller, message);
  ctx.status = 200;
  ctx.respond = false;
  try {
    await answerWithWebHandler(ctx.req, ctx.res, (request) => admission.answer(request, options.forward), options.keepAlive);
  } finally {
    admission.release();
  }
}
