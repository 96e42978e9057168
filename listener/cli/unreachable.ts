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

/** fetch that throws UnreachableError saying "<what> answers at <url> (<why>) — <hint>" when nothing answers. */
export async function fetchOrExplain(url: string, init: RequestInit, what: string, hint: string): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (error) {
    throw new UnreachableError(`no ${what} answers at ${new URL(url).origin} (${whyUnreachable(error)}) — ${hint}`);
  }
}
