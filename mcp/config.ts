import * as z from 'zod';

/** The self-hosted listener's default address (its default port is 8787). */
export const DEFAULT_LISTENER_URL = 'http://127.0.0.1:8787';

const McpEnv = z.object({
  LISTENER_URL: z
    .url({ protocol: /^https?$/ })
    .default(DEFAULT_LISTENER_URL)
    .describe('Base address of the listener, or of the Cloud API ending in /api/v1.'),
  // An empty variable counts as unset: MCP client configs often carry "SERVICE_API_KEY": "".
  SERVICE_API_KEY: z
    .string()
    .optional()
    .transform((key) => (key === '' ? undefined : key)),
});

export interface McpConfig {
  listenerUrl: string;
  apiKey: string | undefined;
}

export type McpConfigResult = { ok: true; config: McpConfig } | { ok: false; problems: string[] };

export function loadMcpConfig(env: Record<string, string | undefined>): McpConfigResult {
  const parsed = McpEnv.safeParse({ LISTENER_URL: env.LISTENER_URL || undefined, SERVICE_API_KEY: env.SERVICE_API_KEY });
  if (!parsed.success) {
    // Never echo the values: SERVICE_API_KEY is a secret.
    return { ok: false, problems: parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`) };
  }
  return {
    ok: true,
    config: { listenerUrl: parsed.data.LISTENER_URL.replace(/\/+$/, ''), apiKey: parsed.data.SERVICE_API_KEY },
  };
}
