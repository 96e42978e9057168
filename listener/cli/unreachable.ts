import { request as httpRequest } from 'node:http';

/** Why a request got no answer, in a few words, from the error fetch threw (its cause carries the system's code). */
export function whyUnreachable(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } } | null)?.cause;
  const code = cause?.code ?? (error as { code?: string } | null)?.code;
  const name = (error as { name?: string } | null)?.name;
  if (name === 'TimeoutError' || name === 'AbortError') return 'no answer in time';
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host name not found';
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return 'connection reset';
    case 'ETIMEDOUT':
    case 'UND_ERR_CONNECT_TIMEOUT':
      return 'connection timed out';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'host unreachable';
    default:
      return cause?.message ?? (error instanceof Error ? error.message : String(error));
  }
}

/** A request that got no answer: what was asked, where, and why, for the CLI to print as it stands. */
export class UnreachableError extends Error {}

export interface PlainResponse {
  status: number;
  ok: boolean;
  body: string;
}

/** How long a sandbox command waits for an answer. */
const REQUEST_TIMEOUT_MS = 30_000;

/**
 * One HTTP request on a connection of its own, closed after the answer, that throws
 * UnreachableError saying "no <what> answers at <url> (<why>) — <hint>" when nothing answers.
 * node:http rather than fetch: a one-shot command then neither loads fetch's client (a large part of
 * its start-up) nor waits, after its last answer, for a pooled keep-alive connection to let go.
 */
export async function requestOrExplain(url: string, init: { method?: string; json?: unknown }, what: string, hint: string): Promise<PlainResponse> {
  const target = new URL(url);
  const body = init.json === undefined ? undefined : JSON.stringify(init.json);
  // TLS only for an https URL (`--url`): the sandbox answers on plain http at 127.0.0.1.
  const send = target.protocol === 'https:' ? (await import('node:https')).request : httpRequest;
  return new Promise((resolve, reject) => {
    const request = send(
      target,
      {
        method: init.method ?? 'GET',
        agent: false,
        timeout: REQUEST_TIMEOUT_MS,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', fail);
        response.on('end', () => {
          const status = response.statusCode ?? 0;
          resolve({ status, ok: status >= 200 && status < 300, body: Buffer.concat(chunks).toString('utf8') });
        });
      },
    );
    function fail(error: unknown) {
      reject(new UnreachableError(`no ${what} answers at ${target.origin} (${whyUnreachable(error)}) — ${hint}`));
    }
    request.on('timeout', () => request.destroy(Object.assign(new Error('timeout'), { name: 'TimeoutError' })));
    request.on('error', fail);
    request.end(body);
  });
}
