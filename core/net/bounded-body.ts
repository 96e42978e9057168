/**
 * Reading a source's answer with a size cap and a time cap. A public source (an Esplora, a JSON-RPC
 * provider, a facilitator) may answer a body without end, or headers and then nothing: read whole,
 * the first fills the memory, the second holds the pass for good. The body is read from its stream
 * with a byte counter; past the cap, or past the time allowed, reading stops and the stream is
 * cancelled (the connection is dropped, nothing more is received).
 */

/**
 * The largest answer read from a JSON-RPC source (EVM nodes, x402's node reader). The
 * largest honest one is a batch of eth_getLogs pages: providers cap a page at 10,000 logs (Infura,
 * Alchemy, QuickNode), some 7 MB of JSON at about 700 bytes a Transfer log, and ours ask only for
 * transfers to invoice addresses, so real pages hold a handful. 32 MB holds four full pages.
 */
export const MAX_RPC_ANSWER_BYTES = 32 * 1024 * 1024;

/** What one answer may be: the source (for the error) and its caps. */
export interface BodyCap {
  /** Scheme, host and port of the source (sourceLabel): never a path or credentials. */
  source: string;
  /** What was asked, for the error (e.g. "GET /block/…/raw"). */
  what: string;
  maxBytes: number;
  /**
   * The request's time cap, in ms. The signal given to fetch (with this same length) already
   * aborts a stalled body; this deadline, started as reading starts, holds whatever the fetch.
   */
  timeoutMs: number;
}

/** A body over its cap: no honest source answers that much; reading stopped at the cap. */
export class AnswerTooLarge extends Error {
  constructor(
    readonly source: string,
    readonly maxBytes: number,
    what: string,
  ) {
    super(`${source} answered more than ${maxBytes} bytes to ${what}; reading stopped at the cap`);
  }
}

/** A body not complete within the request's time cap: the source stalled mid-answer. */
export class AnswerTooSlow extends Error {
  constructor(
    readonly source: string,
    readonly timeoutMs: number,
    what: string,
  ) {
    super(`${source} did not complete its answer to ${what} within ${timeoutMs / 1000} s`);
  }
}

const isAbort = (error: unknown) => error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError');

/**
 * The body's chunks as they arrive, within its caps: past either, the stream is cancelled and
 * AnswerTooLarge or AnswerTooSlow thrown. A consumer that stops early cancels it too.
 */
async function* chunksWithin(res: Response, cap: BodyCap): AsyncGenerator<Uint8Array> {
  const declared = Number(res.headers.get('content-length'));
  if (declared > cap.maxBytes) {
    await res.body?.cancel().catch(() => {});
    throw new AnswerTooLarge(cap.source, cap.maxBytes, cap.what);
  }
  if (!res.body) return;
  const reader = res.body.getReader();
  let timedOut = false;
  let done = false;
  const deadline = setTimeout(() => {
    timedOut = true;
    reader.cancel().catch(() => {});
  }, cap.timeoutMs);
  let total = 0;
  try {
    for (;;) {
      const next = await reader.read();
      // A cancel by the deadline ends the stream as if complete: what came is not the answer.
      if (timedOut) throw new AnswerTooSlow(cap.source, cap.timeoutMs, cap.what);
      if (next.done) break;
      total += next.value.byteLength;
      if (total > cap.maxBytes) throw new AnswerTooLarge(cap.source, cap.maxBytes, cap.what);
      yield next.value;
    }
    done = true;
  } catch (error) {
    if (isAbort(error)) throw new AnswerTooSlow(cap.source, cap.timeoutMs, cap.what);
    throw error;
  } finally {
    clearTimeout(deadline);
    if (!done) await reader.cancel().catch(() => {});
  }
}

/** The body's bytes, at most `cap.maxBytes`; throws AnswerTooLarge or AnswerTooSlow, having cancelled the stream. */
export async function readBoundedBytes(res: Response, cap: BodyCap): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of chunksWithin(res, cap)) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** The body as UTF-8 text, within its caps. */
export async function readBoundedText(res: Response, cap: BodyCap): Promise<string> {
  return new TextDecoder().decode(await readBoundedBytes(res, cap));
}

/** The body parsed as JSON, within its caps; a body that is not JSON throws SyntaxError. */
export async function readBoundedJson(res: Response, cap: BodyCap): Promise<unknown> {
  return JSON.parse(await readBoundedText(res, cap));
}

/**
 * A WebSocket's size cap is ws's `maxPayload`: a frame over it closes the connection (1009) as its
 * header is read, before any of it is buffered. This counts such frames in a row, so a source that
 * floods each new connection waits longer before each reconnect, as one that fails to connect does.
 */
export function oversizedFrames(source: string, maxBytes: number) {
  let count = 0;
  return {
    /** A socket error as told in status: an oversized frame names the source and the cap, and counts. */
    told(error: Error & { code?: string }): string {
      if (error.code !== 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') return error.message;
      count++;
      return `${source} sent a WebSocket frame over ${maxBytes} bytes`;
    },
    /** A frame within the cap arrived. */
    reset: () => void (count = 0),
    get count() {
      return count;
    },
  };
}
