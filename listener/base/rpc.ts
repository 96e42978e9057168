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

export interface RpcSource {
  /** For logs: scheme, host and port only (URLs of hosted providers often embed an API key). */
  readonly label: string;
  call<T>(method: string, params: unknown[]): Promise<T>;
  /** Requests sent so far (each retry counts), for health and the benchmark. */
  readonly requests: number;
}

export interface RpcOptions {
  fetch: typeof globalThis.fetch;
  sleep: (ms: number) => Promise<void>;
  /** Attempts per call for transport failures (network, HTTP 429/5xx, timeout). */
  attempts?: number;
  backoffMs?: number;
  timeoutMs?: number;
}

export function createRpcSource(url: string, options: RpcOptions): RpcSource {
  const { fetch, sleep, attempts = 4, backoffMs = 250, timeoutMs = 10_000 } = options;
  const parsed = new URL(url);
  const label = `${parsed.protocol}//${parsed.host}`;
  let requests = 0;
  let nextId = 1;

  async function once<T>(method: string, params: unknown[]): Promise<T> {
    requests++;
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!response.ok) throw new RpcUnavailableError(`${label} answered HTTP ${response.status}`);
    const body = (await response.json()) as { result?: T; error?: { code: number; message: string } };
    if (body.error) throw new RpcError(body.error.code, body.error.message);
    if (!('result' in body)) throw new RpcUnavailableError(`${label} answered without a result`);
    return body.result as T;
  }

  return {
    label,
    get requests() {
      return requests;
    },
    async call<T>(method: string, params: unknown[]): Promise<T> {
      for (let attempt = 1; ; attempt++) {
        try {
          return await once<T>(method, params);
        } catch (error) {
          if (error instanceof RpcError) throw error;
          if (attempt >= attempts) {
            throw new RpcUnavailableError(`${label} ${method} failed ${attempts} times: ${(error as Error).message}`);
          }
          await sleep(backoffMs * 2 ** (attempt - 1));
        }
      }
    },
  };
}
