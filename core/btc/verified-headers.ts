import type { Kysely } from 'kysely';
import type { Clock } from '../clock.ts';
import type { Logger } from '../log.ts';
import type { CoreTables } from '../schema.ts';
import { ChainSourceInvalidData } from './chain-source.ts';
import { HeaderRejected, type Checkpoint, type HeaderRules } from './header-chain.ts';
import { createSourceStandings, type HeaderSourceStatus, type NamedHeaderSource, type SourceStandings } from './header-source-standings.ts';
import { OutOfRequests, syncFromSource, type HeaderSyncContext } from './header-source-sync.ts';
import { createStoredHeaderChain, type StoredHeaderChain } from './stored-header-chain.ts';

/** How far the header chain is, as /health shows it. */
export interface HeaderChainStatus {
  network: string;
  /** Height of the best verified header; null before the first. */
  height: number | null;
  /** Highest tip a source claimed that is not verified yet; equal to `height` once synced. */
  target_height: number | null;
  synced: boolean;
  checkpoint_height: number;
  sources: HeaderSourceStatus[];
}

export interface VerifiedHeadersDeps {
  network: string;
  rules: HeaderRules;
  checkpoint: Checkpoint;
  sources: NamedHeaderSource[];
  db: Kysely<CoreTables>;
  clock: Clock;
  logger: Logger;
  /** Requests one sync may send to one source: a first sync goes on over several passes, each short. */
  maxRequestsPerSync?: number;
  /** A source served something that failed verification (the metrics count it). */
  onRejected?(source: string, reason: string): void;
}

const PROGRESS_EVERY_MS = 5_000;

/**
 * The verified header chain of one network, fed by one or more third-party sources and kept in
 * the database. A header is believed only through the consensus rules (header-chain.ts), whichever
 * source sent it; a source that sends one the rules refuse is named, counted and ignored for a
 * while, one whose tip lags the best verified tip is reported behind.
 */
export function createVerifiedHeaders(deps: VerifiedHeadersDeps) {
  const { checkpoint, clock, network } = deps;
  const log = deps.logger.child({ component: 'btc-headers', network });
  const store = createStoredHeaderChain({ ...deps, log });
  const standings = createSourceStandings(deps.sources, { clock, log, onRejected: deps.onRejected });
  const ctx: HeaderSyncContext = {
    store,
    checkpointHeight: checkpoint.height,
    clock,
    maxRequests: deps.maxRequestsPerSync ?? 60,
    logProgress: progressLog(clock, log, store),
  };
  let loaded = false;
  let synced = false;

  return {
    /**
     * Brings the chain up to every usable source's tip, each within its request allowance. Throws
     * when no source answered. Returns whether the chain is synced: every answering source's tip is
     * a verified header.
     */
    async sync(): Promise<boolean> {
      if (!loaded) {
        await store.load();
        loaded = true;
      }
      const { answered, caughtUp, lastError } = await syncSources(ctx, standings);
      await store.save();
      if (!answered) throw lastError instanceof Error ? lastError : new Error(`no usable Bitcoin source: ${standings.problem()?.reason ?? 'none answers'}`);
      if (caughtUp && !synced) log.info('btc header chain synced', { height: store.chain()?.tip?.height ?? null });
      synced = caughtUp && store.chain()?.tip != null;
      return synced;
    },
    /** The chain as verified so far; null before the checkpoint's interval is in. */
    chain: store.chain,
    /** A source served a block body that does not match its verified header. */
    rejectBlock(label: string, message: string): void {
      const s = standings.byLabel(label);
      if (s) standings.markInvalid(s, 'block-mismatch', `served a block that does not match its verified header: ${message}`);
    },
    usableSources: () => standings.sources.filter(standings.usable).map((s) => s.label),
    status(): HeaderChainStatus {
      const height = store.chain()?.tip?.height ?? null;
      const claimed = standings.sources.map((s) => s.claimedHeight ?? -1);
      const target = Math.max(height ?? -1, ...claimed);
      return {
        network,
        height,
        target_height: target < 0 ? null : target,
        synced,
        checkpoint_height: checkpoint.height,
        sources: standings.sources.map((s) => ({ ...s.status })),
      };
    },
    problem: standings.problem,
  };
}

/** Syncs from every usable source in turn; whether any answered, and whether all of those are caught up. */
async function syncSources(ctx: HeaderSyncContext, standings: SourceStandings): Promise<{ answered: number; caughtUp: boolean; lastError: unknown }> {
  let answered = 0;
  let caughtUp = true;
  let lastError: unknown = null;
  let first = true;
  for (const s of standings.sources) {
    if (!standings.usable(s)) continue;
    const primary = first;
    first = false;
    try {
      const tip = await syncFromSource(ctx, s.headers, primary, (height) => {
        s.claimedHeight = height;
      });
      standings.markVerified(s, tip);
      answered++;
    } catch (error) {
      if (error instanceof OutOfRequests) {
        answered++;
        caughtUp = false;
      } else if (error instanceof HeaderRejected) {
        standings.markInvalid(s, error.code, `served an invalid header: ${error.message}`);
        lastError = error;
      } else if (error instanceof ChainSourceInvalidData) {
        // An answer over its size cap (answer-caps.ts): set aside like a source serving bad headers.
        standings.markInvalid(s, 'oversized-answer', error.message);
        lastError = error;
      } else {
        standings.markUnreachable(s, error);
        lastError = error;
      }
    }
  }
  return { answered, caughtUp, lastError };
}

/** Logs how far a sync has come, at most every few seconds. */
function progressLog(clock: Clock, log: Logger, store: StoredHeaderChain): (target: number) => void {
  let lastProgressLog = Number.NEGATIVE_INFINITY;
  return (target) => {
    if (clock.now() - lastProgressLog < PROGRESS_EVERY_MS) return;
    lastProgressLog = clock.now();
    log.info('btc header chain syncing', { height: store.chain()?.tip?.height ?? null, target_height: target });
  };
}

export type VerifiedHeaders = ReturnType<typeof createVerifiedHeaders>;
