import type { Kysely } from 'kysely';
import type { Clock } from '../clock.ts';
import type { Logger } from '../log.ts';
import type { ServiceMetrics } from '../metrics.ts';
import type { CoreTables } from '../schema.ts';
import { expireLapsed, nextPendingExpiry, type ExpiryGuard } from './invoice.repository.ts';
import type { StatusFeed } from './status-feed.ts';

export interface ExpirySweeperDeps {
  db: Kysely<CoreTables>;
  feed: StatusFeed;
  clock: Clock;
  logger: Logger;
  /** The chains' reasons to keep a lapsed invoice pending (see ChainAdapter.paymentSeenBeforeExpiry). */
  guards: readonly ExpiryGuard[];
  /** The longest wait between sweeps, so an invoice created elsewhere (another instance) is not missed for long. */
  maxWaitMs?: number;
  /** Counts each expiry in the invoice transitions. */
  metrics?: ServiceMetrics;
}

export interface ExpirySweeper {
  /** An invoice expiring at `expiresAt` was created: sweep then if that is sooner than planned. */
  created(expiresAt: number): void;
  stop(): Promise<void>;
}

export const EXPIRY_MAX_WAIT_MS = 60_000;

/**
 * Stores and publishes `expired` for pending invoices as they pass their expiry: one timer, armed
 * for the nearest expiry (or `maxWaitMs`, whichever is sooner). The flip is the same guarded update
 * as the lazy one on read, so each invoice expires once whichever comes first, on any instance.
 */
export function startExpirySweeper(deps: ExpirySweeperDeps): ExpirySweeper {
  const maxWaitMs = deps.maxWaitMs ?? EXPIRY_MAX_WAIT_MS;
  let timer: NodeJS.Timeout | undefined;
  let dueAt = Infinity;
  let stopped = false;
  let running: Promise<void> = Promise.resolve();

  function arm(at: number): void {
    if (stopped) return;
    clearTimeout(timer);
    dueAt = at;
    timer = setTimeout(() => {
      timer = undefined;
      dueAt = Infinity;
      running = sweep();
    }, Math.max(0, at - deps.clock.now()));
    timer.unref();
  }

  async function sweep(): Promise<void> {
    let next: number | null = null;
    try {
      const now = deps.clock.now();
      const expired = await deps.feed.transaction(deps.db, async (trx, changed) => {
        const rows = await expireLapsed(trx, deps.guards, now);
        for (const row of rows) changed({ invoice_id: row.invoice_id, merchant_id: row.merchant_id, status: 'expired', at: now });
        return rows;
      });
      for (const row of expired) deps.metrics?.invoiceTransitions.inc({ chain: row.chain, asset: row.asset, status: 'expired' });
      if (expired.length > 0) deps.logger.info('invoices expired', { count: expired.length });
      next = await nextPendingExpiry(deps.db, now);
    } catch (error) {
      deps.logger.warn('expiry sweep failed; retrying', { error: String(error) });
    }
    const now = deps.clock.now();
    // `dueAt`: an invoice created during the sweep may expire sooner than any it read.
    arm(Math.min(next ?? Infinity, now + maxWaitMs, dueAt));
  }

  running = sweep();

  return {
    created(expiresAt) {
      if (!stopped && expiresAt < dueAt) arm(expiresAt);
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
