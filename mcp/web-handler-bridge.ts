import type { IncomingMessage, ServerResponse } from 'node:http';
import type { StreamKeepAlive } from './stream-keep-alive.ts';

/** The Node request as a web-standard one, without its body (the caller has read it); throws on an unusable Host or URL. */
export function webRequestOf(req: IncomingMessage): Request {
  const headers = new Headers();
  for (let i = 0; i < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
  return new Request(`http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`, { method: req.method, headers });
}

/**
 * Answers a Node request through a web-standard handler (Request in, Response out), as the MCP
 * SDK's Node transport does through @hono/node-server, but in one TCP write per burst: that adapter
 * sends the headers of an event stream, each event and the stream's end as separate writes (three
 * packets for one tool answer, each read and parsed by the client). Here a POST's headers leave with
 * its first event, and what the handler writes within one tick leaves together (the answer and the
 * end of its stream). A GET opens the session's standing event stream: its headers leave at once.
 * The request carries no body: the caller has read and parsed it, and hands it to the handler.
 * An event stream is kept alive by `keepAlive` while it is open (the handler's own keep-alive off).
 */
export async function answerWithWebHandler(req: IncomingMessage, res: ServerResponse, handle: (request: Request) => Promise<Response>, keepAlive?: StreamKeepAlive): Promise<void> {
  let request: Request;
  try {
    request = webRequestOf(req);
  } catch {
    // An unusable Host header or URL: what the SDK's adapter answers too.
    res.writeHead(400).end();
    return;
  }
  let response: Response;
  try {
    response = await handle(request);
  } catch {
    res.writeHead(500).end();
    return;
  }
  res.statusCode = response.status;
  response.headers.forEach((value, name) => res.setHeader(name, value));
  if (!response.body) {
    res.end();
    return;
  }
  if (req.method === 'GET') res.flushHeaders();
  const reader = response.body.getReader();
  // The client went away: cancelling the stream lets the transport drop it.
  const cancel = () => void reader.cancel().catch(() => undefined);
  res.once('close', cancel);
  const release = keepAlive && response.headers.get('content-type')?.startsWith('text/event-stream') ? keepAlive.hold(res) : undefined;
  // What the handler writes within one tick is gathered here and leaves in one write (the first
  // with the headers), and the last burst with the stream's end. Gathered by hand, not with
  // res.cork(): on Node 22 an end() while corked sends the stream's end before the corked data.
  let burst: Uint8Array[] = [];
  const take = () => {
    const chunks = burst;
    burst = [];
    return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
  };
  const flush = () => {
    if (burst.length > 0 && !res.destroyed) res.write(take());
  };
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || res.destroyed) break;
      if (burst.length === 0) process.nextTick(flush);
      burst.push(value);
    }
  } catch {
    res.destroy();
    return;
  } finally {
    res.off('close', cancel);
    release?.();
  }
  if (burst.length > 0) res.end(take());
  else res.end();
}
