import pg from 'pg';
import { describeDatabaseError } from '../core/db/availability.ts';
import { CONNECT_TIMEOUT_MS } from '../core/db/database.ts';
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
 *
 * A leader whose lock connection dies (the database restarted, failed over, or ended it) steps
 * down at once: `onChange(false)` stops its leader work, and this instance competes again only
 * once that work has stopped. The winner of the lock starts leading one heartbeat (`retryMs`)
 * later, once the lock is confirmed still held: time for a former leader that lost its connection
 * to finish its pass under way and stop. A connection that goes silent instead is found by the
 * heartbeat (an answer within `retryMs`), while the server keeps the lock until it drops that
 * connection itself, so no other instance wins it before this one has stepped down.
 */
export function electLeader(options: {
  databaseUrl: string;
  dialect: 'sqlite' | 'postgres';
  logger: Logger;
  retryMs?: number;
  /** Starts (true) or stops (false) the leader work; a stop resolves once that work has ended. */
  onChange(leading: boolean): void | Promise<void>;
}): LeaderElection {
  if (options.dialect === 'sqlite') {
    void options.onChange(true);
    return { isLeader: () => true, stop: async () => options.onChange(false) };
  }
  const retryMs = options.retryMs ?? 5_000;
  let client: pg.Client | null = null;
  let leading = false;
  /** The lock is this instance's (won at the last try); it leads from the next heartbeat on. */
  let holding = false;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  // The leader work stopping after a step down: no new term begins before it has.
  let steppingDown: Promise<void> = Promise.resolve();

  const setLeading = (value: boolean) => {
    if (value === leading) return;
    leading = value;
    options.logger.info(value ? 'elected: this instance watches the chains' : 'no longer the chain-watching instance');
    const change = Promise.resolve(options.onChange(value));
    if (!value) {
      steppingDown = change.then(
        () => options.logger.info('leader work stopped'),
        (error) => options.logger.warn('stopping the leader work failed', { error: String(error) }),
      );
    }
  };
  /** The lock went with the connection: step down and compete again with a new one. */
  const dropClient = (broken: pg.Client) => {
    if (client === broken) client = null;
    holding = false;
    setLeading(false);
    void broken.end().catch(() => undefined);
  };

  async function attempt() {
    if (stopped) return;
    await steppingDown;
    try {
      if (!client) {
        const fresh = new pg.Client({ connectionString: options.databaseUrl, connectionTimeoutMillis: CONNECT_TIMEOUT_MS, keepAlive: true, keepAliveInitialDelayMillis: 5_000 });
        fresh.on('error', (error) => {
          options.logger.warn('leader election: lock connection lost', { error: describeDatabaseError(error) });
          dropClient(fresh);
        });
        await fresh.connect();
        if (stopped) return void fresh.end().catch(() => undefined);
        client = fresh;
      }
      const current = client;
      if (!holding) {
        // Advisory locks are database-wide: keyed by schema, Cloud deployments that share a
        // database in separate schemas (as the tests do) each elect their own leader.
        const { rows } = await withTimeout(current.query('select pg_try_advisory_lock(hashtextextended(current_schema(), $1)) as won', [CHAIN_WATCH_LOCK]), retryMs);
        if (rows[0].won && client === current) holding = true;
      } else {
        await withTimeout(current.query('select 1'), retryMs);
        if (client === current && !stopped) setLeading(true);
      }
    } catch (error) {
      options.logger.warn('leader election: database unreachable', { error: describeDatabaseError(error) });
      if (client) dropClient(client);
      else {
        holding = false;
        setLeading(false);
      }
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
      await steppingDown;
      await client?.end().catch(() => undefined);
      client = null;
    },
  };
}

/** A query that has not answered within `ms` counts as failed: a silent connection must not keep a leader leading. */
function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}
