import type { Kysely } from 'kysely';
import type { Clock } from '../clock.ts';
import type { CoreTables } from '../schema.ts';
import type { Logger } from '../log.ts';
import type { BaseConfig } from './base-config.ts';
import { blockHeader, blockHeaders, headNumber, transferLogs, type BlockHeader, type TransferLog } from './chain.ts';
import { RpcUnavailableError, type RpcSource } from './rpc.ts';
import { announcePaymentSeen, type StatusFeed } from '../invoices/status-feed.ts';
import { refreshPartialStatus } from './partial.ts';
import { OPEN, settleTransfers } from './settlement.ts';
import { assetOf } from './tokens.ts';
import { createPollLoop } from '../poll-loop.ts';
import { createWatchProgress, stallAfterMs, watcherProblem, type WatchObserver, type WatcherProgress } from '../watch-progress.ts';

export interface BaseWatcherDeps {
  /** The metrics' view of the passes, steps and lag behind the head. */
  observer?: WatchObserver;
  db: Kysely<CoreTables>;
  /** Where the invoices' status changes are published. */
  feed: StatusFeed;
  clock: Clock;
  logger: Logger;
  merchantId: string;
  base: BaseConfig;
  /** One per BASE_RPC_URL entry, in order: the first reachable one scans. */
  sources: RpcSource[];
  pollIntervalMs?: number;
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

export interface BaseWatcherStatus {
  sources: number;
  sources_up: number;
  fixed_address_confirming: boolean;
  last_block_height: number | null;
  last_block_hash: string | null;
  head_block_height: number | null;
  watched_addresses: number;
  awaiting_second_source: number;
  last_tick_at: string | null;
  last_error: string | null;
  progress: WatcherProgress;
}

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

export function createBaseWatcher(deps: BaseWatcherDeps) {
  const { db, merchantId, base, logger } = deps;
  const pollIntervalMs = deps.pollIntervalMs ?? 2_000;
  const recipientsPerCall = deps.recipientsPerCall ?? 1_000;
  const maxBlockRange = deps.maxBlockRange ?? 2_000;
  const initialLookback = deps.initialLookback ?? 1_800;
  const keepBlocks = deps.keepBlocks ?? 256;
  const stallLimitMs = deps.stallAfterMs ?? stallAfterMs(pollIntervalMs);
  const progress = createWatchProgress(deps.clock, deps.observer);
  const tokens = [...base.tokens.values()];
  const assetByToken = new Map([...base.tokens].map(([symbol, address]) => [address, assetOf(symbol)]));
  const status: Omit<BaseWatcherStatus, 'progress'> = {
    sources: deps.sources.length,
    sources_up: 0,
    fixed_address_confirming: base.fixedAddress === null || deps.sources.length >= 2,
    last_block_height: null,
    last_block_hash: null,
    head_block_height: null,
    watched_addresses: 0,
    awaiting_second_source: 0,
    last_tick_at: null,
    last_error: null,
  };

  /** The first source that answers, with its head; the rest are counted for /health. */
  async function pickScanner(): Promise<{ scanner: RpcSource; head: number; others: RpcSource[] }> {
    let up = 0;
    let picked: { scanner: RpcSource; head: number } | null = null;
    for (const source of deps.sources) {
      try {
        const head = await headNumber(source);
        up++;
        picked ??= { scanner: source, head };
      } catch (error) {
        logger.warn('base: RPC source unavailable', { source: source.label, error: (error as Error).message });
      }
    }
    status.sources_up = up;
    if (!picked) throw new RpcUnavailableError('no Base RPC source answers');
    return { ...picked, others: deps.sources.filter((s) => s !== picked.scanner) };
  }

  async function lastProcessed() {
    return db
      .selectFrom('base_blocks')
      .selectAll()
      .where('merchant_id', '=', merchantId)
      .where('chain', '=', base.chain)
      .orderBy('block_number', 'desc')
      .limit(1)
      .executeTakeFirst();
  }

  /**
   * Walks the stored range ends down until one still has the same hash on the node; everything
   * above it is forgotten and rescanned. Transfers that already settled an invoice were deeper
   * than the required confirmations; a reorg that deep cannot be undone here and is logged.
   */
  function checkpoint(header: BlockHeader) {
    return { merchant_id: merchantId, chain: base.chain, block_number: header.number, block_hash: header.hash, block_time: header.time };
  }

  async function rollBack(scanner: RpcSource): Promise<number> {
    const stored = await db
      .selectFrom('base_blocks')
      .selectAll()
      .where('merchant_id', '=', merchantId)
      .where('chain', '=', base.chain)
      .orderBy('block_number', 'desc')
      .execute();
    let ancestor: BlockHeader | null = null;
    for (const block of stored) {
      const header = await blockHeader(scanner, block.block_number);
      if (header?.hash === block.block_hash) {
        ancestor = header;
        break;
      }
    }
    // No stored block survived: restart well below the oldest one; rescanning is idempotent.
    ancestor ??= await headerOrThrow(scanner, Math.max(0, (stored.at(-1)?.block_number ?? 0) - keepBlocks));
    const depth = (stored[0]?.block_number ?? ancestor.number) - ancestor.number;
    await db.transaction().execute(async (trx) => {
      const settled = await trx
        .selectFrom('base_transfers')
        .select(['tx_hash', 'invoice_id', 'state'])
        .where('merchant_id', '=', merchantId)
        .where('chain', '=', base.chain)
        .where('block_number', '>', ancestor.number)
        .where('state', '!=', 'seen')
        .execute();
      for (const t of settled) {
        logger.error('base: reorg deeper than BASE_CONFIRMATIONS removed a settled transfer; check this invoice by hand', t);
      }
      await trx.deleteFrom('base_transfers').where('merchant_id', '=', merchantId).where('chain', '=', base.chain).where('block_number', '>', ancestor.number).where('state', '=', 'seen').execute();
      await trx.deleteFrom('base_blocks').where('merchant_id', '=', merchantId).where('chain', '=', base.chain).where('block_number', '>=', ancestor.number).execute();
      await trx.insertInto('base_blocks').values(checkpoint(ancestor)).execute();
    });
    logger.warn('base: reorg, rolled back', { ancestor: ancestor.number, depth });
    return depth;
  }

  /**
   * Addresses whose transfers matter for blocks from `sinceTime` on: the fixed address, and the
   * address of every xpub invoice that was still open at that time. Read after the head, so an
   * invoice created after this read can only be paid in a block above that head.
   */
  async function watchedAddresses(sinceTime: number): Promise<string[]> {
    const rows = await db
      .selectFrom('invoices')
      .select('receive_address')
      .where('merchant_id', '=', merchantId)
      .where('chain', '=', base.chain)
      .where('child_index', 'is not', null)
      .where('status', 'in', OPEN)
      .where('expires_at', '>=', sinceTime)
      .execute();
    const addresses = rows.map((r) => r.receive_address);
    if (base.fixedAddress) addresses.unshift(base.fixedAddress);
    return addresses;
  }

  async function headerOrThrow(source: RpcSource, number: number): Promise<BlockHeader> {
    const header = await blockHeader(source, number);
    if (!header) throw new ChainMovedError(`block ${number} is not available`);
    return header;
  }

  /** One pass; its progress (success, failure, the step under way) is what /health reports. */
  const tick = async () => {
    const result = await progress.track(pass);
    if (status.head_block_height !== null && status.last_block_height !== null) deps.observer?.lag(status.head_block_height - status.last_block_height);
    return result;
  };

  async function pass(): Promise<TickResult | null> {
    progress.step('asking the RPC sources for the head');
    const { scanner, head, others } = await pickScanner();
    const headSeenAt = deps.clock.now();
    progress.step('reading blocks and Transfer logs');
    status.head_block_height = head;
    let last = await lastProcessed();
    if (!last) {
      const start = await headerOrThrow(scanner, Math.max(0, head - initialLookback));
      last = checkpoint(start);
      await db.insertInto('base_blocks').values(last).execute();
    }
    let reorgDepth = 0;
    if (head < last.block_number || (await headerOrThrow(scanner, last.block_number)).hash !== last.block_hash) {
      reorgDepth = await rollBack(scanner);
      last = (await lastProcessed())!;
    }
    let result: TickResult | null = null;
    if (head > last.block_number) {
      const from = last.block_number + 1;
      const to = Math.min(head, last.block_number + maxBlockRange);
      const recipients = await watchedAddresses(last.block_time);
      status.watched_addresses = recipients.length;
      const before = await headerOrThrow(scanner, to);
      const logs = await transferLogs(scanner, { tokens, recipients, fromBlock: from, toBlock: to, recipientsPerCall, maxBlockRange });
      const times = await blockTimes(scanner, logs, to);
      if (times.get(to)?.hash !== before.hash) throw new ChainMovedError(`block ${to} changed during the scan`);
      const now = deps.clock.now();
      await deps.feed.transaction(db, async (trx, changed) => {
        for (const log of logs) {
          await trx
            .insertInto('base_transfers')
            .values({
              merchant_id: merchantId,
              chain: base.chain,
              tx_hash: log.txHash,
              log_index: log.logIndex,
              block_number: log.blockNumber,
              block_hash: log.blockHash,
              block_time: times.get(log.blockNumber)!.time,
              token_address: log.token,
              from_address: log.from,
              to_address: log.to,
              value: log.value.toString(),
              state: 'seen',
              invoice_id: null,
              detected_at: now,
            })
            .onConflict((oc) => oc.columns(['merchant_id', 'tx_hash', 'log_index']).doNothing())
            .execute();
        }
        await trx.insertInto('base_blocks').values(checkpoint(before)).execute();
        await trx.deleteFrom('base_blocks').where('merchant_id', '=', merchantId).where('chain', '=', base.chain).where('block_number', '<', to - keepBlocks).execute();
        await announcePaymentSeen(trx, changed, merchantId, { addresses: logs.map((log) => log.to) }, now);
      });
      status.last_block_height = to;
      status.last_block_hash = before.hash;
      result = { head, from, to, transfers: logs.length, reorgDepth };
    } else {
      status.last_block_height = last.block_number;
      status.last_block_hash = last.block_hash;
    }
    progress.step('settling transfers');
    status.awaiting_second_source = await settleTransfers(
      { db, feed: deps.feed, clock: deps.clock, logger, merchantId, chain: base.chain, fixedAddress: base.fixedAddress, confirmations: base.confirmations, assetByToken, headSeenAt, observer: deps.observer },
      head,
      others,
    );
    await refreshPartialStatus(db, deps.feed, merchantId, base.chain, deps.clock.now());
    status.last_tick_at = new Date(deps.clock.now()).toISOString();
    status.last_error = null;
    return result;
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

  const loop = createPollLoop({
    pass: tick,
    progress,
    failed(error) {
      status.last_error = (error as Error).message;
      logger.warn('base: watcher tick failed; retrying', { error: (error as Error).message });
    },
    // Still behind the head after a full block range: the next range at once.
    waitMs: (_failures, result) => (result && result.to < result.head ? null : pollIntervalMs),
  });

  return {
    tick,
    status: (): BaseWatcherStatus => ({ ...status, progress: progress.current() }),
    /** Stalled or failing for longer than the limit, at the clock's now; null when progressing. */
    problem: () => watcherProblem(base.chain, progress.current(), deps.clock.now(), stallLimitMs),
    start() {
      if (loop.running) return;
      if (!status.fixed_address_confirming) {
        logger.warn(
          'base: BASE_RPC_URL has a single source, so fixed-address invoices stay pending: a fixed-address payment needs two independent RPC sources to confirm. Add a second URL.',
        );
      }
      loop.start();
    },
    stop: () => loop.stop(),
  };
}

export type BaseWatcher = ReturnType<typeof createBaseWatcher>;
