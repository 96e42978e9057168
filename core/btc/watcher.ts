import type { Kysely } from 'kysely';
import type { BtcGapReport, BtcNetwork } from '../../shared/index.ts';
import type { Clock } from '../clock.ts';
import type { CoreTables } from '../schema.ts';
import type { Logger } from '../log.ts';
import { bitcoinNetworks } from './account-key.ts';
import type { AddressSource, AddressTx } from './address-source.ts';
import { addressesToPoll } from './address-poll-order.ts';
import {
  disconnectAbove,
  invoicesPayableSince,
  lastProcessedBlock,
  markGone,
  markLeftMempool,
  mempoolPaymentsByInvoice,
  openInvoiceAddresses,
  processedBlockAt,
  recordInBlock,
  recordInMempool,
  recordProcessedBlock,
  type SeenOutput,
} from './btc-payment.repository.ts';
import type { ChainSource, SourceTx } from './chain-source.ts';
import { createGapMonitor } from './gap-report.ts';
import type { MempoolSocket, SocketSubscription } from './mempool-socket.ts';
import { outputScriptHex } from './output-script.ts';
import { settleInvoices } from './settlement.ts';
import { announcePaymentSeen, type StatusFeed } from '../invoices/status-feed.ts';
import { exponentialBackoffMs } from '../net/backoff.ts';
import { createPollLoop } from '../poll-loop.ts';
import { createWatchProgress, stallAfterMs, watcherProblem, type WatchObserver, type WatcherProgress } from '../watch-progress.ts';

export interface BtcWatcherDeps {
  db: Kysely<CoreTables>;
  /** Where the invoices' status changes are published. */
  feed: StatusFeed;
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
  /**
   * `full`: every new mempool transaction is read and matched (your own node or Esplora).
   * `address`: only the open invoices' addresses, pushed by the socket or polled (a third-party API).
   */
  mode?: BtcWatchMode;
  /** The Esplora address routes; required in `address` mode. */
  addresses?: AddressSource;
  /** mempool.space WebSocket shared by the source's watchers (`address` mode); null: poll only. */
  socket?: MempoolSocket | null;
  /** Address polls per pass at most (`address` mode), for the addresses the socket does not track. */
  addressPollsPerPass?: number;
  /** With the socket up, blocks are announced: the tip is still read at least this often. */
  socketTipCheckMs?: number;
  /** The metrics' view of the passes, steps and lag behind the tip. */
  observer?: WatchObserver;
}

export type BtcWatchMode = 'full' | 'address';

export interface BtcWatcherStatus {
  ws_connected: boolean;
  subscribed_count: number;
  last_event_at: string | null;
  last_block_height: number | null;
  btc_source: ChainSource['kind'];
  btc_source_error: string | null;
  btc_gap?: BtcGapReport;
  btc_progress: WatcherProgress;
  btc_watch: {
    mode: BtcWatchMode;
    /** Addresses the WebSocket tracks for this watcher now. */
    ws_tracked: number;
    /** Last error of the best-effort step (mempool scan, address polls) while it keeps failing. */
    live_error: string | null;
  };
}

/** How many processed block hashes are kept to find a fork point; deeper reorgs rescan from the oldest. */
const KEEP_BLOCKS = 1_000;
const PROGRESS_EVERY_MS = 5_000;
/** How far before the newest invoice seen each watch-set refresh looks again for late commits. */
const LATE_COMMIT_WINDOW_MS = 120_000;
const WATCH_PAGE = 5_000;
/** Mempool transactions asked for at once, each batch recorded before the next (a failure keeps the earlier ones). */
const MEMPOOL_BATCH = 100;
/** Open invoices followed live at most; older ones still confirm from their block. */
const LIVE_ADDRESSES = 10_000;
/** Subscribed on the socket for the first time at this age or older: no poll (a payment before it is found in its block). */
const FIRST_POLL_MAX_AGE_MS = 2 * 60_000;
/** A fresh invoice's address is polled this long after creation at the earliest, and about as often in its first minute. */
const MIN_POLL_GAP_MS = 10_000;
/** How soon the chain is read again when the socket announced a block the source does not show yet. */
const ANNOUNCED_RETRY_MS = 1_000;
/** Esplora pages an address's confirmed transactions 25 at a time. */
const CHAIN_PAGE = 25;

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
  const mode = deps.mode ?? 'full';
  const addressPollsPerPass = deps.addressPollsPerPass ?? 2;
  const socketTipCheckMs = deps.socketTipCheckMs ?? 60_000;
  if (mode === 'address' && !deps.addresses) throw new Error('address mode needs the Esplora address routes');
  const log = logger.child({ component: 'btc-watcher', source: source.kind, mode });
  const progress = createWatchProgress(clock, deps.observer);
  const stallLimitMs = deps.stallAfterMs ?? stallAfterMs(pollIntervalMs, maxBackoffMs);

  /** Output script (hex) → invoice id. */
  const watched = new Map<string, string>();
  let watchedSince = -1;
  let seenMempool = new Set<string>();
  /** New txids of the last mempool list not fetched yet: a failed or capped pass resumes here without downloading the list again. */
  let pendingMempool: string[] = [];
  let liveError: string | null = null;
  let liveFailures = 0;
  let liveRetryAt = 0;
  /** Address mode: when each address was last polled, and those to poll once whatever their turn. */
  const polledAt = new Map<string, number>();
  const urgentPolls = new Set<string>();
  const firstPolls = new Set<string>();
  let blockAnnounced = true;
  /** Highest block height the socket announced: until the source's tip reaches it, the chain is read again soon. */
  let announcedHeight = -1;
  let lastTipCheckAt = Number.NEGATIVE_INFINITY;
  let subscription: SocketSubscription | null = null;
  let lastEventAt: number | null = null;
  let lastBlockHeight: number | null = null;
  let sourceError: string | null = null;
  let running: Promise<void> = Promise.resolve();
  const gap = createGapMonitor({ db, keyId, clock, logger: log });
  // The gap only moves when invoices are added or payments appear or vanish.
  let gapStale = true;
  /** The live step recorded or dropped an unconfirmed payment: invoice states may move (partial). */
  let liveChanged = false;

  /** 1, 2, 4 … s up to `maxBackoffMs` after the n-th failure in a row. */
  const backoffMs = (failures: number) => exponentialBackoffMs(failures, 1_000, maxBackoffMs);
  const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

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

  /** Reads one block whole and records the payments in it; false when the chain moved under us. */
  async function processBlock(height: number, prevHash: string | undefined): Promise<string | null> {
    const hash = heard(await source.blockHash(height));
    if (hash === null) return null; // the tip moved down under us; the next pass sees the reorg
    const block = heard(await source.block(hash, height));
    if (prevHash !== undefined && block.prevHash !== prevHash) return null; // reorg mid-scan; the next pass rolls back
    const found = matches(block.txs);
    const seenAt = Math.min(clock.now(), block.time * 1000);
    await deps.feed.transaction(db, async (trx, changed) => {
      await recordInBlock(trx, merchantId, found, block, seenAt);
      await recordProcessedBlock(trx, merchantId, block, clock.now(), KEEP_BLOCKS);
      await announcePaymentSeen(trx, changed, merchantId, { invoiceIds: found.map((output) => output.invoiceId) }, clock.now());
    });
    for (const output of found) seenMempool.delete(output.txid);
    if (found.length) gapStale = true;
    if (found.length) log.info('btc payments found in block', { height, hash, outputs: found.length });
    lastBlockHeight = height;
    return hash;
  }

  /**
   * The heights in [from, to] holding a payment to an invoice that could still settle, asked by
   * address (`/address/:a/txs/chain`, 25 per page, newest first): about one request per invoice
   * instead of two per block. Null when reading every block costs fewer requests.
   */
  async function paidHeightsByAddress(from: number, to: number, since: number): Promise<number[] | null> {
    if (mode !== 'address') return null;
    const invoices = await invoicesPayableSince(db, merchantId, since);
    if (invoices.length + 1 >= 2 * (to - from + 1)) return null;
    const heights = new Set<number>();
    for (const invoice of invoices) {
      let lastSeen: string | undefined;
      for (;;) {
        const page = heard(await deps.addresses!.addressTxs(invoice.address, 'chain', lastSeen));
        for (const tx of page) {
          if (tx.blockHeight !== null && tx.blockHeight >= from && tx.blockHeight <= to && matches([tx]).length) heights.add(tx.blockHeight);
        }
        const oldest = page[page.length - 1];
        if (page.length < CHAIN_PAGE || !oldest || (oldest.blockHeight ?? to) < from) break;
        lastSeen = oldest.txid;
      }
    }
    return [...heights].sort((a, b) => a - b);
  }

  async function followBlocks(): Promise<number> {
    let last = await lastProcessedBlock(db, merchantId);
    lastTipCheckAt = clock.now();
    // Still at our last block (the usual answer between blocks): one request, no reorg to look for.
    if (last && heard(await source.tipHash()) === last.hash) {
      blockAnnounced = last.height < announcedHeight;
      deps.observer?.lag(0);
      return last.height;
    }
    const tip = heard(await source.tipHeight());
    deps.observer?.lag(last ? tip - last.height : 0);
    if (last && heard(await source.blockHash(last.height)) !== last.hash) {
      const fork = await findForkPoint(last.height - 1);
      log.warn('btc reorg: rolling back to the fork point and rescanning', { from_height: last.height, fork_height: fork });
      await db.transaction().execute((trx) => disconnectAbove(trx, merchantId, fork));
      gapStale = true;
      // Transactions of the disconnected blocks may be back in the mempool: look at all of it again.
      seenMempool = new Set();
      pendingMempool = [];
      const forkBlock = fork >= 0 ? await processedBlockAt(db, merchantId, fork) : undefined;
      last = forkBlock ? { ...forkBlock, processed_at: clock.now() } : undefined;
    }
    // First start ever: begin at the current tip rather than replaying history.
    let from = last ? last.height + 1 : tip;
    let prevHash = last?.hash;
    if (last && tip - from >= 1) {
      // A long stop on a third-party source: find the blocks that matter by address, then read only those.
      const heights = await paidHeightsByAddress(from, tip - 1, Number(last.processed_at));
      if (heights) {
        log.info('btc catch-up by address', { from_height: from, to_height: tip - 1, blocks_with_payments: heights.length });
        for (const height of heights) {
          await refreshWatchSet();
          if ((await processBlock(height, undefined)) === null) return tip;
        }
        from = tip;
        prevHash = undefined;
      }
    }
    if (tip - from >= 10) log.info('btc catch-up started', { from_height: from, to_height: tip });
    let lastProgress = clock.now();
    for (let height = from; height <= tip; height++) {
      // An invoice paid in this block was committed before the block was mined, hence before this
      // refresh, even when this pass started long before (a catch-up): it is matched.
      if (height > from) await refreshWatchSet();
      const hash = await processBlock(height, prevHash);
      if (hash === null) break;
      prevHash = hash;
      if (clock.now() - lastProgress >= PROGRESS_EVERY_MS) {
        lastProgress = clock.now();
        log.info('btc catch-up progress', { height, tip, remaining: tip - height });
      }
    }
    deps.observer?.lag(tip - (lastBlockHeight ?? tip));
    // The socket can run ahead of the HTTP API behind it: look again shortly until the tip catches up.
    blockAnnounced = tip < announcedHeight;
    return tip;
  }

  async function recordSeen(found: SeenOutput[], what: string): Promise<void> {
    if (!found.length) return;
    await deps.feed.transaction(db, async (trx, changed) => {
      const recorded = await recordInMempool(trx, merchantId, found, clock.now());
      await announcePaymentSeen(trx, changed, merchantId, { invoiceIds: recorded }, clock.now());
    });
    gapStale = true;
    liveChanged = true;
    log.info(`btc payments seen ${what}`, { outputs: found.length });
  }

  /**
   * Full mode: new mempool transactions, read and matched. The txid list (about 6 MB on mainnet) is
   * downloaded only once the new transactions of the previous one were all fetched; they are fetched
   * in batches, each recorded and remembered before the next, so a failure resumes where it stopped.
   */
  async function followMempool(tip: number): Promise<void> {
    let current: Set<string> | null = null;
    let stillTip = false;
    if (!pendingMempool.length) {
      const txids = heard(await source.mempoolTxids());
      current = new Set(txids);
      // A transaction mined between our block scan and this read is also absent: only judge a still tip.
      stillTip = heard(await source.tipHeight()) === tip;
      const next = new Set<string>();
      for (const txid of seenMempool) if (current.has(txid)) next.add(txid);
      seenMempool = next;
      pendingMempool = txids.filter((txid) => !seenMempool.has(txid));
    }
    const batch = pendingMempool.slice(0, mempoolFetchLimit);
    for (let i = 0; i < batch.length; i += MEMPOOL_BATCH) {
      const txids = batch.slice(i, i + MEMPOOL_BATCH);
      await recordSeen(matches(heard(await source.transactions(txids))), 'in mempool');
      for (const txid of txids) seenMempool.add(txid);
      pendingMempool = pendingMempool.slice(txids.length);
    }
    if (current && stillTip) {
      const left = await markLeftMempool(db, merchantId, current);
      if (left) {
        gapStale = true;
        liveChanged = true;
        log.warn('btc payments left the mempool unconfirmed', { transactions: left });
      }
    }
  }

  async function recordUnconfirmed(txs: AddressTx[], removed: string[], what: string): Promise<void> {
    await recordSeen(matches(txs.filter((tx) => tx.blockHeight === null)), what);
    const gone = await markGone(db, merchantId, removed);
    if (gone) {
      gapStale = true;
      liveChanged = true;
      log.warn('btc payments left the mempool unconfirmed', { transactions: gone });
    }
  }

  /**
   * Address mode: the open invoices' addresses go to the socket (newest first); the ones it does
   * not track (all of them while it is down) are polled, the most overdue first. An address with
   * an unconfirmed payment is read whole (`/txs`: mempool and recent confirmed), so a payment that
   * is in neither left the mempool.
   */
  async function followAddresses(): Promise<void> {
    const open = await openInvoiceAddresses(db, merchantId, clock.now(), LIVE_ADDRESSES);
    subscription?.update(open.map((o) => o.address));
    const tracked = subscription?.tracked() ?? new Set<string>();
    // A newly subscribed address is polled once if its invoice is young enough to have been paid
    // just before the server took the subscription; after a drop, every re-subscribed one is.
    for (const o of open) {
      if (firstPolls.delete(o.address) && clock.now() - o.createdAt < FIRST_POLL_MAX_AGE_MS) urgentPolls.add(o.address);
    }
    const candidates = open
      .filter((o) => !tracked.has(o.address) || urgentPolls.has(o.address))
      .map((o) => ({ address: o.address, createdAt: o.createdAt, polledAt: polledAt.get(o.address) ?? null, urgent: urgentPolls.has(o.address) }));
    const chosen = addressesToPoll(candidates, clock.now(), addressPollsPerPass, MIN_POLL_GAP_MS);
    if (!chosen.length) return;
    const unconfirmed = await mempoolPaymentsByInvoice(db, merchantId);
    const invoiceOf = new Map(open.map((o) => [o.address, o.invoiceId]));
    for (const address of chosen) {
      const known = unconfirmed.get(invoiceOf.get(address)!) ?? [];
      const txs = heard(await deps.addresses!.addressTxs(address, known.length ? 'all' : 'mempool'));
      polledAt.set(address, clock.now());
      urgentPolls.delete(address);
      const listed = new Set(txs.map((tx) => tx.txid));
      await recordUnconfirmed(txs, known.length ? known.filter((txid) => !listed.has(txid)) : [], 'by address poll');
    }
    for (const address of polledAt.keys()) if (!invoiceOf.has(address)) polledAt.delete(address);
  }

  /** The best-effort step: never holds back blocks or settlement, and backs off on its own. */
  async function followLive(tip: number | null): Promise<void> {
    if (clock.now() < liveRetryAt) return;
    try {
      if (mode === 'address') await followAddresses();
      else if (tip !== null) await followMempool(tip);
      if (liveError) log.info('btc live step recovered');
      liveError = null;
      liveFailures = 0;
    } catch (error) {
      liveFailures++;
      liveError = messageOf(error);
      const wait = backoffMs(liveFailures);
      liveRetryAt = clock.now() + wait;
      log.warn('btc live step failed; blocks and settlement go on', { error: liveError, attempt: liveFailures, retry_in_ms: wait });
    }
  }

  async function settle(): Promise<void> {
    const last = await lastProcessedBlock(db, merchantId);
    if (last) {
      lastBlockHeight = last.height;
      await settleInvoices(db, deps.feed, merchantId, { height: last.height, storedAt: Number(last.processed_at) }, clock.now(), log, deps.observer);
    }
  }

  /** With the socket up, blocks are announced; the tip is still read now and then in case one was missed. */
  const blocksDue = () => !deps.socket?.connected || blockAnnounced || clock.now() - lastTipCheckAt >= socketTipCheckMs;

  /**
   * One pass: new invoices; blocks (with reorg handling) and settlement, the step that must happen;
   * then the best-effort live step and settlement again. A failed block step is thrown (the loop
   * backs off) only after the live step and settlement had their turn.
   */
  async function passSteps(): Promise<void> {
    progress.step('refreshing the watched addresses');
    await refreshWatchSet();
    let tip: number | null = null;
    let blockError: unknown = null;
    try {
      progress.step('following blocks');
      if (blocksDue()) tip = await followBlocks();
    } catch (error) {
      blockError = error;
    }
    progress.step('settling invoices');
    await settle();
    liveChanged = false;
    progress.step(mode === 'address' ? 'following the open invoices\' addresses' : 'following the mempool');
    await followLive(tip);
    if (liveChanged) {
      progress.step('settling invoices');
      await settle();
    }
    if (blockError) throw blockError;
  }

  async function pass(): Promise<void> {
    try {
      await progress.track(passSteps);
    } finally {
      // Needs only the database: kept current (new invoices widen the gap) even while the source is down.
      if (gapStale) {
        gapStale = false;
        await gap.refresh();
      }
    }
  }

  /** Runs `work` after whatever the watcher is doing, never alongside it. */
  function serially(work: () => Promise<void>): Promise<void> {
    const next = running.then(work);
    running = next.catch(() => {});
    return next;
  }

  const syncOnce = () => serially(pass);

  const subscriber = {
    onTransactions(txs: AddressTx[], removed: string[]) {
      serially(async () => {
        heard(null);
        await recordUnconfirmed(txs, removed, 'by the socket');
        await settle();
      }).catch((error) => log.warn('btc socket payment could not be recorded; the next poll or block finds it', { error: String(error) }));
    },
    onBlock(height: number | null) {
      blockAnnounced = true;
      if (height !== null) announcedHeight = Math.max(announcedHeight, height);
      source.forgetTip?.();
      loop.wake();
    },
    onSubscribed(addresses: string[], resumed: boolean) {
      for (const address of addresses) (resumed ? urgentPolls : firstPolls).add(address);
    },
  };

  const loop = createPollLoop({
    pass: syncOnce,
    progress,
    succeeded() {
      if (sourceError) log.info('btc source recovered');
      sourceError = null;
    },
    failed(error, failures) {
      sourceError = messageOf(error);
      log.warn('btc watcher pass failed; retrying', { error: sourceError, attempt: failures });
    },
    waitMs(failures) {
      if (failures) return backoffMs(failures);
      return blockAnnounced && deps.socket?.connected ? Math.min(pollIntervalMs, ANNOUNCED_RETRY_MS) : pollIntervalMs;
    },
  });

  return {
    syncOnce,
    start() {
      if (loop.running) return;
      if (mode === 'address' && deps.socket) subscription = deps.socket.subscribe(subscriber);
      loop.start();
    },
    async stop() {
      const loopDone = loop.stop();
      subscription?.close();
      subscription = null;
      await loopDone;
      await running;
    },
    status(): BtcWatcherStatus {
      const wsTracked = subscription?.tracked().size ?? 0;
      return {
        ws_connected: subscription !== null && deps.socket!.connected,
        subscribed_count: watched.size,
        last_event_at: lastEventAt === null ? null : new Date(lastEventAt).toISOString(),
        last_block_height: lastBlockHeight,
        btc_source: source.kind,
        btc_source_error: sourceError,
        ...(gap.current() ? { btc_gap: gap.current()! } : {}),
        btc_progress: progress.current(),
        btc_watch: { mode, ws_tracked: wsTracked, live_error: liveError },
      };
    },
    /** Stalled or failing for longer than the limit, at the clock's now; null when progressing. */
    problem: () => watcherProblem('btc', progress.current(), clock.now(), stallLimitMs),
  };
}

export type BtcWatcher = ReturnType<typeof createBtcWatcher>;
