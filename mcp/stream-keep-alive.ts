import type { ServerResponse } from 'node:http';

/** How often an open event stream gets a comment, as the MCP SDK's transport does by default. */
export const KEEP_ALIVE_MS = 15_000;

const COMMENT = ': keepalive\n\n';

/**
 * Keeps the process's open MCP event streams alive through proxies' idle timeouts with one timer
 * for all of them, armed only while one is open. The SDK's transport would arm a timer per stream
 * and push each comment through its web stream: a thousand idle sessions, a thousand timers.
 * A comment is written between whole events (each event leaves in one write), never inside one.
 */
export function createStreamKeepAlive(intervalMs: number = KEEP_ALIVE_MS) {
  const streams = new Set<ServerResponse>();
  let timer: NodeJS.Timeout | undefined;

  const tick = () => {
    for (const res of streams) if (res.headersSent && !res.writableEnded && !res.destroyed) res.write(COMMENT);
  };

  return {
    /** Keeps `res` alive until the returned call; it starts once its headers are out. */
    hold(res: ServerResponse): () => void {
      streams.add(res);
      if (!timer) {
        timer = setInterval(tick, intervalMs);
        timer.unref();
      }
      return () => {
        streams.delete(res);
        if (streams.size === 0 && timer) {
          clearInterval(timer);
          timer = undefined;
        }
      };
    },
    get size() {
      return streams.size;
    },
  };
}

export type StreamKeepAlive = ReturnType<typeof createStreamKeepAlive>;
