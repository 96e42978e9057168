import type { Command } from './command.ts';

/** Probes /health; a listener that does not answer ok within the timeout is unhealthy. */
export async function probeHealth(url: string, timeoutMs: number, fetchImpl: typeof fetch = fetch): Promise<boolean> {
  try {
    const response = await fetchImpl(`${url.replace(/\/+$/, '')}/health`, { signal: AbortSignal.timeout(timeoutMs) });
    if (!response.ok) return false;
    const body = (await response.json()) as { ok?: unknown };
    return body.ok === true;
  } catch {
    return false;
  }
}

export const healthcheckCommand: Command = {
  name: 'healthcheck',
  summary: 'Probe GET /health; exit 0 when healthy, 1 otherwise',
  usage: `
Usage: service healthcheck [--url URL] [--timeout MS]

Exits 0 when the listener answers GET /health with "ok": true, else 1. For container health checks.
The default URL is http://127.0.0.1:$PORT (PORT defaults to 8787).`,
  options: { url: { type: 'string' }, timeout: { type: 'string' } },
  async run({ values }) {
    const url = (values.url as string | undefined) ?? `http://127.0.0.1:${process.env.PORT || 8787}`;
    const healthy = await probeHealth(url, Number(values.timeout ?? 5000));
    process.stdout.write(healthy ? 'healthy\n' : 'unhealthy\n');
    return healthy ? 0 : 1;
  },
};
