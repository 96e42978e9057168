import type { Kysely } from 'kysely';
import type { Clock } from '../clock.ts';
import type { CoreTables } from '../schema.ts';
import type { Logger } from '../log.ts';
import { chainFacts, type EvmChainName } from '../../shared/index.ts';
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
import type { BlockHeader, TransferLog } from './chain.ts';
import { createSourceDisagreements, type SourceDisagreement, type SourceDisagreements } from './source-disagreements.ts';
import { RpcUnavailableError, type RpcSource } from './rpc.ts';
import { createSourceHeads, type HeardSource, type RefusedSource, type SourceHeads } from './source-heads.ts';
import { agreedHeader, judgeScan, quorumValue } from './scan-agreement.ts';
import { ChainMovedError, firstLooks, headersAt, storedBlockVote, viewsOf, type ScanFailure } from './range-scan.ts';
import { announcePaymentSeen, type StatusFeed } from '../invoices/status-feed.ts';
import { refreshPartialStatus } from './partial.ts';
import { settleTransfers } from './settlement.ts';
import { parseChecksummedAddress } from './keys.ts';
import { assetOf } from './tokens.ts';
import { createPollLoop } from '../poll-loop.ts';
import type { HeadSubscription } from './new-heads.ts';
import { createHeadAnnouncements } from './head-announcements.ts';
import { nextPassInMs } from './poll-pace.ts';
import { createWatchProgress, stallAfterMs, watcherProblem, type WatchObserver, type WatcherProblem, type WatcherProgress, type WatchProgress } from '../watch-progress.ts';

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
  base: Pick<EvmConfig, 'tokens' | 'confirmations' | 'fixedAddress' | 'minSources' | 'chainId'> & Partial<Pick<EvmConfig, 'finality'>>;
  /**
   * Every merchant's fixed receive address (Cloud: read from its merchants, cached by the caller).
   * Default: `base.fixedAddress` for the scope's merchant.
   */
  fixedAddresses?: () => Promise<FixedAddress[]>;
  /** One per `<PREFIX>_RPC_URL` entry: every one scans each range, and a transfer counts once `minSources` of them report it, whatever their order. */
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
  /** Sources set aside for answering another chain id than the configured one. */
  refused_sources: RefusedSource[];
  /** The rule a pass settled by: the count alone, or the count and the node's `finalized` block. */
  finality: 'tag' | 'count' | typeof FINALITY_FALLBACK;
  /** The finalized block the sources agreed on at the last pass, when the rule reads it. */
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
  /** The range ended early: a transfer some sources report waits for sources not heard yet. */
  held: boolean;
}

type Options = Required<Pick<EvmWatcherDeps, 'pollIntervalMs' | 'blockTimeMs' | 'headsCheckMs' | 'recipientsPerCall' | 'maxBlockRange' | 'initialLookback' | 'keepBlocks'>>;

/** Everything a step needs: the dependencies, the derived settings, the status it updates. */
interface Watch {
  deps: EvmWatcherDeps;
  options: Options;
  status: Omit<EvmWatcherStatus, 'progress' | 'heads_live' | 'refused_sources'>;
  progress: WatchProgress;
  tokens: string[];
  assetByToken: ReadonlyMap<string, string>;
  /** Whether progress left by per-merchant watchers was looked for (once per start). */
  adoptionChecked: boolean;
  /** Whether the fall-back to the count was logged (once, not every pass). */
  finalityFallbackLogged: boolean;
  /** Each source's head, chain id check and refusal. */
  heads: SourceHeads;
  disagreements: SourceDisagreements;
}

/** Sources that must report the same thing before it counts: the operator's minimum (1 trusts every source listed). */
const quorumOf = (w: Watch) => Math.max(1, w.deps.base.minSources);

/** What the chain's name and settings say in messages: never a chain name written here. */
const chainNameOf = (w: Watch) => chainFacts[w.deps.scope.chain as EvmChainName].name;

/**
 * Every source's head, and the head `quorum` of them reach: a source claiming a far higher head
 * cannot move the range end, one claiming a lower one cannot hold it back (with others to outvote it).
 */
async function hearSources(w: Watch, stored: number | null): Promise<{ heard: HeardSource[]; head: number }> {
  const heard = await w.heads.heard(stored);
  w.status.sources_up = heard.length;
  const quorum = quorumOf(w);
  const head = quorumValue(heard.map((h) => h.head), quorum);
  if (head === null) {
    const configured = `${w.deps.sources.length} ${evmNames(w).rpcUrl} source${w.deps.sources.length === 1 ? '' : 's'}`;
    throw new RpcUnavailableError(
      heard.length === 0 ? `no ${chainNameOf(w)} RPC source answers (of ${configured})` : `only ${heard.length} of ${configured} answer on chain ${w.deps.base.chainId}; ${quorum} must agree`,
    );
  }
  return { heard, head };
}

const evmNames = (w: Watch) => evmSettingNamesOf({ envPrefix: evmPrefixOf(w.deps.scope.chain as EvmChainName) });

/**
 * The finalized block when the chain settles by the tag, agreed like the head: the highest block
 * `quorum` of the answering sources call final, so one source claiming a later one cannot make a
 * block final and one claiming an earlier one cannot stall finality while others outvote it. With
 * fewer answers, the lowest; when no source answers the tag, null: the count alone, and the status says so.
 */
function finalizedOf(w: Watch, heard: readonly HeardSource[], head: number): number | null {
  if ((w.deps.base.finality ?? 'count') === 'count') return null;
  const answers = heard.map((h) => h.finalized).filter((n) => n !== null);
  const agreed = answers.length ? Math.min(head, quorumValue(answers, quorumOf(w)) ?? Math.min(...answers)) : null;
  w.status.finality = agreed === null ? FINALITY_FALLBACK : 'tag';
  w.status.finalized_block_height = agreed;
  if (agreed === null && !w.finalityFallbackLogged) {
    w.deps.logger.warn(`${w.deps.scope.chain}: no RPC source answers the finalized block; settling by the confirmation count alone`, { sources: heard.map((h) => h.source.label) });
  }
  w.finalityFallbackLogged = agreed === null;
  return agreed;
}

/** The header `quorum` of the heard sources agree on at one height, or the pass is retried. */
async function agreedHeaderAt(w: Watch, heard: readonly HeardSource[], number: number): Promise<BlockHeader> {
  const header = agreedHeader(await headersAt(heard, number), quorumOf(w));
  if (!header) throw new ChainMovedError(`the ${chainNameOf(w)} RPC sources do not agree on block ${number} yet`);
  return header;
}

/**
 * Walks the stored range ends down until `quorum` sources still have one with the same hash;
 * everything above it is forgotten and rescanned. Transfers that already settled an invoice were
 * deeper than the required confirmations; a reorg that deep cannot be undone here and is logged.
 * One source alone cannot make the watcher roll back while others outvote it.
 */
async function rollBack(w: Watch, heard: readonly HeardSource[]): Promise<number> {
  const { db, scope, logger } = w.deps;
  const stored = await checkpoints(db, scope);
  let ancestor: BlockHeader | null = null;
  for (const block of stored) {
    const answers = await headersAt(heard, block.block_number);
    const vote = storedBlockVote(answers, block.block_hash, quorumOf(w));
    if (vote === 'unsure') throw new ChainMovedError(`the ${chainNameOf(w)} RPC sources do not agree on block ${block.block_number} yet`);
    if (vote === 'kept') {
      ancestor = answers.find((header) => header?.hash === block.block_hash)!;
      break;
    }
  }
  // No stored block survived: restart well below the oldest one; rescanning is idempotent.
  ancestor ??= await agreedHeaderAt(w, heard, Math.max(0, (stored.at(-1)?.block_number ?? 0) - w.options.keepBlocks));
  const depth = (stored[0]?.block_number ?? ancestor.number) - ancestor.number;
  const settled = await db.transaction().execute((trx) => rollBackAbove(trx, scope, ancestor));
  for (const t of settled) logger.error(`${scope.chain}: reorg deeper than ${evmNames(w).confirmations} removed a settled transfer; check this invoice by hand`, t);
  logger.warn(`${scope.chain}: reorg, rolled back`, { ancestor: ancestor.number, depth });
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

/** Each agreed log once per merchant that watches its recipient: a fixed address several merchants registered is each one's. */
function transfersByMerchant(agreed: ReadonlyArray<{ log: TransferLog; header: BlockHeader }>, merchantsOf: ReadonlyMap<string, string[]>): MerchantTransfer[] {
  return agreed.flatMap(({ log, header }) => (merchantsOf.get(log.to) ?? []).map((merchantId) => ({ merchantId, log, blockTime: header.time })));
}

/** The last range end, after taking over the per-merchant watchers' progress (looked for once per start). */
async function storedEnd(w: Watch) {
  const { db, scope } = w.deps;
  if (!w.adoptionChecked) {
    const adopted = await adoptMerchantCheckpoints(db, scope);
    if (adopted !== null) w.deps.logger.info(`${scope.chain}: watcher continues from the per-merchant watchers' progress`, { from_block: adopted });
    w.adoptionChecked = true;
  }
  return lastCheckpoint(db, scope);
}

/** On the very first start, the scan begins at the block `initialLookback` below the agreed head. */
async function firstStart(w: Watch, heard: readonly HeardSource[], head: number): Promise<Checkpoint> {
  await insertCheckpoint(w.deps.db, w.deps.scope, await agreedHeaderAt(w, heard, Math.max(0, head - w.options.initialLookback)));
  return (await lastCheckpoint(w.deps.db, w.deps.scope))!;
}

type Checkpoint = { block_number: number; block_hash: string; block_time: number };

/** A scanned range: where it ended (below the head while a log waits for sources not heard yet), and the transfers it recorded. */
type RangeResult = Omit<TickResult, 'head'>;

/**
 * Scans one block range above `last` on every heard source and records, each to its merchant,
 * the transfers `quorum` of them report, with the range end they agree on. Who left out or made up
 * a transfer is named. A stored range end the sources no longer have is a reorg: rolled back.
 */
async function scanRange(w: Watch, heard: HeardSource[], head: number, last: Checkpoint, fixed: FixedAddress[]): Promise<RangeResult> {
  const from = last.block_number + 1;
  const to = Math.min(head, last.block_number + w.options.maxBlockRange);
  const merchantsOf = await watchedAddresses(w, fixed, last.block_time);
  w.status.watched_addresses = merchantsOf.size;
  const { recipientsPerCall, maxBlockRange } = w.options;
  const filter = { tokens: w.tokens, recipients: [...merchantsOf.keys()], fromBlock: from, toBlock: to, recipientsPerCall, maxBlockRange };
  const failed: ScanFailure = (source, error) => w.deps.logger.warn(`${w.deps.scope.chain}: RPC source failed during the scan; not heard this pass`, { source, error: error.message });
  const looks = await firstLooks(heard, filter, failed);
  const views = await viewsOf(looks, failed);
  const verdict = judgeScan(views, { quorum: quorumOf(w), voters: w.heads.voting().length, deepest: head - w.deps.base.confirmations + 1 });
  for (const disagreement of verdict.disagreements) w.disagreements.record(disagreement);
  const end = verdict.holdAt === null ? to : verdict.holdAt - 1;
  if (end < from) return { from, to: last.block_number, transfers: 0, reorgDepth: 0, held: true };
  const endHeader = agreedHeader(views.map((view) => view.headers.get(end) ?? null), quorumOf(w)) ?? (await agreedHeaderAt(w, heard, end));
  const transfers = transfersByMerchant(verdict.agreed.filter(({ log }) => log.blockNumber <= end), merchantsOf);
  await record(w, transfers, endHeader);
  return { from, to: end, transfers: transfers.length, reorgDepth: 0, held: end < to };
}

/** Writes the range's agreed transfers and its end, and tells each merchant its payments were seen. */
async function record(w: Watch, transfers: MerchantTransfer[], end: BlockHeader) {
  const { db, feed, clock, scope } = w.deps;
  const now = clock.now();
  await feed.transaction(db, async (trx, changed) => {
    await recordRange(trx, scope, transfers, end, now, w.options.keepBlocks);
    for (const [merchantId, group] of groupByMerchant(transfers)) {
      await announcePaymentSeen(trx, changed, merchantId, { addresses: group.map((t) => t.log.to) }, now);
    }
  });
  w.status.last_block_height = end.number;
  w.status.last_block_hash = end.hash;
}

function groupByMerchant(transfers: MerchantTransfer[]): Map<string, MerchantTransfer[]> {
  const groups = new Map<string, MerchantTransfer[]>();
  for (const transfer of transfers) groups.set(transfer.merchantId, [...(groups.get(transfer.merchantId) ?? []), transfer]);
  return groups;
}

/**
 * Reads and records what the heard sources agree on above the last range end; null when there is
 * nothing new. A stored range end `quorum` sources no longer have is a reorg: rolled back first.
 */
async function follow(w: Watch, heard: HeardSource[], head: number, fixed: FixedAddress[], stored: Checkpoint | undefined): Promise<TickResult | null> {
  const last = stored ?? (await firstStart(w, heard, head));
  if (stored) {
    // Sources behind the stored end do not have it yet: they do not vote.
    const vote = storedBlockVote(heard.filter((h) => h.head >= stored.block_number).map((h) => h.atStored ?? null), stored.block_hash, quorumOf(w));
    if (vote === 'replaced') return { head, from: stored.block_number, to: stored.block_number, transfers: 0, reorgDepth: await rollBack(w, heard), held: false };
    if (vote === 'unsure' && head > stored.block_number) throw new ChainMovedError(`the ${chainNameOf(w)} RPC sources do not agree on block ${stored.block_number} yet`);
  }
  if (head > last.block_number) return { head, ...(await scanRange(w, heard, head, last, fixed)) };
  // No new block: what is watched still changes as invoices are created and close.
  w.status.watched_addresses = (await watchedAddresses(w, fixed, last.block_time)).size;
  w.status.last_block_height = last.block_number;
  w.status.last_block_hash = last.block_hash;
  return null;
}

async function pass(w: Watch): Promise<TickResult | null> {
  const { deps, status, progress } = w;
  progress.step('asking the RPC sources for the head');
  const stored = await storedEnd(w);
  const { heard, head } = await hearSources(w, stored?.block_number ?? null);
  const headSeenAt = deps.clock.now();
  progress.step('reading blocks and Transfer logs');
  status.head_block_height = head;
  const fixed = await fixedAddressesOf(w);
  const result = await follow(w, heard, head, fixed, stored);
  progress.step('settling transfers');
  const finalized = finalizedOf(w, heard, head);
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
      sources: w.heads.voting(),
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
 * address and open xpub invoices' addresses, in one eth_getLogs batch per source and range whatever
 * the number of merchants, on every source; each log the required number of sources report is
 * recorded for the merchant whose address it pays.
 */
export function createEvmWatcher(deps: EvmWatcherDeps) {
  const { logger } = deps;
  const w = watchOf(deps);
  // A watcher that reads the chain only when a block is due is not stalled between blocks.
  const stallLimitMs = deps.stallAfterMs ?? stallAfterMs(Math.max(w.options.pollIntervalMs, w.options.blockTimeMs));
  const heads = deps.heads ?? null;
  const announcements = createHeadAnnouncements(heads, logger, deps.scope.chain);

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
      logger.warn(`${deps.scope.chain}: watcher tick failed; retrying`, { error: (error as Error).message });
    },
    // Still behind the head after a full block range: the next range at once.
    waitMs: (failures, result) =>
      (result && result.to < result.head && !result.held) || announcements.announcedDuringPass()
        ? null
        : nextPassInMs({
            now: deps.clock.now(),
            headSeenAt: announcements.headSeenAt(),
            blockTimeMs: w.options.blockTimeMs,
            pollIntervalMs: w.options.pollIntervalMs,
            headsCheckMs: w.options.headsCheckMs,
            headsLive: heads?.live ?? false,
            retryPending: failures > 0 || w.status.awaiting_second_source > 0 || (result?.held ?? false) || announcements.behindAnnounced(w.status.head_block_height),
          }),
  });

  return {
    tick,
    status: (): EvmWatcherStatus => ({ ...w.status, refused_sources: w.heads.refused(), heads_live: heads?.live ?? false, progress: w.progress.current() }),
    /** Stalled or failing for longer than the limit, a source refused or disagreeing within the last hour, at the clock's now; null when all is well. */
    problem: () => watcherProblem(deps.scope.chain, w.progress.current(), deps.clock.now(), stallLimitMs) ?? refusedProblem(w) ?? w.disagreements.problem(deps.scope.chain),
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
    heads: createSourceHeads({ chain: scope.chain as EvmChainName, chainId: base.chainId, sources: deps.sources, finalityTag: (base.finality ?? 'count') === 'tag', logger }),
    disagreements: createSourceDisagreements({ chain: scope.chain, clock: deps.clock, logger, observer: deps.observer }),
  };
}

/** A source on another chain, as a /health problem: its payments cannot be heard until its entry is fixed. */
function refusedProblem(w: Watch): WatcherProblem | null {
  const [refused] = w.heads.refused();
  return refused ? { component: w.deps.scope.chain, kind: 'invalid-source', reason: refused.reason, since: w.status.last_tick_at ?? new Date(w.deps.clock.now()).toISOString() } : null;
}

/** Settings under which payments confirm on less than two sources' word, said once at start. */
function warnOfWeakConfirmation(w: Watch): void {
  const { logger, scope, base } = w.deps;
  const names = evmSettingNamesOf({ envPrefix: evmPrefixOf(scope.chain as EvmChainName) });
  if (!w.status.fixed_address_confirming) {
    logger.warn(
      `${scope.chain}: ${names.rpcUrl} has a single source, so fixed-address invoices stay pending: a fixed-address payment needs two independent RPC sources to confirm. Add a second URL.`,
    );
  }
  if (base.minSources === 1) {
    logger.warn(`${scope.chain}: ${names.minSources}=1: payments are confirmed on one RPC source's word, trusted as your own node`);
  }
}

export type EvmWatcher = ReturnType<typeof createEvmWatcher>;
