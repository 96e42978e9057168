import type { Kysely } from 'kysely';
import type { Clock } from '../clock.ts';
import type { CoreTables } from '../schema.ts';
import type { Logger } from '../log.ts';
import type { EvmChainName } from '../../shared/index.ts';
import { evmSettingNamesOf, type EvmConfig } from './evm-config.ts';
import { evmPrefixOf } from './evm-chain-spec.ts';
import {
  adoptMerchantCheckpoints,
  checkpoints,
  insertCheckpoint,
  lastCheckpoint,
  openXpubAddresses,
  recordRange,
  rollBackAbove,
  type EvmWatchScope,
  type MerchantTransfer,
} from './evm-transfer.repository.ts';
import { blockHeader, blockHeaders, finalizedNumber, headNumber, transferLogs, type BlockHeader, type TransferFilter, type TransferLog } from './chain.ts';
import { createSourceDisagreements, type SourceDisagreement, type SourceDisagreements } from './source-disagreements.ts';
import { RpcUnavailableError, type RpcSource } from './rpc.ts';
import { announcePaymentSeen, type StatusFeed } from '../invoices/status-feed.ts';
import { refreshPartialStatus } from './partial.ts';
import { settleTransfers, transferKey } from './settlement.ts';
import { parseChecksummedAddress } from './keys.ts';
import { assetOf } from './tokens.ts';
import { createPollLoop } from '../poll-loop.ts';
import type { HeadSubscription } from './new-heads.ts';
import { createHeadAnnouncements } from './head-announcements.ts';
import { nextPassInMs } from './poll-pace.ts';
import { createWatchProgress, stallAfterMs, watcherProblem, type WatchObserver, type WatcherProgress, type WatchProgress } from '../watch-progress.ts';

export interface EvmWatcherDeps {
  /** The metrics' view of the passes, steps and lag behind the head. */
  observer?: WatchObserver;
  db: Kysely<CoreTables>;
  /** Where the invoices' status changes are published. */
  feed: StatusFeed;
  clock: Clock;
  logger: Logger;
  /**
   * Whose invoices are watched and under which key the watcher's progress is stored: the listener
   * watches its merchant's under its merchant id (where earlier versions kept it), Cloud every
   * merchant's under a fixed key per chain.
   */
  scope: EvmWatchScope;
  /** The chain's settings; its `fixedAddress` is the scope merchant's (the listener's). Finality defaults to the count. */
  base: Pick<EvmConfig, 'tokens' | 'confirmations' | 'fixedAddress' | 'minSources'> & Partial<Pick<EvmConfig, 'finality'>>;
  /**
   * Every merchant's fixed receive address (Cloud: read from its merchants, cached by the caller).
   * Default: `base.fixedAddress` for the scope's merchant.
   */
  fixedAddresses?: () => Promise<FixedAddress[]>;
  /** One per BASE_RPC_URL entry, in order: the first reachable one scans; every one is asked before a transfer counts. */
  sources: RpcSource[];
  /** The pace once a block is due, after a failure, and while a transfer awaits its second source. */
  pollIntervalMs?: number;
  /** The chain's block time: no pass before the next block is due (poll-pace.ts). Default: every `pollIntervalMs`. */
  blockTimeMs?: number;
  /** New heads pushed by a node's WebSocket: each one starts a pass at once, and polling slows to `headsCheckMs`. */
  heads?: HeadSubscription | null;
  /** With the head subscription live, the head is still read at least this often. */
  headsCheckMs?: number;
  /** Recipients per eth_getLogs call. */
  recipientsPerCall?: number;
  /** Blocks per eth_getLogs call, and per tick while catching up. */
  maxBlockRange?: number;
  /** On the very first start, scan this many blocks back (about an hour of Base blocks). */
  initialLookback?: number;
  /** Blocks of processed range ends kept for finding a reorg's common ancestor. */
  keepBlocks?: number;
  /** No progress for this long is a problem on /health (default: stallAfterMs of the poll interval). */
  stallAfterMs?: number;
}

export interface FixedAddress {
  merchantId: string;
  address: string;
}

export interface EvmWatcherStatus {
  sources: number;
  sources_up: number;
  fixed_address_confirming: boolean;
  last_block_height: number | null;
  last_block_hash: string | null;
  head_block_height: number | null;
  watched_addresses: number;
  /** Transfers that would pay or be reported, waiting for more sources to report them. */
  awaiting_second_source: number;
  /** Sources that must report a transfer (`<PREFIX>_MIN_SOURCES`); 1: the operator trusts its one source. */
  min_sources: number;
  /** Sources that reported what the others do not, most recent first, for an hour after the last time. */
  disagreeing_sources: SourceDisagreement[];
  /** The rule a pass settled by: the count alone, or the count and the node's `finalized` block. */
  finality: 'tag' | 'count' | typeof FINALITY_FALLBACK;
  /** The node's finalized block at the last pass, when the rule reads it. */
  finalized_block_height: number | null;
  /** Merchants whose fixed address is not a valid one: left out, every other merchant is watched. */
  refused_merchants: number;
  last_tick_at: string | null;
  last_error: string | null;
  /** A newHeads subscription is live (passes follow its blocks); false: polling alone. */
  heads_live: boolean;
  progress: WatcherProgress;
}

const FINALITY_FALLBACK = 'count (source does not answer finalized)';

export interface TickResult {
  head: number;
  from: number;
  to: number;
  transfers: number;
  /** Blocks rolled back for a reorg (down to the newest stored range end that survived). */
  reorgDepth: number;
}

/** Reorg detected mid-scan (a block hash changed under us): the tick is abandoned and retried. */
class ChainMovedError extends Error {}

type Options = Required<Pick<EvmWatcherDeps, 'pollIntervalMs' | 'blockTimeMs' | 'headsCheckMs' | 'recipientsPerCall' | 'maxBlockRange' | 'initialLookback' | 'keepBlocks'>>;

/** Everything a step needs: the dependencies, the derived settings, the status it updates. */
interface Watch {
  deps: EvmWatcherDeps;
  options: Options;
  status: Omit<EvmWatcherStatus, 'progress' | 'heads_live'>;
  progress: WatchProgress;
  tokens: string[];
  assetByToken: ReadonlyMap<string, string>;
  /** Whether progress left by per-merchant watchers was looked for (once per start). */
  adoptionChecked: boolean;
  /** Whether the fall-back to the count was logged (once, not every pass). */
  finalityFallbackLogged: boolean;
  /** The source whose scan recorded each transfer (by settlement's transfer key), while it waits to settle. */
  recordedBy: Map<string, string>;
  disagreements: SourceDisagreements;
}

/** The first source that answers, with its head; the others that answer, with theirs, cross-check its scan. */
async function pickScanner(w: Watch): Promise<{ scanner: RpcSource; head: number; others: Array<{ source: RpcSource; head: number }> }> {
  const up: Array<{ source: RpcSource; head: number }> = [];
  for (const source of w.deps.sources) {
    try {
      up.push({ source, head: await headNumber(source) });
    } catch (error) {
      w.deps.logger.warn('base: RPC source unavailable', { source: source.label, error: (error as Error).message });
    }
  }
  w.status.sources_up = up.length;
  const [picked, ...others] = up;
  if (!picked) throw new RpcUnavailableError('no Base RPC source answers');
  return { scanner: picked.source, head: picked.head, others };
}

/**
 * The scanner's finalized block when the chain settles by the tag; null means the count alone. A
 * source that does not answer the tag does not fail the pass: the count stands, and the status says so.
 */
async function finalizedOf(w: Watch, scanner: RpcSource): Promise<number | null> {
  if ((w.deps.base.finality ?? 'count') === 'count') return null;
  const finalized = await finalizedNumber(scanner).catch((error: Error) => {
    if (error instanceof RpcUnavailableError) throw error;
    return null;
  });
  w.status.finality = finalized === null ? FINALITY_FALLBACK : 'tag';
  w.status.finalized_block_height = finalized;
  if (finalized === null && !w.finalityFallbackLogged) {
    w.deps.logger.warn('base: the RPC source does not answer the finalized block; settling by the confirmation count alone', { source: scanner.label });
  }
  w.finalityFallbackLogged = finalized === null;
  return finalized;
}

async function headerOrThrow(source: RpcSource, number: number): Promise<BlockHeader> {
  const header = await blockHeader(source, number);
  if (!header) throw new ChainMovedError(`block ${number} is not available`);
  return header;
}

/**
 * Walks the stored range ends down until one still has the same hash on the node; everything
 * above it is forgotten and rescanned. Transfers that already settled an invoice were deeper
 * than the required confirmations; a reorg that deep cannot be undone here and is logged.
 */
async function rollBack(w: Watch, scanner: RpcSource): Promise<number> {
  const { db, scope, logger } = w.deps;
  const stored = await checkpoints(db, scope);
  let ancestor: BlockHeader | null = null;
  for (const block of stored) {
    const header = await blockHeader(scanner, block.block_number);
    if (header?.hash === block.block_hash) {
      ancestor = header;
      break;
    }
  }
  // No stored block survived: restart well below the oldest one; rescanning is idempotent.
  ancestor ??= await headerOrThrow(scanner, Math.max(0, (stored.at(-1)?.block_number ?? 0) - w.options.keepBlocks));
  const depth = (stored[0]?.block_number ?? ancestor.number) - ancestor.number;
  const settled = await db.transaction().execute((trx) => rollBackAbove(trx, scope, ancestor));
  for (const t of settled) logger.error('base: reorg deeper than BASE_CONFIRMATIONS removed a settled transfer; check this invoice by hand', t);
  logger.warn('base: reorg, rolled back', { ancestor: ancestor.number, depth });
  return depth;
}

/**
 * Merchants by address, for blocks from `sinceTime` on: every merchant's fixed address, and the
 * address of every xpub invoice that was still open at that time. Read after the head, so an
 * invoice created after this read can only be paid in a block above that head.
 */
async function watchedAddresses(w: Watch, fixed: FixedAddress[], sinceTime: number): Promise<Map<string, string[]>> {
  const byAddress = new Map<string, string[]>();
  for (const { merchantId, address } of [...fixed, ...(await openXpubAddresses(w.deps.db, w.deps.scope, sinceTime))]) {
    const merchants = byAddress.get(address);
    if (!merchants) byAddress.set(address, [merchantId]);
    else if (!merchants.includes(merchantId)) merchants.push(merchantId);
  }
  return byAddress;
}

/**
 * Headers of every block that holds a log, plus `to`, fetched after the logs: each log's block
 * hash must still be the node's, or the chain moved during the scan.
 */
async function blockTimes(source: RpcSource, logs: TransferLog[], to: number): Promise<Map<number, BlockHeader>> {
  const headers = new Map<number, BlockHeader>();
  for (const [number, header] of await blockHeaders(source, [...new Set([...logs.map((l) => l.blockNumber), to])])) {
    if (!header) throw new ChainMovedError(`block ${number} is not available`);
    headers.set(number, header);
  }
  for (const log of logs) {
    if (headers.get(log.blockNumber)!.hash !== log.blockHash) throw new ChainMovedError(`block ${log.blockNumber} changed during the scan`);
  }
  return headers;
}

/** Each log once per merchant that watches its recipient: a fixed address several merchants registered is each one's. */
export function transfersByMerchant(logs: TransferLog[], merchantsOf: ReadonlyMap<string, string[]>, times: ReadonlyMap<number, BlockHeader>): MerchantTransfer[] {
  return logs.flatMap((log) => (merchantsOf.get(log.to) ?? []).map((merchantId) => ({ merchantId, log, blockTime: times.get(log.blockNumber)!.time })));
}

/** Where the scan continues: the last range end (rolled back past a reorg), or, on the very first start, a block `initialLookback` below the head. */
async function startingPoint(w: Watch, scanner: RpcSource, head: number): Promise<{ last: { block_number: number; block_hash: string; block_time: number }; reorgDepth: number }> {
  const { db, scope } = w.deps;
  if (!w.adoptionChecked) {
    const adopted = await adoptMerchantCheckpoints(db, scope);
    if (adopted !== null) w.deps.logger.info("base: watcher continues from the per-merchant watchers' progress", { from_block: adopted });
    w.adoptionChecked = true;
  }
  let last = await lastCheckpoint(db, scope);
  if (!last) {
    const start = await headerOrThrow(scanner, Math.max(0, head - w.options.initialLookback));
    await insertCheckpoint(db, scope, start);
    last = (await lastCheckpoint(db, scope))!;
  }
  if (head >= last.block_number && (await headerOrThrow(scanner, last.block_number)).hash === last.block_hash) return { last, reorgDepth: 0 };
  const reorgDepth = await rollBack(w, scanner);
  return { last: (await lastCheckpoint(db, scope))!, reorgDepth };
}

/** Scans one block range above `last` and records its transfers, each to its merchant, with the range end. */
async function scanRange(
  w: Watch,
  scanner: RpcSource,
  head: number,
  last: { block_number: number; block_time: number },
  fixed: FixedAddress[],
  others: Array<{ source: RpcSource; head: number }>,
) {
  const { db, feed, clock, scope } = w.deps;
  const from = last.block_number + 1;
  const to = Math.min(head, last.block_number + w.options.maxBlockRange);
  const merchantsOf = await watchedAddresses(w, fixed, last.block_time);
  w.status.watched_addresses = merchantsOf.size;
  const before = await headerOrThrow(scanner, to);
  const { recipientsPerCall, maxBlockRange } = w.options;
  const filter = { tokens: w.tokens, recipients: [...merchantsOf.keys()], fromBlock: from, toBlock: to, recipientsPerCall, maxBlockRange };
  const logs = await transferLogs(scanner, filter);
  const times = await blockTimes(scanner, logs, to);
  if (times.get(to)?.hash !== before.hash) throw new ChainMovedError(`block ${to} changed during the scan`);
  await crossCheck(w, scanner, logs, times, filter, others);
  const transfers = transfersByMerchant(logs, merchantsOf, times);
  const now = clock.now();
  await feed.transaction(db, async (trx, changed) => {
    await recordRange(trx, scope, transfers, before, now, w.options.keepBlocks);
    for (const [merchantId, group] of groupByMerchant(transfers)) {
      await announcePaymentSeen(trx, changed, merchantId, { addresses: group.map((t) => t.log.to) }, now);
    }
  });
  for (const { merchantId, log } of transfers) w.recordedBy.set(transferKey({ merchant_id: merchantId, tx_hash: log.txHash, log_index: log.logIndex }), scanner.label);
  for (const key of [...w.recordedBy.keys()].slice(0, Math.max(0, w.recordedBy.size - RECORDED_BY_KEPT))) w.recordedBy.delete(key);
  w.status.last_block_height = to;
  w.status.last_block_hash = before.hash;
  return { from, to, transfers: logs.length };
}

/** Transfers remembered with the source that recorded them; beyond this the oldest are forgotten (they then just name no recorder). */
const RECORDED_BY_KEPT = 10_000;

const logKey = (log: TransferLog) => [log.txHash, log.logIndex, log.blockHash, log.token, log.to, log.value].join(' ');

/**
 * The other sources' logs for the same range (up to their own heads), one request each: a log one
 * of them reports in a block the scanner has with the same hash, but the scanner does not report,
 * was made up, and that source is named. Nothing it reports is recorded. A log in a block the
 * scanner has another hash for is a race at the tip, not a lie; transfers are judged at depth at
 * settlement. A source that fails here is simply not heard.
 */
async function crossCheck(w: Watch, scanner: RpcSource, logs: TransferLog[], times: Map<number, BlockHeader>, filter: TransferFilter, others: Array<{ source: RpcSource; head: number }>) {
  const known = new Set(logs.map(logKey));
  const heard = await Promise.all(
    others
      .filter(({ head }) => head >= filter.fromBlock)
      .map(async ({ source, head }) => ({
        source,
        extra: await transferLogs(source, { ...filter, toBlock: Math.min(head, filter.toBlock) })
          .then((theirs) => theirs.filter((log) => !known.has(logKey(log))))
          .catch(() => []),
      })),
  );
  for (const { source, extra } of heard) {
    if (!extra.length) continue;
    const missing = [...new Set(extra.map((log) => log.blockNumber))].filter((n) => !times.has(n));
    const headers = missing.length ? await blockHeaders(scanner, missing) : new Map<number, BlockHeader | null>();
    for (const log of extra) {
      if ((times.get(log.blockNumber) ?? headers.get(log.blockNumber))?.hash !== log.blockHash) continue;
      w.disagreements.record({ source: source.label, reason: `reports transfer ${log.txHash} log ${log.logIndex} in block ${log.blockNumber} that ${scanner.label} does not` });
    }
  }
}

function groupByMerchant(transfers: MerchantTransfer[]): Map<string, MerchantTransfer[]> {
  const groups = new Map<string, MerchantTransfer[]>();
  for (const transfer of transfers) groups.set(transfer.merchantId, [...(groups.get(transfer.merchantId) ?? []), transfer]);
  return groups;
}

async function pass(w: Watch): Promise<TickResult | null> {
  const { deps, status, progress } = w;
  progress.step('asking the RPC sources for the head');
  const { scanner, head, others } = await pickScanner(w);
  const headSeenAt = deps.clock.now();
  progress.step('reading blocks and Transfer logs');
  status.head_block_height = head;
  const fixed = await fixedAddressesOf(w);
  const { last, reorgDepth } = await startingPoint(w, scanner, head);
  let result: TickResult | null = null;
  if (head > last.block_number) {
    result = { head, reorgDepth, ...(await scanRange(w, scanner, head, last, fixed, others)) };
  } else {
    status.last_block_height = last.block_number;
    status.last_block_hash = last.block_hash;
  }
  progress.step('settling transfers');
  const finalized = await finalizedOf(w, scanner);
  const fixedPairs = new Set(fixed.map((f) => `${f.merchantId}\n${f.address}`));
  status.awaiting_second_source = await settleTransfers(
    {
      db: deps.db,
      feed: deps.feed,
      clock: deps.clock,
      logger: deps.logger,
      scope: deps.scope,
      isFixed: (merchantId, address) => fixedPairs.has(`${merchantId}\n${address}`),
      confirmations: deps.base.confirmations,
      minSources: deps.base.minSources,
      sources: deps.sources,
      scanner,
      recordedBy: w.recordedBy,
      disagreed: (disagreement) => w.disagreements.record(disagreement),
      finalized,
      assetByToken: w.assetByToken,
      headSeenAt,
      observer: deps.observer,
    },
    head,
  );
  status.disagreeing_sources = w.disagreements.current();
  await refreshPartialStatus(deps.db, deps.feed, deps.scope, deps.clock.now());
  status.last_tick_at = new Date(deps.clock.now()).toISOString();
  status.last_error = null;
  return result;
}

/**
 * The merchants' fixed addresses that are checksummed EVM addresses: one that is not (a corrupt row)
 * is left out for its merchant alone, rather than failing the one eth_getLogs every merchant shares.
 */
async function fixedAddressesOf(w: Watch): Promise<FixedAddress[]> {
  const all = await w.deps.fixedAddresses!();
  const fixed = all.filter((f) => isChecksummed(f.address));
  w.status.refused_merchants = new Set(all.filter((f) => !fixed.includes(f)).map((f) => f.merchantId)).size;
  w.status.fixed_address_confirming = fixed.length === 0 || w.deps.sources.length >= 2;
  return fixed;
}

function isChecksummed(address: string): boolean {
  try {
    return parseChecksummedAddress(address) === address;
  } catch {
    return false;
  }
}

/**
 * Follows Transfer logs of the configured tokens to the scope's addresses: every merchant's fixed
 * address and open xpub invoices' addresses, in one eth_getLogs scan per range whatever the
 * number of merchants, each log recorded for the merchant whose address it pays.
 */
export function createEvmWatcher(deps: EvmWatcherDeps) {
  const { logger } = deps;
  const w = watchOf(deps);
  // A watcher that reads the chain only when a block is due is not stalled between blocks.
  const stallLimitMs = deps.stallAfterMs ?? stallAfterMs(Math.max(w.options.pollIntervalMs, w.options.blockTimeMs));
  const heads = deps.heads ?? null;
  const announcements = createHeadAnnouncements(heads, logger);

  /** One pass; its progress (success, failure, the step under way) is what /health reports. */
  const tick = async () => {
    const startedByTimer = announcements.passStarted();
    // The head is read at the start of the pass: dating it from there, not the pass's end, keeps the next poll early.
    const startedAt = deps.clock.now();
    const result = await w.progress.track(() => pass(w));
    announcements.passEnded(w.status.head_block_height, startedAt, startedByTimer);
    if (w.status.head_block_height !== null && w.status.last_block_height !== null) deps.observer?.lag(w.status.head_block_height - w.status.last_block_height);
    return result;
  };

  const loop = createPollLoop({
    pass: tick,
    progress: w.progress,
    failed(error) {
      w.status.last_error = (error as Error).message;
      logger.warn('base: watcher tick failed; retrying', { error: (error as Error).message });
    },
    // Still behind the head after a full block range: the next range at once.
    waitMs: (failures, result) =>
      (result && result.to < result.head) || announcements.announcedDuringPass()
        ? null
        : nextPassInMs({
            now: deps.clock.now(),
            headSeenAt: announcements.headSeenAt(),
            blockTimeMs: w.options.blockTimeMs,
            pollIntervalMs: w.options.pollIntervalMs,
            headsCheckMs: w.options.headsCheckMs,
            headsLive: heads?.live ?? false,
            retryPending: failures > 0 || w.status.awaiting_second_source > 0 || announcements.behindAnnounced(w.status.head_block_height),
          }),
  });

  return {
    tick,
    status: (): EvmWatcherStatus => ({ ...w.status, heads_live: heads?.live ?? false, progress: w.progress.current() }),
    /** Stalled or failing for longer than the limit, or a source disagreeing within the last hour, at the clock's now; null when all is well. */
    problem: () => watcherProblem(deps.scope.chain, w.progress.current(), deps.clock.now(), stallLimitMs) ?? w.disagreements.problem(deps.scope.chain),
    start() {
      if (loop.running) return;
      warnOfWeakConfirmation(w);
      loop.start();
      heads?.start((height) => {
        announcements.announce(height);
        loop.wake();
      });
    },
    async stop() {
      heads?.close();
      await loop.stop();
    },
  };
}

/** The watch a watcher runs on: its settings with their defaults, the status before the first pass. */
function watchOf(deps: EvmWatcherDeps): Watch {
  const { base, logger, scope } = deps;
  const listenerFixed: FixedAddress[] = base.fixedAddress && scope.merchantId !== null ? [{ merchantId: scope.merchantId, address: base.fixedAddress }] : [];
  return {
    deps: { ...deps, fixedAddresses: deps.fixedAddresses ?? (async () => listenerFixed) },
    options: {
      pollIntervalMs: deps.pollIntervalMs ?? 2_000,
      blockTimeMs: deps.blockTimeMs ?? 0,
      headsCheckMs: deps.headsCheckMs ?? 60_000,
      recipientsPerCall: deps.recipientsPerCall ?? 1_000,
      maxBlockRange: deps.maxBlockRange ?? 2_000,
      initialLookback: deps.initialLookback ?? 1_800,
      keepBlocks: deps.keepBlocks ?? 256,
    },
    status: {
      sources: deps.sources.length,
      sources_up: 0,
      fixed_address_confirming: base.fixedAddress === null || deps.sources.length >= 2,
      last_block_height: null,
      last_block_hash: null,
      head_block_height: null,
      watched_addresses: 0,
      awaiting_second_source: 0,
      min_sources: base.minSources,
      disagreeing_sources: [],
      finality: base.finality ?? 'count',
      finalized_block_height: null,
      refused_merchants: 0,
      last_tick_at: null,
      last_error: null,
    },
    progress: createWatchProgress(deps.clock, deps.observer),
    tokens: [...base.tokens.values()],
    assetByToken: new Map([...base.tokens].map(([symbol, address]) => [address, assetOf(symbol)])),
    adoptionChecked: false,
    finalityFallbackLogged: false,
    recordedBy: new Map(),
    disagreements: createSourceDisagreements({ clock: deps.clock, logger, observer: deps.observer }),
  };
}

/** Settings under which payments confirm on less than two sources' word, said once at start. */
function warnOfWeakConfirmation(w: Watch): void {
  const { logger, scope, base } = w.deps;
  const names = evmSettingNamesOf({ envPrefix: evmPrefixOf(scope.chain as EvmChainName) });
  if (!w.status.fixed_address_confirming) {
    logger.warn(
      `base: ${names.rpcUrl} has a single source, so fixed-address invoices stay pending: a fixed-address payment needs two independent RPC sources to confirm. Add a second URL.`,
    );
  }
  if (base.minSources === 1) {
    logger.warn(`base: ${names.minSources}=1: payments are confirmed on one RPC source's word, trusted as your own node`);
  }
}

export type EvmWatcher = ReturnType<typeof createEvmWatcher>;
