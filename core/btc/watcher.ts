import type { Kysely, Transaction } from 'kysely';
import type { BtcGapReport } from '../../shared/index.ts';
import type { Clock } from '../clock.ts';
import type { CoreTables } from '../schema.ts';
import type { Logger } from '../log.ts';
import type { AddressSource, AddressTx } from './address-source.ts';
import { addressesToPoll } from './address-poll-order.ts';
import {
  disconnectAbove,
  adoptMerchantProgress,
  btcInvoicesCreatedSince,
  KEEP_PROCESSED_BLOCKS,
  byMerchant,
  invoicesPayableSince,
  lastProcessedBlock,
  markGone,
  markLeftMempool,
  mempoolPaymentsByAddress,
  oldestOpenInvoiceCreatedAt,
  openAmong,
  openInvoiceAddresses,
  processedBlockAt,
  recordInBlock,
  recordInMempool,
  recordProcessedBlock,
  type BtcWatchScope,
  type InvoiceRef,
  type OverruledSighting,
} from './btc-payment.repository.ts';
import { ChainSourceInvalidData, type ChainSource, type SourceTx } from './chain-source.ts';
import { btcVerificationOf } from './verification.ts';
import type { HeaderChainStatus, VerifiedHeaders } from './verified-headers.ts';
import { createGapMonitors } from './gap-report.ts';
import type { MempoolSocket, SocketSubscription } from './mempool-socket.ts';
import { settleInvoices } from './settlement.ts';
import { createWatchIndex, inTurnsByMerchant, matchOutputs, type MatchedOutput, type WatchIndex } from './watch-index.ts';
import type { StatusChange, StatusFeed } from '../invoices/status-feed.ts';
import { exponentialBackoffMs } from '../net/backoff.ts';
import { createPollLoop } from '../poll-loop.ts';
import { createWatchProgress, stallAfterMs, watcherProblem, type WatchObserver, type WatcherProblem, type WatcherProgress, type WatchProgress } from '../watch-progress.ts';

export interface BtcWatcherDeps {
  db: Kysely<CoreTables>;
  /** Where the invoices' status changes are published. */
  feed: StatusFeed;
  /**
   * Whose invoices are watched and under which key the watcher's progress is stored: the listener
   * watches its merchant's invoices under its merchant id (where earlier versions kept it), Cloud
   * every merchant's invoices of one network under a fixed key.
   */
  scope: BtcWatchScope;
  /** The wallet key whose gap report /health shows (the listener's); every key's is kept either way. */
  keyId?: string;
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
  /** Third-party sources: the verified header chain behind `source`, for /health. */
  headers?: VerifiedHeaders;
}

export type BtcWatchMode = 'full' | 'address';

export interface BtcWatcherStatus {
  ws_connected: boolean;
  subscribed_count: number;
  last_event_at: string | null;
  last_block_height: number | null;
  btc_source: ChainSource['kind'];
  btc_source_error: string | null;
  /** Third-party sources: the verified header chain and each source's standing. */
  btc_headers?: HeaderChainStatus;
  btc_gap?: BtcGapReport;
  /** Merchants with an invoice the watcher could not read (left out; every other invoice is watched). */
  refused_merchants: number;
  btc_progress: WatcherProgress;
  btc_watch: {
    mode: BtcWatchMode;
    /** Addresses the WebSocket tracks for this watcher now. */
    ws_tracked: number;
    /** Last error of the best-effort step (mempool scan, address polls) while it keeps failing. */
    live_error: string | null;
  };
}

const PROGRESS_EVERY_MS = 5_000;
/**
 * How long after its stamp an invoice may commit (its transaction, and the clocks of the instances
 * that stamp invoices and of the one that watches, all within it): how far back each watch-set
 * refresh looks again.
 */
const LATE_COMMIT_WINDOW_MS = 120_000;
const WATCH_PAGE = 1_000;
/** Mempool transactions asked for at once, each batch recorded before the next (a failure keeps the earlier ones). */
const MEMPOOL_BATCH = 100;
/** Open invoices followed live at most; older ones still confirm from their block. */
const LIVE_ADDRESSES = 10_000;
/** Subscribed on the socket for the first time at this age or older: no poll (a payment before it is found in its block). */
const FIRST_POLL_MAX_AGE_MS = 2 * 60_000;
/** A fresh invoice's address is polled this long after creation at the earliest, and about as often in its first minute. */
const MIN_POLL_GAP_MS = 10_000;
/** How soon the chain is read again when an announced block was not read yet (the source did not show it, or it was announced during a read). */
const ANNOUNCED_RETRY_MS = 1_000;
/** Proven unconfirmed txids remembered at most; past it they are forgotten (and fetched again if listed again). */
const PROVEN_UNCONFIRMED_KEPT = 50_000;
/** Esplora pages an address's confirmed transactions 25 at a time. */
const CHAIN_PAGE = 25;

/** What the watcher remembers between passes; every step reads and moves it explicitly. */
interface WatchState {
  seenMempool: Set<string>;
  /** Address mode: unconfirmed txids whose raw bytes were fetched and hashed already, so a poll listing them again costs no fetch. */
  provenUnconfirmed: Set<string>;
  /** New txids of the last mempool list not fetched yet: a failed or capped pass resumes here without downloading the list again. */
  pendingMempool: string[];
  liveError: string | null;
  liveFailures: number;
  liveRetryAt: number;
  /** Address mode: when each address was last polled, and those to poll once whatever their turn. */
  polledAt: Map<string, number>;
  urgentPolls: Set<string>;
  firstPolls: Set<string>;
  /** Blocks the socket announced so far (each new block, each connection made). */
  announcements: number;
  /**
   * `announcements` when the last tip read that succeeded began. One counted later may be of a
   * block that read missed (it came during the read, or the read failed): the next pass reads again.
   */
  announcementsRead: number;
  /** Highest block height the socket announced: until the source's tip reaches it, the chain is read again soon. */
  announcedHeight: number;
  /** The source's tip was below `announcedHeight` at the last read. */
  sourceBehind: boolean;
  /** When the last tip read that succeeded began. */
  lastTipCheckAt: number;
  lastEventAt: number | null;
  lastBlockHeight: number | null;
  sourceError: string | null;
  /** The live step recorded or dropped an unconfirmed payment: invoice states may move (partial). */
  liveChanged: boolean;
  /** Whether progress left by per-merchant watchers was looked for (once per start). */
  adoptionChecked: boolean;
  /** When the last watch-set refresh that read every page began; null before the first. */
  refreshedAt: number | null;
}

function initialState(): WatchState {
  return {
    seenMempool: new Set(),
    provenUnconfirmed: new Set(),
    pendingMempool: [],
    liveError: null,
    liveFailures: 0,
    liveRetryAt: 0,
    polledAt: new Map(),
    urgentPolls: new Set(),
    firstPolls: new Set(),
    announcements: 0,
    announcementsRead: 0,
    announcedHeight: -1,
    sourceBehind: false,
    lastTipCheckAt: Number.NEGATIVE_INFINITY,
    lastEventAt: null,
    lastBlockHeight: null,
    sourceError: null,
    liveChanged: false,
    adoptionChecked: false,
    refreshedAt: null,
  };
}

type Options = Required<Pick<BtcWatcherDeps, 'pollIntervalMs' | 'maxBackoffMs' | 'mempoolFetchLimit' | 'mode' | 'addressPollsPerPass' | 'socketTipCheckMs'>>;

/** Everything a step needs: the dependencies, the index of watched scripts, the state. */
interface Watch {
  deps: BtcWatcherDeps;
  options: Options;
  state: WatchState;
  index: WatchIndex;
  gaps: ReturnType<typeof createGapMonitors>;
  log: Logger;
  progress: WatchProgress;
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** Notes that the source answered, passing its answer through. */
function heard<T>(w: Watch, value: T): T {
  w.state.lastEventAt = w.deps.clock.now();
  return value;
}

/** The payments' invoices' wallet keys: their gap reports are recomputed after the pass. */
function markGapsStale(w: Watch, outputs: readonly MatchedOutput[]) {
  for (const output of outputs) w.gaps.markStale(output.keyId);
}

/** A reorg or a vanished payment may move any key's gap. */
function markAllGapsStale(w: Watch) {
  for (const keyId of w.index.keyIds()) w.gaps.markStale(keyId);
}

/**
 * Where a refresh starts reading: an invoice is stamped before its transaction commits, so a
 * concurrent one can become visible after a later-stamped one was read, and the window before the
 * newest stamp seen is read again (re-adding is harmless). But one that was not visible when the
 * last refresh began was stamped at most the window before that moment: once the newest invoice is
 * older than that, only invoices from it on are read, so a platform at rest does not read its last
 * two minutes of invoices again at every pass.
 */
export function refreshFrom(newestCreatedAt: number, lastRefreshAt: number | null, windowMs: number): number {
  if (newestCreatedAt < 0) return newestCreatedAt;
  return Math.min(newestCreatedAt, Math.max(newestCreatedAt, lastRefreshAt ?? newestCreatedAt) - windowMs);
}

/**
 * Adds invoices created since the last refresh, and those that committed late (`refreshFrom`).
 * Rows come in pages, so loading 100,000 invoices at start never holds them all at once.
 */
async function refreshWatchSet(w: Watch): Promise<void> {
  const startedAt = w.deps.clock.now();
  const from = refreshFrom(w.index.newestCreatedAt, w.state.refreshedAt, LATE_COMMIT_WINDOW_MS);
  let after: { createdAt: number; invoiceId: string } | null = null;
  for (;;) {
    const rows = await btcInvoicesCreatedSince(w.deps.db, w.deps.scope, from, after, WATCH_PAGE);
    for (const keyId of w.index.add(rows)) w.gaps.markStale(keyId);
    if (rows.length < WATCH_PAGE) {
      w.state.refreshedAt = startedAt;
      return;
    }
    const last = rows[rows.length - 1];
    after = { createdAt: Number(last.created_at), invoiceId: last.invoice_id };
  }
}

/** Announces a payment seen to the listeners of its invoice, if still open; one statement for every merchant's invoices. */
async function announceSeen(trx: Transaction<CoreTables>, changed: (change: StatusChange) => void, refs: InvoiceRef[], at: number) {
  for (const row of await openAmong(trx, refs)) changed({ invoice_id: row.invoice_id, merchant_id: row.merchant_id, status: row.status, at });
}

/** Sightings the verified block proved otherwise: the block's word was recorded; the difference is logged and counted. */
function noteOverruled(w: Watch, overruled: OverruledSighting[], height: number): void {
  for (const o of overruled) {
    w.log.warn('btc block overrules an unconfirmed sighting: the block is credited', {
      height,
      merchant_id: o.merchantId,
      tx_hash: o.txid,
      vout: o.vout,
      claimed_invoice_id: o.claimed.invoiceId,
      claimed_sats: o.claimed.valueSats.toString(),
      proven_invoice_id: o.proven?.invoiceId ?? null,
      proven_sats: o.proven?.valueSats.toString() ?? '0',
    });
    w.deps.observer?.claimOverruled?.('block-differs');
  }
  if (overruled.length) markAllGapsStale(w);
}

/** Walks back from `height` to the last block our record and the source agree on. */
async function findForkPoint(w: Watch, height: number): Promise<number> {
  for (let h = height; h >= 0; h--) {
    const ours = await processedBlockAt(w.deps.db, w.deps.scope.key, h);
    if (!ours) return h; // deeper than our record: rescan from just above the oldest block we kept
    if (heard(w, await w.deps.source.blockHash(h)) === ours.hash) return h;
  }
  return -1;
}

/** Reads one block whole and records the payments in it, each to its invoice's merchant; null when the chain moved under us. */
async function processBlock(w: Watch, height: number, prevHash: string | undefined): Promise<string | null> {
  const { db, source, clock, scope } = w.deps;
  const hash = heard(w, await source.blockHash(height));
  if (hash === null) return null; // the tip moved down under us; the next pass sees the reorg
  const block = heard(w, await source.block(hash, height));
  if (prevHash !== undefined && block.prevHash !== prevHash) return null; // reorg mid-scan; the next pass rolls back
  const found = matchOutputs(w.index, block.txs);
  const seenAt = Math.min(clock.now(), block.time * 1000);
  const overruled = await w.deps.feed.transaction(db, async (trx, changed) => {
    const overruled = await recordInBlock(trx, found, block, seenAt);
    await recordProcessedBlock(trx, scope.key, block, clock.now(), KEEP_PROCESSED_BLOCKS);
    await announceSeen(trx, changed, [...found, ...overruled.map((o) => ({ merchantId: o.merchantId, invoiceId: o.claimed.invoiceId }))], clock.now());
    return overruled;
  });
  noteOverruled(w, overruled, height);
  for (const output of found) {
    w.state.seenMempool.delete(output.txid);
    w.state.provenUnconfirmed.delete(output.txid);
  }
  markGapsStale(w, found);
  if (found.length) w.log.info('btc payments found in block', { height, hash, outputs: found.length, merchants: byMerchant(found).size });
  w.state.lastBlockHeight = height;
  return hash;
}

/**
 * The heights in [from, to] holding a payment to an invoice that could still settle, asked by
 * address (`/address/:a/txs/chain`, 25 per page, newest first): about one request per invoice
 * instead of two per block. Null when reading every block costs fewer requests.
 */
async function paidHeightsByAddress(w: Watch, from: number, to: number, since: number): Promise<number[] | null> {
  if (w.options.mode !== 'address') return null;
  // A merchant the index left out (an invoice it cannot read) is not asked about: its bad address would fail every catch-up.
  const refused = w.index.refusedMerchants();
  const invoices = (await invoicesPayableSince(w.deps.db, w.deps.scope, since)).filter((invoice) => !refused.has(invoice.merchantId));
  if (invoices.length + 1 >= 2 * (to - from + 1)) return null;
  const heights = new Set<number>();
  for (const invoice of invoices) {
    let lastSeen: string | undefined;
    for (;;) {
      const page = heard(w, await w.deps.addresses!.addressTxs(invoice.address, 'chain', lastSeen));
      for (const tx of page) {
        if (tx.blockHeight !== null && tx.blockHeight >= from && tx.blockHeight <= to && matchOutputs(w.index, [tx]).length) heights.add(tx.blockHeight);
      }
      const oldest = page[page.length - 1];
      if (page.length < CHAIN_PAGE || !oldest || (oldest.blockHeight ?? to) < from) break;
      lastSeen = oldest.txid;
    }
  }
  return [...heights].sort((a, b) => a - b);
}

type LastBlock = { height: number; hash: string; processed_at: number } | undefined;

/** Rolls our record back to where it and the source agree; returns the block to continue from. */
async function rollBackToFork(w: Watch, last: NonNullable<LastBlock>): Promise<LastBlock> {
  const { db, scope, clock } = w.deps;
  const fork = await findForkPoint(w, last.height - 1);
  w.log.warn('btc reorg: rolling back to the fork point and rescanning', { from_height: last.height, fork_height: fork });
  await db.transaction().execute((trx) => disconnectAbove(trx, scope, fork));
  markAllGapsStale(w);
  // Transactions of the disconnected blocks may be back in the mempool: look at all of it again.
  w.state.seenMempool = new Set();
  w.state.pendingMempool = [];
  const forkBlock = fork >= 0 ? await processedBlockAt(db, scope.key, fork) : undefined;
  return forkBlock ? { ...forkBlock, processed_at: clock.now() } : undefined;
}

/**
 * A long stop on a third-party source: the blocks from `from` that matter to invoices payable
 * since `since` are found by address and read alone; returns where the block-by-block scan starts.
 */
async function catchUpByAddress(w: Watch, from: number, since: number, tip: number): Promise<{ from: number; prevHash: string | undefined } | null> {
  const heights = await paidHeightsByAddress(w, from, tip - 1, since);
  if (!heights) return null;
  w.log.info('btc catch-up by address', { from_height: from, to_height: tip - 1, blocks_with_payments: heights.length });
  for (const height of heights) {
    await refreshWatchSet(w);
    if ((await processBlock(w, height, undefined)) === null) return { from: tip + 1, prevHash: undefined };
  }
  return { from: tip, prevHash: undefined };
}

/** Reads the blocks from..tip in order, each after a refresh of the watched invoices. */
async function scanBlocks(w: Watch, from: number, tip: number, prevHash: string | undefined): Promise<void> {
  if (tip - from >= 10) w.log.info('btc catch-up started', { from_height: from, to_height: tip });
  let lastProgress = w.deps.clock.now();
  for (let height = from; height <= tip; height++) {
    // An invoice paid in this block was committed before the block was mined, hence before this
    // refresh, even when this pass started long before (a catch-up): it is matched.
    if (height > from) await refreshWatchSet(w);
    const hash = await processBlock(w, height, prevHash);
    if (hash === null) return;
    prevHash = hash;
    if (w.deps.clock.now() - lastProgress >= PROGRESS_EVERY_MS) {
      lastProgress = w.deps.clock.now();
      w.log.info('btc catch-up progress', { height, tip, remaining: tip - height });
    }
  }
}

/**
 * Where a watcher with no block of its own (first start, or stopped below the verified chain)
 * begins: at the first height where its oldest open invoice could have been paid, so nothing paid
 * while the header chain synced (or the service was down) is missed; at the tip when none is open.
 */
async function firstStart(w: Watch, tip: number): Promise<number> {
  const { db, scope, source } = w.deps;
  const oldest = await oldestOpenInvoiceCreatedAt(db, scope);
  const from = oldest === null || !source.firstHeightMinedFrom ? tip : Math.min(tip, source.firstHeightMinedFrom(oldest));
  if (from < tip) w.log.info('btc watching starts where the oldest open invoice could have been paid', { from_height: from, tip, oldest_open_created_at: new Date(oldest!).toISOString() });
  return from;
}

/** Null while the verified header chain's first sync is under way: no block is read before it ends. */
async function followBlocks(w: Watch): Promise<number | null> {
  const { db, source, scope, clock, observer } = w.deps;
  // Its progress shows on /health (btc_headers) and in the log.
  if (source.syncHeaders && !(await source.syncHeaders())) return null;
  if (!w.state.adoptionChecked) {
    const adopted = await adoptMerchantProgress(db, scope, clock.now());
    if (adopted !== null) w.log.info("btc watcher continues from the per-merchant watchers' progress", { from_height: adopted });
    w.state.adoptionChecked = true;
  }
  const read: TipRead = { at: clock.now(), announcements: w.state.announcements };
  let last: LastBlock = await lastProcessedBlock(db, scope.key);
  // Still at our last block (the usual answer between blocks): one request, no reorg to look for.
  if (last && heard(w, await source.tipHash()) === last.hash) {
    noteTipRead(w, read, last.height);
    observer?.lag(0);
    return last.height;
  }
  const tip = heard(w, await source.tipHeight());
  observer?.lag(last ? tip - last.height : 0);
  const lastHash = last ? heard(w, await source.blockHash(last.height)) : null;
  // Below the verified chain (a newer checkpoint than the stop): resumed like a first start, never rolled back.
  if (last && lastHash === null && last.height <= tip) last = undefined;
  else if (last && lastHash !== last.hash) last = await rollBackToFork(w, last);
  let start = { from: last ? last.height + 1 : await firstStart(w, tip), prevHash: last?.hash };
  // A first start reads its few blocks whole: the address routes are asked only after a stop.
  if (last && tip - start.from >= 1) start = (await catchUpByAddress(w, start.from, Number(last.processed_at), tip)) ?? start;
  await scanBlocks(w, start.from, tip, start.prevHash);
  observer?.lag(tip - (w.state.lastBlockHeight ?? tip));
  noteTipRead(w, read, tip);
  return tip;
}

/** A tip read's start: what it can answer for. */
interface TipRead {
  at: number;
  announcements: number;
}

/**
 * A tip read that succeeded answers for the announcements counted before it began, not for one
 * that arrived while it was under way (a reconnection says no height): that one is read next pass.
 */
function noteTipRead(w: Watch, read: TipRead, height: number): void {
  w.state.lastTipCheckAt = read.at;
  w.state.announcementsRead = read.announcements;
  // The socket can run ahead of the HTTP API behind it: look again shortly until the tip catches up.
  w.state.sourceBehind = height < w.state.announcedHeight;
}

/** An announced block no successful tip read has answered for yet. */
function blockPending(state: WatchState): boolean {
  return state.announcements > state.announcementsRead || state.sourceBehind;
}

async function recordSeen(w: Watch, found: MatchedOutput[], what: string): Promise<void> {
  if (!found.length) return;
  const now = w.deps.clock.now();
  await w.deps.feed.transaction(w.deps.db, async (trx, changed) => {
    await announceSeen(trx, changed, await recordInMempool(trx, found, now), now);
  });
  markGapsStale(w, found);
  w.state.liveChanged = true;
  w.log.info(`btc payments seen ${what}`, { outputs: found.length });
}

/** Payments that left the mempool moved the gap and may move invoice states (partial). */
function noteGone(w: Watch, transactions: number): void {
  if (!transactions) return;
  markAllGapsStale(w);
  w.state.liveChanged = true;
  w.log.warn('btc payments left the mempool unconfirmed', { transactions });
}

/**
 * The next mempool round from a fresh txid list: the transactions still there that were seen
 * before stay seen, the others are to be fetched.
 */
export function planMempoolRound(seen: ReadonlySet<string>, txids: readonly string[]): { seen: Set<string>; pending: string[] } {
  const current = new Set(txids);
  const stillSeen = new Set([...seen].filter((txid) => current.has(txid)));
  return { seen: stillSeen, pending: txids.filter((txid) => !stillSeen.has(txid)) };
}

/**
 * Full mode: new mempool transactions, read and matched. The txid list (about 6 MB on mainnet) is
 * downloaded only once the new transactions of the previous one were all fetched; they are fetched
 * in batches, each recorded and remembered before the next, so a failure resumes where it stopped.
 */
async function followMempool(w: Watch, tip: number): Promise<void> {
  const { source } = w.deps;
  const state = w.state;
  let current: Set<string> | null = null;
  let stillTip = false;
  if (!state.pendingMempool.length) {
    const txids = heard(w, await source.mempoolTxids());
    current = new Set(txids);
    // A transaction mined between our block scan and this read is also absent: only judge a still tip.
    stillTip = heard(w, await source.tipHeight()) === tip;
    const round = planMempoolRound(state.seenMempool, txids);
    state.seenMempool = round.seen;
    state.pendingMempool = round.pending;
  }
  const batch = state.pendingMempool.slice(0, w.options.mempoolFetchLimit);
  for (let i = 0; i < batch.length; i += MEMPOOL_BATCH) {
    const txids = batch.slice(i, i + MEMPOOL_BATCH);
    await recordSeen(w, matchOutputs(w.index, txsHashingTo(w, txids, heard(w, await source.transactions(txids)))), 'in mempool');
    for (const txid of txids) state.seenMempool.add(txid);
    state.pendingMempool = state.pendingMempool.slice(txids.length);
  }
  if (current && stillTip) noteGone(w, await markLeftMempool(w.deps.db, w.deps.scope, current));
}

async function recordUnconfirmed(w: Watch, txs: AddressTx[], removed: string[], what: string): Promise<void> {
  await recordSeen(w, matchOutputs(w.index, await provenSightings(w, txs)), what);
  for (const txid of removed) w.state.provenUnconfirmed.delete(txid);
  noteGone(w, await markGone(w.deps.db, w.deps.scope, removed));
}

/**
 * What a source's JSON says of unconfirmed transactions (address routes, the socket) is a hint: each
 * new one is fetched raw and believed only if its bytes hash to its txid, its outputs read from
 * those bytes. A JSON that names other outputs to watched addresses than the bytes hold is logged
 * and counted; only the bytes are recorded.
 */
async function provenSightings(w: Watch, hinted: AddressTx[]): Promise<SourceTx[]> {
  const proven = w.state.provenUnconfirmed;
  const hints = new Map(hinted.filter((tx) => tx.blockHeight === null && !proven.has(tx.txid)).map((tx) => [tx.txid, tx]));
  if (!hints.size) return [];
  const raw = txsHashingTo(w, [...hints.keys()], heard(w, await rawTransactions(w, [...hints.keys()])));
  if (proven.size + raw.length > PROVEN_UNCONFIRMED_KEPT) proven.clear();
  for (const tx of raw) {
    proven.add(tx.txid);
    const claimed = outputsKey(matchOutputs(w.index, [hints.get(tx.txid)!]));
    if (claimed === outputsKey(matchOutputs(w.index, [tx]))) continue;
    w.log.warn("btc source's transaction JSON differs from the transaction's bytes: the bytes are recorded", { tx_hash: tx.txid, claimed });
    w.deps.observer?.claimOverruled?.('json-differs');
  }
  return raw;
}

/** The hinted transactions' bytes; a source serving bytes of another transaction is counted and none is believed this round. */
async function rawTransactions(w: Watch, txids: string[]): Promise<SourceTx[]> {
  try {
    return await w.deps.addresses!.transactions(txids);
  } catch (error) {
    if (!(error instanceof ChainSourceInvalidData)) throw error;
    w.log.warn('btc source served transaction bytes that are not the transaction asked for: dropped', { error: error.message });
    w.deps.observer?.claimOverruled?.('raw-tx-mismatch');
    return [];
  }
}

const outputsKey = (outputs: MatchedOutput[]) => outputs.map((o) => `${o.vout}:${o.merchantId}:${o.invoiceId}:${o.valueSats}`).join(',');

/** The fetched transactions whose bytes hash to a txid asked for; any other is dropped and counted against the source. */
function txsHashingTo(w: Watch, asked: readonly string[], fetched: SourceTx[]): SourceTx[] {
  const wanted = new Set(asked);
  return fetched.filter((tx) => {
    if (wanted.has(tx.txid)) return true;
    w.log.warn('btc source served a transaction whose bytes do not hash to the txid asked for: dropped', { hashes_to: tx.txid });
    w.deps.observer?.claimOverruled?.('raw-tx-mismatch');
    return false;
  });
}

/**
 * Address mode: the open invoices' addresses go to the socket (merchants in turns, each one's newest first); the ones it does
 * not track (all of them while it is down) are polled, the most overdue first. An address with
 * an unconfirmed payment is read whole (`/txs`: mempool and recent confirmed), so a payment that
 * is in neither left the mempool.
 */
async function followAddresses(w: Watch, subscription: SocketSubscription | null): Promise<void> {
  const { db, scope, clock } = w.deps;
  const state = w.state;
  const open = await openInvoiceAddresses(db, scope, clock.now(), LIVE_ADDRESSES);
  subscription?.update(inTurnsByMerchant(open).map((o) => o.address));
  const tracked = subscription?.tracked() ?? new Set<string>();
  // A newly subscribed address is polled once if its invoice is young enough to have been paid
  // just before the server took the subscription; after a drop, every re-subscribed one is.
  for (const o of open) {
    if (state.firstPolls.delete(o.address) && clock.now() - o.createdAt < FIRST_POLL_MAX_AGE_MS) state.urgentPolls.add(o.address);
  }
  const candidates = open
    .filter((o) => !tracked.has(o.address) || state.urgentPolls.has(o.address))
    .map((o) => ({ address: o.address, createdAt: o.createdAt, polledAt: state.polledAt.get(o.address) ?? null, urgent: state.urgentPolls.has(o.address) }));
  const chosen = addressesToPoll(candidates, clock.now(), w.options.addressPollsPerPass, MIN_POLL_GAP_MS);
  if (!chosen.length) return;
  const unconfirmed = await mempoolPaymentsByAddress(db, scope);
  for (const address of chosen) {
    const known = unconfirmed.get(address) ?? [];
    const txs = heard(w, await w.deps.addresses!.addressTxs(address, known.length ? 'all' : 'mempool'));
    state.polledAt.set(address, clock.now());
    state.urgentPolls.delete(address);
    const listed = new Set(txs.map((tx) => tx.txid));
    await recordUnconfirmed(w, txs, known.filter((txid) => !listed.has(txid)), 'by address poll');
  }
  const openAddresses = new Set(open.map((o) => o.address));
  for (const address of state.polledAt.keys()) if (!openAddresses.has(address)) state.polledAt.delete(address);
}

/** The best-effort step: never holds back blocks or settlement, and backs off on its own. */
async function followLive(w: Watch, tip: number | null, subscription: SocketSubscription | null): Promise<void> {
  const state = w.state;
  if (w.deps.clock.now() < state.liveRetryAt) return;
  try {
    if (w.options.mode === 'address') await followAddresses(w, subscription);
    else if (tip !== null) await followMempool(w, tip);
    if (state.liveError) w.log.info('btc live step recovered');
    state.liveError = null;
    state.liveFailures = 0;
  } catch (error) {
    state.liveFailures++;
    state.liveError = messageOf(error);
    const wait = exponentialBackoffMs(state.liveFailures, 1_000, w.options.maxBackoffMs);
    state.liveRetryAt = w.deps.clock.now() + wait;
    w.log.warn('btc live step failed; blocks and settlement go on', { error: state.liveError, attempt: state.liveFailures, retry_in_ms: wait });
  }
}

async function settle(w: Watch): Promise<void> {
  const { db, feed, scope, clock, observer } = w.deps;
  const last = await lastProcessedBlock(db, scope.key);
  if (!last) return;
  w.state.lastBlockHeight = last.height;
  await settleInvoices(db, feed, scope, { height: last.height, storedAt: Number(last.processed_at), verification: btcVerificationOf(w.deps.source) }, clock.now(), w.log, observer);
}

/** With the socket up, blocks are announced; the tip is still read now and then in case one was missed. */
function blocksDue(w: Watch): boolean {
  const { state } = w;
  return !w.deps.socket?.connected || blockPending(state) || w.deps.clock.now() - state.lastTipCheckAt >= w.options.socketTipCheckMs;
}

/**
 * One pass: new invoices; blocks (with reorg handling) and settlement, the step that must happen;
 * then the best-effort live step and settlement again. A failed block step is thrown (the loop
 * backs off) only after the live step and settlement had their turn.
 */
async function passSteps(w: Watch, subscription: SocketSubscription | null): Promise<void> {
  const { progress } = w;
  progress.step('refreshing the watched addresses');
  await refreshWatchSet(w);
  let tip: number | null = null;
  let blockError: unknown = null;
  try {
    progress.step('following blocks');
    if (blocksDue(w)) tip = await followBlocks(w);
  } catch (error) {
    blockError = error;
  }
  progress.step('settling invoices');
  await settle(w);
  w.state.liveChanged = false;
  progress.step(w.options.mode === 'address' ? "following the open invoices' addresses" : 'following the mempool');
  await followLive(w, tip, subscription);
  if (w.state.liveChanged) {
    progress.step('settling invoices');
    await settle(w);
  }
  if (blockError) throw blockError;
}

function optionsOf(deps: BtcWatcherDeps): Options {
  const options: Options = {
    pollIntervalMs: deps.pollIntervalMs ?? 10_000,
    maxBackoffMs: deps.maxBackoffMs ?? 60_000,
    mempoolFetchLimit: deps.mempoolFetchLimit ?? 2_000,
    mode: deps.mode ?? 'full',
    addressPollsPerPass: deps.addressPollsPerPass ?? 2,
    socketTipCheckMs: deps.socketTipCheckMs ?? 60_000,
  };
  if (options.mode === 'address' && !deps.addresses) throw new Error('address mode needs the Esplora address routes');
  return options;
}

/**
 * What the socket pushes (address mode): payments are recorded and settled between passes, never
 * alongside one (`serially`); an announced block wakes the loop to read the chain.
 */
function socketSubscriber(w: Watch, serially: (work: () => Promise<void>) => Promise<void>, wake: () => void) {
  return {
    onTransactions(txs: AddressTx[], removed: string[]) {
      serially(async () => {
        heard(w, null);
        await recordUnconfirmed(w, txs, removed, 'by the socket');
        await settle(w);
      }).catch((error) => w.log.warn('btc socket payment could not be recorded; the next poll or block finds it', { error: String(error) }));
    },
    onBlock(height: number | null) {
      w.state.announcements++;
      if (height !== null) w.state.announcedHeight = Math.max(w.state.announcedHeight, height);
      w.deps.source.forgetTip?.();
      wake();
    },
    onSubscribed(addresses: string[], resumed: boolean) {
      for (const address of addresses) (resumed ? w.state.urgentPolls : w.state.firstPolls).add(address);
    },
  };
}

function watcherStatus(w: Watch, subscription: SocketSubscription | null): BtcWatcherStatus {
  const { deps, state } = w;
  const gap = deps.keyId ? w.gaps.current(deps.keyId) : null;
  return {
    ws_connected: subscription !== null && deps.socket!.connected,
    subscribed_count: w.index.size,
    last_event_at: state.lastEventAt === null ? null : new Date(state.lastEventAt).toISOString(),
    last_block_height: state.lastBlockHeight,
    btc_source: deps.source.kind,
    btc_source_error: state.sourceError,
    ...(deps.headers ? { btc_headers: deps.headers.status() } : {}),
    ...(gap ? { btc_gap: gap } : {}),
    refused_merchants: w.index.refusedMerchants().size,
    btc_progress: w.progress.current(),
    btc_watch: { mode: w.options.mode, ws_tracked: subscription?.tracked().size ?? 0, live_error: state.liveError },
  };
}

/**
 * Follows the chain for the scope's Bitcoin invoices: one merchant's (the listener) or every
 * merchant's of one network (Cloud). Every block and new mempool transaction is parsed once and its
 * outputs are looked up in one index of watched scripts, each pointing at its invoice and merchant,
 * so the cost per block is the same for 10 or 100,000 open invoices and for one merchant or ten
 * thousand, and the source never learns which addresses are ours.
 */
export function createBtcWatcher(deps: BtcWatcherDeps) {
  const options = optionsOf(deps);
  const log = deps.logger.child({ component: 'btc-watcher', source: deps.source.kind, mode: options.mode });
  const progress = createWatchProgress(deps.clock, deps.observer);
  const w: Watch = {
    deps,
    options,
    state: initialState(),
    index: createWatchIndex({ rereadWindowMs: LATE_COMMIT_WINDOW_MS }),
    gaps: createGapMonitors({ db: deps.db, clock: deps.clock, logger: log }),
    log,
    progress,
  };
  const stallLimitMs = deps.stallAfterMs ?? stallAfterMs(options.pollIntervalMs, options.maxBackoffMs);
  let subscription: SocketSubscription | null = null;
  let running: Promise<void> = Promise.resolve();

  async function pass(): Promise<void> {
    try {
      await progress.track(() => passSteps(w, subscription));
    } finally {
      // Needs only the database: kept current (new invoices widen the gap) even while the source is down.
      await w.gaps.refresh();
    }
  }

  /** Runs `work` after whatever the watcher is doing, never alongside it. */
  function serially(work: () => Promise<void>): Promise<void> {
    const next = running.then(work);
    running = next.catch(() => {});
    return next;
  }

  const syncOnce = () => serially(pass);

  const loop = createPollLoop({
    pass: syncOnce,
    progress,
    succeeded() {
      if (w.state.sourceError) log.info('btc source recovered');
      w.state.sourceError = null;
    },
    failed(error, failures) {
      w.state.sourceError = messageOf(error);
      log.warn('btc watcher pass failed; retrying', { error: w.state.sourceError, attempt: failures });
    },
    waitMs(failures) {
      if (failures) return exponentialBackoffMs(failures, 1_000, options.maxBackoffMs);
      return blockPending(w.state) && deps.socket?.connected ? Math.min(options.pollIntervalMs, ANNOUNCED_RETRY_MS) : options.pollIntervalMs;
    },
  });

  return {
    syncOnce,
    start() {
      if (loop.running) return;
      if (options.mode === 'address' && deps.socket) subscription = deps.socket.subscribe(socketSubscriber(w, serially, () => loop.wake()));
      loop.start();
    },
    async stop() {
      const loopDone = loop.stop();
      subscription?.close();
      subscription = null;
      await loopDone;
      await running;
    },
    status: (): BtcWatcherStatus => watcherStatus(w, subscription),
    /** A wallet key's gap report, as last computed (null before the first). */
    gapOf: (keyId: string) => w.gaps.current(keyId),
    /** Merchants with an invoice the watcher could not read, and why: theirs only are left out. */
    refusedMerchants: () => w.index.refusedMerchants(),
    /** Stalled or failing for longer than the limit, at the clock's now; null when progressing. */
    problem: () => invalidSourceProblem(deps.headers) ?? watcherProblem('btc', progress.current(), deps.clock.now(), stallLimitMs),
  };
}

export type BtcWatcher = ReturnType<typeof createBtcWatcher>;

/** A source set aside (invalid data, a tip it cannot prove) or the header sync under way: named at once, not after a stall limit. */
function invalidSourceProblem(headers: VerifiedHeaders | undefined): WatcherProblem | null {
  return headers?.watcherProblem() ?? null;
}
