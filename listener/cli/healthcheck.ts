import type { Command } from './command.ts';
import { whyUnreachable } from './unreachable.ts';

/** Healthy, or why not: nothing answered (and why), an error status, or `ok` not true with the problems named. */
export async function probeHealth(url: string, timeoutMs: number, fetchImpl: typeof fetch = fetch): Promise<{ healthy: boolean; reason: string }> {
  const base = url.replace(/\/+$/, '');
  let response: Response;
  try {
    response = await fetchImpl(`${base}/health`, { signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    const why = whyUnreachable(error);
    return { healthy: false, reason: `nothing answers at ${base} (${why === 'no answer in time' ? `no answer within ${timeoutMs} ms` : why}) — is the listener running (npm start)?` };
  }
  let body: { ok?: unknown; problems?: { component?: string; reason?: string }[] };
  try {
    body = (await response.json()) as typeof body;
  } catch {
    return { healthy: false, reason: `${base}/health answered HTTP ${response.status} with no JSON: is that the listener?` };
  }
  if (response.ok && body.ok === true) return { healthy: true, reason: '' };
  const problems = (body.problems ?? []).map((p) => `${p.component ?? '?'}: ${p.reason ?? '?'}`).join('; ');
  return { healthy: false, reason: `${base}/health answered HTTP ${response.status}, ok ${String(body.ok)}${problems ? ` (${problems})` : ''}` };
}

export const healthcheckCommand: Command = {
  name: 'healthcheck',
  usage: `
Usage: service healthcheck [--url URL] [--timeout MS]

Exits 0 when the listener answers GET /health with "ok": true, else 1, saying why on stderr (nothing
answered and why, the HTTP status, the problems /health names). For container health checks.
The default URL is http://127.0.0.1:$PORT (PORT defaults to 8787); for Cloud give
--url http://127.0.0.1:8788/api/v1.`,
  options: { url: { type: 'string' }, timeout: { type: 'string' } },
  settings: ['PORT'],
  async run({ values }) {
    const url = (values.url as string | undefined) ?? `http://127.0.0.1:${process.env.PORT || 8787}`;
    const timeoutText = (values.timeout as string | undefined) ?? '5000';
    if (!/^[1-9]\d{0,6}$/.test(timeoutText)) {
      process.stderr.write(`service healthcheck: --timeout must be a whole number of milliseconds (1-9999999), got "${timeoutText}"\n`);
      return 2;
    }
    const { healthy, reason } = await probeHealth(url, Number(timeoutText));
    process.stdout.write(healthy ? 'healthy\n' : 'unhealthy\n');
    if (!healthy) process.stderr.write(`${reason}\n`);
    return healthy ? 0 : 1;
  },
};
