import pg from 'pg';
import type { Logger } from '../core/log.ts';

/** Arbitrary, fixed: seeds the advisory lock all Cloud instances on one database schema compete for. */
export const CHAIN_WATCH_LOCK = 7_302_114_901;

export interface LeaderElection {
  /** Whether this instance holds the lock now. */
  isLeader(): boolean;
  stop(): Promise<void>;
}

/**
 * One instance at a time does the singleton work (chain watching, applying plan purchases).
 * On Postgres that is whoever holds a session advisory lock: it is released when the holder's
 * connection ends, so if the leader dies another instance takes over at its next try. On SQLite
 * there is one instance, which always leads.
 */
export function electLeader(options: {
  databaseUrl: string;
  dialect: 'sqlite' | 'postgres';
  logger: Logger;
  retryMs?: number;
  onChange(leading: boolean): void;
}): LeaderElection {
  if (options.dialect === 'sqlite') {
    options.onChange(true);
    return { isLeader: () => true, stop: async () => options.onChange(false) };
  }
  const retryMs = options.retryMs ?? 5_000;
  let client: pg.Client | null = null;
  let leading = false;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;

  const setLeading = (value: boolean) => {
    if (value === leading) return;
    leading = value;
    options.logger.info(value ? 'elected: this instance watches the chains' : 'no longer the chain-watching instance');
    options.onChange(value);
  };

  async function attempt() {
    if (stopped) return;
    try {
      if (!client) {
        const fresh = new pg.Client({ connectionString: options.databaseUrl, connectionTimeoutMillis: 10_000 });
        fresh.on('error', () => {
          // The lock went with the connection: step down and compete again.
          if (client === fresh) client = null;
          setLeading(false);
        });
        await fresh.connect();
        client = fresh;
      }
      if (!leading) {
        // Advisory locks are database-wide: keyed by schema, Cloud deployments that share a
        // database in separate schemas (as the tests do) each elect their own leader.
        const { rows } = await client.query('select pg_try_advisory_lock(hashtextextended(current_schema(), $1)) as won', [CHAIN_WATCH_LOCK]);
        if (rows[0].won) setLeading(true);
      } else {
        await client.query('select 1');
      }
    } catch (error) {
      options.logger.warn('leader election: database unreachable', { error: String(error) });
      const broken = client;
      client = null;
      setLeading(false);
      await broken?.end().catch(() => undefined);
    }
    if (!stopped) timer = setTimeout(() => void (inFlight = attempt()), retryMs);
  }
  // stop() waits for an attempt under way, so none opens a connection (or wins the lock) after it.
  let inFlight = attempt();

  return {
    isLeader: () => leading,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await inFlight;
      setLeading(false);
      await client?.end().catch(() => undefined);
      client = null;
    },
  };
}
