import type { Kysely } from 'kysely';
import type { CloudTables } from '../storage/cloud.tables.ts';
import { createRateLimiter, type LimiterDeps, type RateLimiter, type WindowStore } from '../../edge/http/sliding-window.ts';

/**
 * The sliding windows kept in the database every Cloud instance shares, so N instances together let
 * through the configured number per minute, not N times it.
 */
export function createSharedRateLimiter(deps: LimiterDeps & { db: Kysely<CloudTables> }): RateLimiter {
  return createRateLimiter({ ...deps, store: databaseWindows(deps.db) });
}

/**
 * Each bucket is one row of `cloud_rate_windows` holding its times; the upsert that reads it also
 * locks it (Postgres row lock; SQLite runs one transaction at a time), so two instances taking the
 * last slot are counted one after the other.
 */
function databaseWindows(db: Kysely<CloudTables>): WindowStore {
  return {
    async update(buckets, change) {
      await db.transaction().execute(async (trx) => {
        const kept: number[][] = [];
        for (const bucket of buckets) {
          const row = await trx
            .insertInto('cloud_rate_windows')
            .values({ bucket, hits: '', last_hit_at: 0 })
            .onConflict((oc) => oc.column('bucket').doUpdateSet((eb) => ({ bucket: eb.ref('excluded.bucket') })))
            .returning('hits')
            .executeTakeFirstOrThrow();
          kept.push(row.hits.split(',').filter(Boolean).map(Number));
        }
        const saved = change(kept);
        if (!saved) return;
        for (const [i, times] of saved.entries()) {
          // The newest time, which the sweep goes by; an emptied window is idle.
          const lastHitAt = times.length ? Math.max(...times) : 0;
          await trx.updateTable('cloud_rate_windows').set({ hits: times.join(','), last_hit_at: lastHitAt }).where('bucket', '=', buckets[i]).execute();
        }
      });
    },
    async sweep(cutoff) {
      await db.deleteFrom('cloud_rate_windows').where('last_hit_at', '<=', cutoff).execute();
    },
  };
}
