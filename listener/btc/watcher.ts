import type { Kysely } from 'kysely';
import type { BtcGapReport, BtcNetwork } from '../../shared/index.ts';
import type { Clock } from '../clock.ts';
import type { Tables } from '../db/tables.ts';
import type { Logger } from '../log.ts';
import { bitcoinNetworks } from './account-key.ts';
import {
  disconnectAbove,
  lastProcessedBlock,
  markLeftMempool,
  processedBlockAt,
  recordInBlock,
  recordInMempool,
  recordProcessedBlock,
  type SeenOutput,
} from './btc-payment.repository.ts';
import type { ChainSource, SourceTx } from './chain-source.ts';
import { createGapMonitor } from './gap-report.ts';
import { outputScriptHex } from './output-script.ts';
import { settleInvoices } from './settlement.ts';
import { createWatchProgress, stallAfterMs, watcherProblem, type WatcherProgress } from '../watch-progress.ts';

export interface BtcWatcherDeps {
  db: Kysely<Tables>;
  merchantId: string;
  /** The wallet key whose child indexes the gap report covers. */
  keyId: string;
  source: ChainSource;
  clock: Clock;
  logger: Logger;
  /** Steady-state poll; also bounds how long a new invoice waits to be watched. */
  pollIntervalMs?: number;
  /** Longest wait between retries while the source fails. */
  maxBackoffMs?: number;
  /** Mempool transactions fetched per pass; the rest wait for the next pass (or their block). */
  mempoolFetchLimit?: number;
  /** No progress for this long is a problem on /health (default: stallAfterMs of the poll interval and backoff). */
  stallAfterMs?: number;
}

export interface BtcWatcherStatus {
  ws_connected: boolean;
  subscribed_count: number;
  last_event_at: string | null;
  last_block_height: number | null;
  btc_source: ChainSource['kind'];
  btc_source_error: string | null;
  btc_gap?: BtcGapReport;
  btc_progress: WatcherProgress;
}

/** How many processed block hashes are kept to find a fork point; deeper reorgs rescan from the oldest. */
const KEEP_BLOCKS = 1_000;
const PROGRESS_EVERY_MS = 5_000;
/** How far before the newest invoice seen each watch-set refresh looks again for late commits. */
const LATE_COMMIT_WINDOW_MS = 120_000;
const WATCH_PAGE = 5_000;

/**
 * Follows the chain for the merchant's Bitcoin invoices. Every block and new mempool transaction is
 * parsed once and its outputs are looked up in the set of watched scripts, so the cost per block is
 * the same for 10 or 100,000 open invoices, and the source never learns which addresses are ours.
 */
export function createBtcWatcher(deps: BtcWatcherDeps) {
  const { db, merchantId, keyId, source, clock, logger } = deps;
  const pollIntervalMs = deps.pollIntervalMs ?? 10_000;
  const maxBackoffMs = deps.maxBackoffMs ?? 60_000;
  const mempoolFetchLimit = deps.mempoolFetchLimit ?? 2_000;
  const log = logger.child({ component: 'btc-watcher', source: source.kind });
  const progress = createWatchProgress(clock);
  const stallLimitMs = deps.stallAfterMs ?? stallAfterMs(pollIntervalMs, maxBackoffMs);

  /** Output script (hex) → invoice id. */
  const watched = new Map<string, string>();
  let watchedSince = -1;
  let seenMempool = new Set<string>();
  let lastEventAt: number | null = null;
  let lastBlockHeight: number | null = null;
  let sourceError: string | null = null;
  let running: Promise<void> = Promise.resolve();
  let stopped = true;
  let wake: (() => void) | null = null;
  let loopDone: Promise<void> = Promise.resolve();
  const gap = createGapMonitor({ db, keyId, clock, logger: log });
  // The gap only moves when invoices are added or payments appear or vanish.
  let gapStale = true;

  const heard = <T>(value: T): T => {
    lastEventAt = clock.now();
    return value;
  };

  /**
   * Adds invoices created since the last refresh. An invoice is stamped before its transaction
   * commits, so a concurrent one can become visible after a later-stamped one was read: each
   * refresh re-reads a window before the newest stamp seen (re-adding is harmless). Rows come in
   * pages, so loading 100,000 invoices at start never holds them all at once.
   */
  async function refreshWatchSet(): Promise<void> {
    const before = watched.size;
    const from = watchedSince < 0 ? watchedSince : watchedSince - LATE_COMMIT_WINDOW_MS;
    let after: { createdAt: number; invoiceId: string } | null = null;
    for (;;) {
      let query = db
        .selectFrom('invoices')
        .select(['invoice_id', 'receive_address', 'network', 'created_at'])
        .where('merchant_id', '=', merchantId)
        .where('chain', '=', 'btc')
        .where('created_at', '>=', from);
      if (after) {
        const { createdAt, invoiceId } = after;
        query = query.where((eb) => eb.or([eb('created_at', '>', createdAt), eb.and([eb('created_at', '=', createdAt), eb('invoice_id', '>', invoiceId)])]));
      }
      const rows = await query.orderBy('created_at').orderBy('invoice_id').limit(WATCH_PAGE).execute();
      for (const row of rows) {
        const network = bitcoinNetworks[(row.network ?? 'mainnet') as BtcNetwork];
        watched.set(outputScriptHex(row.receive_address, network), row.invoice_id);
        watchedSince = Math.max(watchedSince, Number(row.created_at));
      }
      if (rows.length < WATCH_PAGE) break;
      const last = rows[rows.length - 1];
      after = { createdAt: Number(last.created_at), invoiceId: last.invoice_id };
    }
    if (watched.size !== before) gapStale = true;
  }

  function matches(txs: SourceTx[]): SeenOutput[] {
    const found: SeenOutput[] = [];
    for (const tx of txs) {
      tx.outputs.forEach((output, vout) => {
        const invoiceId = watched.get(output.script);
        if (invoiceId) found.push({ invoiceId, txid: tx.txid, vout, valueSats: output.value });
      });
    }
    return found;
  }

  /** Walks back from `height` to the last block our record and the source agree on. */
  async function findForkPoint(height: number): Promise<number> {
    for (let h = height; h >= 0; h--) {
      const ours = await processedBlockAt(db, merchantId, h);
      if (!ours) return h; // deeper than our record: rescan from just above the oldest block we kept
      if ((heard(await source.blockHash(h))) === ours.hash) return h;
    }
    return -1;
  }

  async function followBlocks(): Promise<number> {
    const tip = heard(await source.tipHeight());
    let last = await lastProcessedBlock(db, merchantId);
    if (last && heard(await source.blockHash(last.height)) !== last.hash) {
      const fork = await findForkPoint(last.height - 1);
      log.warn('btc reorg: rolling back to the fork point and rescanning', { from_height: last.height, fork_height: fork });
      await db.transaction().execute((trx) => disconnectAbove(trx, merchantId, fork));
      gapStale = true;
      // Transactions of the disconnected blocks may be back in the mempool: look at all of it again.
      seenMempool = new Set();
      last = fork >= 0 ? { height: fork, hash: (await processedBlockAt(db, merchantId, fork))?.hash ?? '' } : undefined;
    }
    // First start ever: begin at the current tip rather than replaying history.
    const from = last ? last.height + 1 : tip;
    if (tip - from >= 10) log.info('btc catch-up started', { from_height: from, to_height: tip });
    let lastProgress = clock.now();
    let prevHash = last?.hash;
    for (let height = from; height <= tip; height++) {
      // An invoice paid in this block was committed before the block was mined, hence before this
      // refresh, even when this pass started long before (a catch-up): it is matched.
      if (height > from) await refreshWatchSet();
      const hash = heard(await source.blockHash(height));
      if (hash === null) break; // the tip moved down under us; the next pass sees the reorg
      const block = heard(await source.block(hash, height));
      if (prevHash !== undefined && block.prevHash !== prevHash) break; // reorg mid-scan; the next pass rolls back
      const found = matches(block.txs);
      const seenAt = Math.min(clock.now(), block.time * 1000);
      await db.transaction().execute(async (trx) => {
        await recordInBlock(trx, merchantId, found, block, seenAt);
        await recordProcessedBlock(trx, merchantId, block, clock.now(), KEEP_BLOCKS);
      });
      for (const output of found) seenMempool.delete(output.txid);
      if (found.length) gapStale = true;
      if (found.length) log.info('btc payments found in block', { height, hash, outputs: found.length });
      lastBlockHeight = height;
      prevHash = hash;
      if (clock.now() - lastProgress >= PROGRESS_EVERY_MS) {
        lastProgress = clock.now();
        log.info('btc catch-up progress', { height, tip, remaining: tip - height });
      }
    }
    return tip;
  }

  async function followMempool(tip: number): Promise<void> {
    const txids = heard(await source.mempoolTxids());
    const current = new Set(txids);
    const fresh = txids.filter((txid) => !seenMempool.has(txid)).slice(0, mempoolFetchLimit);
    const txs = fresh.length ? heard(await source.transactions(fresh)) : [];
    const found = matches(txs);
    if (found.length) {
      await recordInMempool(db, merchantId, found, clock.now());
      gapStale = true;
      log.info('btc payments seen in mempool', { outputs: found.length });
    }
    const next = new Set<string>();
    for (const txid of seenMempool) if (current.has(txid)) next.add(txid);
    for (const txid of fresh) next.add(txid);
    seenMempool = next;
    // A transaction mined between our block scan and this read is also absent: only judge a still tip.
    if (heard(await source.tipHeight()) === tip) {
      const left = await markLeftMempool(db, merchantId, current);
      if (left) {
        gapStale = true;
        log.warn('btc payments left the mempool unconfirmed', { transactions: left });
      }
    }
  }

  /** One full pass: new invoices, new blocks (with reorg handling), mempool, then invoice states. */
  async function pass(): Promise<void> {
    try {
      progress.step('refreshing the watched addresses');
      await refreshWatchSet();
      progress.step('following blocks');
      const tip = await followBlocks();
      progress.step('following the mempool');
      await followMempool(tip);
      progress.step('settling invoices');
      const last = await lastProcessedBlock(db, merchantId);
      if (last) {
        lastBlockHeight = last.height;
        await settleInvoices(db, merchantId, last.height, clock.now(), log);
      }
      progress.succeeded();
    } catch (error) {
      progress.failed(error);
      throw error;
    } finally {
      // Needs only the database: kept current (new invoices widen the gap) even while the source is down.
      if (gapStale) {
        gapStale = false;
        await gap.refresh();
      }
    }
  }

  function syncOnce(): Promise<void> {
    const next = running.then(pass);
    running = next.catch(() => {});
    return next;
  }

  async function loop(): Promise<void> {
    let failures = 0;
    while (!stopped) {
      try {
        await syncOnce();
        if (sourceError) log.info('btc source recovered');
        sourceError = null;
        failures = 0;
      } catch (error) {
        failures++;
        sourceError = error instanceof Error ? error.message : String(error);
        log.warn('btc watcher pass failed; retrying', { error: sourceError, attempt: failures });
      }
      // stop() during the pass found no wait to cut short: without this the loop would sleep a whole interval first.
      if (stopped) break;
      const wait = failures ? Math.min(maxBackoffMs, 1_000 * 2 ** (failures - 1)) : pollIntervalMs;
      progress.step('waiting for the next poll');
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, wait);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = null;
    }
  }

  return {
    syncOnce,
    start() {
      if (!stopped) return;
      stopped = false;
      loopDone = loop();
    },
    async stop() {
      stopped = true;
      wake?.();
      await loopDone;
      await running;
    },
    status(): BtcWatcherStatus {
      return {
        ws_connected: false,
        subscribed_count: watched.size,
        last_event_at: lastEventAt === null ? null : new Date(lastEventAt).toISOString(),
        last_block_height: lastBlockHeight,
        btc_source: source.kind,
        btc_source_error: sourceError,
        ...(gap.current() ? { btc_gap: gap.current()! } : {}),
        btc_progress: progress.current(),
      };
    },
    /** Stalled or failing for longer than the limit, at the clock's now; null when progressing. */
    problem: () => watcherProblem('btc', progress.current(), clock.now(), stallLimitMs),
  };
}

export type BtcWatcher = ReturnType<typeof createBtcWatcher>;
