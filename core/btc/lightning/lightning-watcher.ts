import type { Kysely } from 'kysely';
import type { LightningHealth } from '../../../shared/index.ts';
import type { Clock } from '../../clock.ts';
import type { Logger } from '../../log.ts';
import type { StatusFeed } from '../../invoices/status-feed.ts';
import type { CoreTables } from '../../schema.ts';
import { createPollLoop } from '../../poll-loop.ts';
import { createWatchProgress, type WatcherProblem } from '../../watch-progress.ts';
import { exponentialBackoffMs } from '../../net/backoff.ts';
import { reportOf, settleLightningPayment, type SettlementOutcome } from './lightning-settlement.ts';
import type { LightningWallet } from './lightning-wallet.ts';
import type { NwcTransaction } from './nwc-client.ts';
import { describeNwcConnection } from './nwc-connection.ts';
import type { RelayPool } from './relay-pool.ts';
import { createLookupPlanner } from './lookup-planner.ts';

export interface LightningWatcherOptions {
  db: Kysely<CoreTables>;
  feed: StatusFeed;
  clock: Clock;
  logger: Logger;
  merchantId: string;
  wallet: LightningWallet;
  pool: RelayPool;
  /** How often open invoices are looked up, in case a notification was missed (a relay drop, a wallet without notifications). */
  pollIntervalMs?: number;
  /** lookup_invoice requests one pass may make: the wallet is the merchant's, not ours to flood. */
  lookupsPerPass?: number;
}

const DEFAULT_POLL_MS = 15_000;
const DEFAULT_LOOKUPS_PER_PASS = 25;

/**
 * Watches one merchant's Lightning invoices: settlements arrive as the wallet's `payment_received`
 * notifications, and a poll of `lookup_invoice` over the open invoices (newest first, each pass
 * going on where the last stopped, within a budget) catches what a notification missed. Either way a settlement counts only with a preimage
 * that hashes to the payment hash (lightning-settlement.ts); a report without one is refused and named.
 */
export function createLightningWatcher(options: LightningWatcherOptions) {
  const { db, clock, logger, merchantId, wallet } = options;
  const pollIntervalMs = options.pollIntervalMs ?? DEFAULT_POLL_MS;
  const planLookups = createLookupPlanner(db, options.lookupsPerPass ?? DEFAULT_LOOKUPS_PER_PASS);
  const progress = createWatchProgress(clock);
  let ready = false;
  let problem: string | null = null;
  let refused = 0;
  let stopNotifications: (() => void) | null = null;

  async function settle(transaction: NwcTransaction, how: string): Promise<SettlementOutcome | null> {
    if (typeof transaction.payment_hash !== 'string') return null;
    const report = reportOf(transaction);
    if (!report) return recordRefusal(transaction.payment_hash, `${how} without a preimage or amount`);
    const outcome = await settleLightningPayment({ db, feed: options.feed, clock }, merchantId, report);
    if (outcome === 'refused') return recordRefusal(transaction.payment_hash, `${how} with a preimage that does not hash to the payment hash`);
    if (outcome !== 'duplicate' && outcome !== 'unknown') logger.info('lightning payment settled', { merchant_id: merchantId, payment_hash: transaction.payment_hash, outcome });
    return outcome;
  }

  function recordRefusal(paymentHash: string, why: string): SettlementOutcome {
    refused += 1;
    problem = `refused a settlement of ${paymentHash.slice(0, 16)}…: ${why}`;
    logger.warn('lightning settlement refused', { merchant_id: merchantId, payment_hash: paymentHash, reason: why });
    return 'refused';
  }

  /** One pass: the open Lightning invoices, newest first, looked up within the budget. */
  async function pass(): Promise<void> {
    progress.step('checking the wallet connection');
    if (!ready) {
      await wallet.check();
      ready = true;
      problem = null;
    }
    progress.step('reading open Lightning invoices');
    const [lookups = []] = await planLookups((id) => id === merchantId);
    for (const { paymentHash } of lookups) {
      progress.step('looking up an invoice in the wallet');
      const found = await wallet.client.lookupInvoice(paymentHash);
      if (found && (found.state === 'settled' || found.settled_at)) await settle({ ...found, payment_hash: paymentHash }, 'lookup_invoice reported it settled');
    }
  }

  const loop = createPollLoop({
    pass: () => progress.track(pass),
    waitMs: (failures) => (failures ? exponentialBackoffMs(failures, 2_000, 60_000) : pollIntervalMs),
    failed(error, failures) {
      problem = `the Lightning wallet did not answer: ${(error as Error).message}`;
      if (failures === 1) logger.warn('lightning wallet pass failed', { merchant_id: merchantId, error: (error as Error).message });
    },
    progress,
  });

  return {
    start() {
      stopNotifications = wallet.client.onNotification((notification) => {
        if (notification.notification_type !== 'payment_received') return;
        settle(notification.notification, 'payment_received').catch((error) => logger.error('lightning settlement failed', { merchant_id: merchantId, error }));
      });
      loop.start();
    },
    async stop() {
      stopNotifications?.();
      await loop.stop();
      wallet.close();
    },
    /** One lookup pass now (tests, and the fallback when notifications are off). */
    syncOnce: pass,
    /** Settles one transaction the wallet reported: what a notification does (tests drive it directly). */
    settle,
    problem(): WatcherProblem | null {
      const now = new Date(clock.now()).toISOString();
      const current = wallet.problem() ?? problem;
      return current ? { component: 'lightning', kind: 'failing', reason: current, since: now } : null;
    },
    progress: () => progress.current(),
    health(): LightningHealth {
      return {
        wallet: describeNwcConnection(wallet.connection),
        ready,
        problem: wallet.problem() ?? problem,
        refused_settlements: refused,
        relays: options.pool.health().filter((relay) => wallet.connection.relays.includes(relay.relay)),
      };
    },
  };
}

export type LightningWatcher = ReturnType<typeof createLightningWatcher>;
