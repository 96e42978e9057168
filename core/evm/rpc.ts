import type { Logger } from '../log.ts';
import { exponentialBackoffMs } from '../net/backoff.ts';
import { AnswerTooLarge, MAX_RPC_ANSWER_BYTES, readBoundedJson } from '../net/bounded-body.ts';
import { sourceLabel } from '../net/request-budget.ts';

/** A failure the node reported in a JSON-RPC error object: retrying the same call will not help. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** The node could not be reached or answered garbage, even after retries. */
export class RpcUnavailableError extends Error {}

/** A non-2xx HTTP answer; 429 and 503 windows are the request budget's to wait out. */
class HttpStatusError extends RpcUnavailableError {
  constructor(
    readonly status: number,
    label: string,
  ) {
    super(`${label} answered HTTP ${status}`);
  }
}

export interface RpcCall {
  method: string;
  params: unknown[];
}

export interface RpcSource {
  /** For logs: scheme, host and port only (URLs of hosted providers often embed an API key). */
  readonly label: string;
  call<T>(method: string, params: unknown[]): Promise<T>;
  /**
   * Several calls in one JSON-RPC batch where the node accepts batches, else one by one. Each
   * entry is the call's result or its RpcError, in order; transport failures throw.
   */
  batch(calls: RpcCall[]): Promise<Array<unknown | RpcError>>;
  /** Requests sent so far (each retry counts), for health and the benchmark. */
  readonly requests: number;
}

export interface RpcOptions {
  /** Network access; in the listener, a fetch through this URL's request budget. */
  fetch: typeof globalThis.fetch;
  sleep: (ms: number) => Promise<void>;
  /** Attempts per call for transport failures (network, HTTP 429/5xx, timeout). */
  attempts?: number;
  backoffMs?: number;
  timeoutMs?: number;
  /** Calls per batch request: providers cap batch size (Alchemy 1,000; some public endpoints far less). */
  maxBatch?: number;
  /** Told once when the node refuses batches. */
  logger?: Pick<Logger, 'warn'>;
  /** The chain the source serves, named in that warning. */
  chain?: string;
}

interface RpcReply {
  id?: unknown;
  result?: unknown;
  error?: { code: number; message: string };
}

/** An answer over MAX_RPC_ANSWER_BYTES: the source is not asked again for this call (another attempt would be as large). */
class RpcAnswerTooLarge extends RpcUnavailableError {}

/** Busy, rate-limited or down: worth another attempt. Other 4xx answers will not change. */
const isTransient = (status: number) => status === 408 || status === 429 || status >= 500;

/** HTTP statuses with which providers refuse a batch body (as opposed to being busy or down). */
const BATCH_REFUSED_STATUS = new Set([400, 405, 413, 415, 422, 501]);

/** JSON-RPC over HTTP POST to one URL: numbered requests, transport failures retried, requests counted. */
function createRpcTransport(url: string, options: RpcOptions) {
  const { fetch, sleep, attempts = 4, backoffMs = 250, timeoutMs = 10_000 } = options;
  const label = sourceLabel(url);
  let requests = 0;
  let nextId = 1;

  async function post(what: string, body: unknown): Promise<unknown> {
    requests++;
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!response.ok) {
      await response.body?.cancel();
      throw new HttpStatusError(response.status, label);
    }
    try {
      return await readBoundedJson(response, { source: label, what, maxBytes: MAX_RPC_ANSWER_BYTES, timeoutMs });
    } catch (error) {
      if (error instanceof AnswerTooLarge) throw new RpcAnswerTooLarge(error.message);
      if (error instanceof SyntaxError) throw new RpcUnavailableError(`${label} answered a body that is not JSON`);
      throw error;
    }
  }

  /** Retries transport failures; a 429's Retry-After (or backoff) is waited out by the budget inside `fetch`. */
  async function withRetries<T>(what: string, send: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await send();
      } catch (error) {
        if (error instanceof RpcError || error instanceof RpcAnswerTooLarge || (error instanceof HttpStatusError && !isTransient(error.status))) throw error;
        if (attempt >= attempts) throw new RpcUnavailableError(`${label} ${what} failed ${attempts} times: ${(error as Error).message}`);
        if (!(error instanceof HttpStatusError && error.status === 429)) await sleep(exponentialBackoffMs(attempt, backoffMs, Number.POSITIVE_INFINITY));
      }
    }
  }

  return {
    label,
    requests: () => requests,
    request: (call: RpcCall) => ({ jsonrpc: '2.0', id: nextId++, method: call.method, params: call.params }),
    /** Posts what `body` makes (one request or a batch) for each attempt; `what` names it in the error once attempts run out. */
    send: (what: string, body: () => unknown): Promise<unknown> => withRetries(what, () => post(what, body())),
  };
}

type RpcTransport = ReturnType<typeof createRpcTransport>;

/** A reply's result, or the RpcError the node answered instead. */
function resultOf(label: string, reply: RpcReply): unknown {
  if (reply.error) return new RpcError(reply.error.code, reply.error.message);
  if (!('result' in reply)) throw new RpcUnavailableError(`${label} answered without a result`);
  return reply.result;
}

/** One batch request; null when the node refused it as a batch (`refuse` hears why). */
async function batchOnce(transport: RpcTransport, calls: RpcCall[], refuse: (reason: string) => void): Promise<unknown[] | null> {
  const requestsOut = calls.map(transport.request);
  let replies: unknown;
  try {
    replies = await transport.send('batch', () => requestsOut);
  } catch (error) {
    if (!(error instanceof HttpStatusError && BATCH_REFUSED_STATUS.has(error.status))) throw error;
    refuse(`HTTP ${error.status}`);
    return null;
  }
  // A refusal comes back as one error object, or as an array that does not answer each call.
  if (!Array.isArray(replies)) {
    refuse((replies as RpcReply)?.error?.message ?? 'not an array');
    return null;
  }
  const byId = new Map((replies as RpcReply[]).map((reply) => [reply?.id, reply]));
  if (requestsOut.some((r) => !byId.has(r.id))) {
    refuse('a call went unanswered');
    return null;
  }
  return requestsOut.map((r) => resultOf(transport.label, byId.get(r.id)!));
}

export function createRpcSource(url: string, options: RpcOptions): RpcSource {
  const { maxBatch = 20 } = options;
  const transport = createRpcTransport(url, options);
  const { label } = transport;
  // Remembered for the life of the source: a provider that refuses batches keeps refusing them.
  let batchesRefused = false;

  async function call<T>(method: string, params: unknown[]): Promise<T> {
    const reply = (await transport.send(method, () => transport.request({ method, params }))) as RpcReply;
    const result = resultOf(label, reply);
    if (result instanceof RpcError) throw result;
    return result as T;
  }

  function refuse(reason: string) {
    batchesRefused = true;
    options.logger?.warn(`${options.chain ?? 'EVM'}: RPC source refuses JSON-RPC batches; single calls from now on`, { source: label, reason });
  }

  async function single(c: RpcCall): Promise<unknown> {
    try {
      return await call(c.method, c.params);
    } catch (error) {
      if (error instanceof RpcError) return error;
      throw error;
    }
  }

  return {
    label,
    get requests() {
      return transport.requests();
    },
    call,
    async batch(calls) {
      if (calls.length === 1 || batchesRefused) {
        const results: unknown[] = [];
        for (const c of calls) results.push(await single(c));
        return results;
      }
      const results: unknown[] = [];
      for (let i = 0; i < calls.length; i += maxBatch) {
        const chunk = calls.slice(i, i + maxBatch);
        const answered = batchesRefused ? null : await batchOnce(transport, chunk, refuse);
        if (answered) results.push(...answered);
        else for (const c of chunk) results.push(await single(c));
      }
      return results;
    },
  };
}
