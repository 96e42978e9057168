import type { Kysely, Transaction } from 'kysely';
import type { Clock } from '../core/clock.ts';
import type { RateLimitConfig } from '../listener/config.ts';
import type { CloudTables } from './cloud.tables.ts';

const WINDOW_MS = 60_000;
/** Idle windows are deleted once every this many requests an instance lets through or refuses. */
const DEFAULT_SWEEP_EVERY = 1_000;

interface Bucket {
  id: string;
  limit: number;
}

/**
 * An exact sliding window per client (and overall), kept in the database every Cloud instance
 * shares, so N instances together let through the configured number per minute, not N times it.
 * Each bucket is one row holding the times let through in the last minute; the upsert that reads
 * it also locks it (Postgres row lock; SQLite runs one transaction at a time), so two instances
 * taking the last slot are counted one after the other. Buckets are locked in name order, so two
 * requests that need the same pair never wait on each other crosswise.
 */
export function createSharedRateLimiter(deps: { db: Kysely<CloudTables>; clock: Clock; name: string; config: RateLimitConfig; sweepEvery?: number }) {
  const { db, clock, name, config } = deps;
  const sweepEvery = deps.sweepEvery ?? DEFAULT_SWEEP_EVERY;
  let takesSinceSweep = 0;
  const bucketsOf = (client: string): Bucket[] => {
    const buckets: Bucket[] = [{ id: `${name}:${client}`, limit: config.perClient }];
    if (config.overall < Number.MAX_SAFE_INTEGER) buckets.push({ id: `${name}:*`, limit: config.overall });
    return buckets.sort((a, b) => (a.id < b.id ? -1 : 1));
  };

  return {
    /** Returns seconds to wait, or 0 when the request may go ahead (and is then counted). */
    async take(client: string): Promise<number> {
      const now = clock.now();
      const buckets = bucketsOf(client);

      const waitMs = await db.transaction().execute(async (trx) => {
        const windows = [];
        for (const bucket of buckets) windows.push({ bucket, hits: await lockedHits(trx, bucket.id, now) });
        const wait = Math.max(...windows.map(({ bucket, hits }) => (hits.length < bucket.limit ? 0 : hits[hits.length - bucket.limit] + WINDOW_MS - now)));
        if (wait > 0) return wait;
        for (const { bucket, hits } of windows) {
          await trx
            .updateTable('cloud_rate_windows')
            .set({ hits: [...hits, now].join(','), last_hit_at: now })
            .where('bucket', '=', bucket.id)
            .execute();
        }
        return 0;
      });

      if (++takesSinceSweep >= sweepEvery) {
        takesSinceSweep = 0;
        await db.deleteFrom('cloud_rate_windows').where('last_hit_at', '<=', now - WINDOW_MS).execute();
      }
      return waitMs > 0 ? Math.max(1, Math.ceil(waitMs / 1000)) : 0;
    },

    /** Gives back the newest slot of `client` (and overall), for a request the service failed (a 5xx). */
    async release(client: string): Promise<void> {
      const now = clock.now();
      await db.transaction().execute(async (trx) => {
        for (const bucket of bucketsOf(client)) {
          const hits = await lockedHits(trx, bucket.id, now);
          hits.pop();
          await trx.updateTable('cloud_rate_windows').set({ hits: hits.join(',') }).where('bucket', '=', bucket.id).execute();
        }
      });
    },
  };
}

/** The bucket's times still inside the window, oldest first; its row is locked until the transaction ends. */
async function lockedHits(trx: Transaction<CloudTables>, bucket: string, now: number): Promise<number[]> {
  const row = await trx
    .insertInto('cloud_rate_windows')
    .values({ bucket, hits: '', last_hit_at: now })
    .onConflict((oc) => oc.column('bucket').doUpdateSet((eb) => ({ bucket: eb.ref('excluded.bucket') })))
    .returning('hits')
    .executeTakeFirstOrThrow();
  return row.hits
    .split(',')
    .filter(Boolean)
    .map(Number)
    .filter((at) => at > now - WINDOW_MS)
    .sort((a, b) => a - b);
}
