import type { Env } from '../../edge/settings.ts';
import { SANDBOX_DATABASE_PATH, wantsSandbox } from '../../sandbox/sandbox.ts';
import { runningSandbox } from '../../sandbox/sandbox-state.ts';

/**
 * The database to read: DATABASE_URL when set (a listener's, even from a machine without its
 * keys); else, with no merchant key set, the running listener sandbox's. Throws, saying so, when
 * that sandbox is not running here, rather than reading an unrelated ./data/service.db.
 */
export function stateDatabaseUrl(env: Env, configured: string, chains: Parameters<typeof wantsSandbox>[1]): string {
  if (env.DATABASE_URL?.trim() || !wantsSandbox(env, chains)) return configured;
  const sandbox = runningSandbox();
  if (sandbox?.edition === 'cloud') {
    throw new Error(
      `The sandbox running in this directory is the Cloud sandbox; its webhook deliveries are on its dashboard (${sandbox.api_url.replace(/\/api\/v1$/, '')}/dashboard, Webhooks).`,
    );
  }
  if (sandbox?.edition !== 'listener') {
    throw new Error(
      `No merchant key is set, so the listener here is the sandbox, and no sandbox is running in this directory ` +
        `(it keeps ${SANDBOX_DATABASE_PATH} only while it runs). Start it with "npm start" and run this command in the same directory.`,
    );
  }
  return `sqlite:${sandbox.database}`;
}
