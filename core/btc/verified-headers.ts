import type { Kysely } from 'kysely';
import type { Clock } from '../clock.ts';
import type { Logger } from '../log.ts';
import type { CoreTables } from '../schema.ts';
import { ChainSourceInvalidData } from './chain-source.ts';
import { HeaderRejected, type Checkpoint, type HeaderRules } from './header-chain.ts';
import type { WatcherProblem } from '../watch-progress.ts';
import { downloadPages } from './header-page-download.ts';
import { createSourceStandings, type HeaderSourceStatus, type NamedHeaderSource, type SourceState, type SourceStandings } from './header-source-standings.ts';
import { claimTip, OutOfRequests, pagesTarget, proveTip, UnprovenTip, type HeaderSyncContext, type SourceRun, type TipClaim } from './header-source-sync.ts';
import { createSyncEstimate } from './sync-estimate.ts';
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
  /** While syncing: seconds left at the pace measured so far; null once synced or before a pace is known. */
  estimated_seconds_left: number | null;
  /** Why the shipped checkpoint makes a first sync slow (older than CHECKPOINT_WARN_DAYS), if so. */
  warning: string | null;
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
/** A checkpoint older than this leaves a first sync of some 26,000 headers or more: the release is due a refresh. */
export const CHECKPOINT_WARN_DAYS = 180;
const DAY_MS = 86_400_000;

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
    maxRequests: deps.maxRequestsPerSync ?? 150,
    logProgress: progressLog(clock, log, store),
  };
  const estimate = createSyncEstimate(clock);
  const warning = checkpointWarning(checkpoint, clock.now());
  if (warning) log.warn(warning, { checkpoint_height: checkpoint.height });
  let loaded = false;
  let synced = false;
  /** A source answered in the last pass: a sync is under way (with none, the watcher's own `failing` tells). */
  let answering = false;
  const sprint = (on: boolean) => {
    for (const s of deps.sources) s.sprint?.(on);
  };

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
      // A first sync (or a catch-up after downtime) may use each source's budget at its sprint.
      if (!synced) estimate.start(position());
      sprint(!synced);
      const { answered, caughtUp, lastError } = await syncSources(ctx, standings).finally(() => sprint(false));
      await store.save();
      answering = answered > 0;
      if (!answered) throw lastError instanceof Error ? lastError : new Error(`no usable Bitcoin source: ${standings.problem()?.reason ?? 'none answers'}`);
      if (caughtUp && !synced) log.info('btc header chain synced', { height: store.chain()?.tip?.height ?? null });
      synced = caughtUp && store.chain()?.tip != null;
      estimate.note(position(), targetHeight(), synced);
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
      return {
        network,
        height: store.chain()?.tip?.height ?? null,
        target_height: targetHeight(),
        synced,
        checkpoint_height: checkpoint.height,
        estimated_seconds_left: synced ? null : estimate.secondsLeft(),
        warning,
        sources: standings.sources.map((s) => ({ ...s.status })),
      };
    },
    problem: standings.problem,
    /** For /health: a source set aside (named at once), else the sync under way with how far it is. */
    watcherProblem(): WatcherProblem | null {
      const bad = standings.problem();
      if (bad) return { component: 'btc', kind: bad.kind, reason: bad.reason, since: new Date(bad.since).toISOString() };
      if (synced || !answering) return null;
      return { component: 'btc', kind: 'syncing', reason: syncingReason(position(), targetHeight(), estimate.secondsLeft()), since: new Date(estimate.since()).toISOString() };
    },
  };

  /** The highest header downloaded: the chain's tip, or during a first sync the part of the checkpoint's interval in. */
  function position(): number {
    return store.chain()?.tip?.height ?? (store.nextTrustedHeight() ?? checkpoint.height + 1) - 1;
  }

  /** The highest tip claimed by a source not set aside for lying (a liar's made-up height is no target). */
  function targetHeight(): number | null {
    const height = store.chain()?.tip?.height ?? -1;
    const claimed = standings.sources.filter((s) => s.invalidSince === null).map((s) => s.claimedHeight ?? -1);
    const target = Math.max(height, ...claimed);
    return target < 0 ? null : target;
  }
}

function syncingReason(height: number, target: number | null, secondsLeft: number | null): string {
  const left = secondsLeft === null ? 'estimating the time left' : `about ${Math.max(1, Math.round(secondsLeft / 60))} min left`;
  return `the header chain is syncing: height ${height} of ${target ?? 'unknown'}, ${left}; payments confirm once it is synced`;
}

/** A warning when the release's checkpoint is older than CHECKPOINT_WARN_DAYS at `now`; null when fresh or undated. */
function checkpointWarning(checkpoint: Checkpoint, now: number): string | null {
  if (!checkpoint.takenAt) return null;
  const days = Math.floor((now - Date.parse(checkpoint.takenAt)) / DAY_MS);
  if (days <= CHECKPOINT_WARN_DAYS) return null;
  return `the release's Bitcoin checkpoint is ${days} days old (over ${CHECKPOINT_WARN_DAYS}): a first sync downloads about ${Math.round((days * 144) / 1000)},000 headers more; upgrade to a newer release`;
}

interface PassOfSource {
  state: SourceState;
  run: SourceRun;
  tip: TipClaim | null;
  /** What stopped it this pass; undefined while none did. */
  error: unknown;
}

/**
 * One pass over every usable source: each one's tip claimed (a first sync downloads the
 * checkpoint's interval here), then pages by height from all of them at once up to their tips,
 * then each tip proven. Whether any answered, and whether all of those are caught up.
 */
async function syncSources(ctx: HeaderSyncContext, standings: SourceStandings): Promise<{ answered: number; caughtUp: boolean; lastError: unknown }> {
  const passes: PassOfSource[] = standings.sources.filter(standings.usable).map((state) => ({ state, run: { ctx, headers: state.headers, requests: 0 }, tip: null, error: undefined }));
  for (const p of passes) {
    try {
      p.tip = await claimTip(p.run, (height) => {
        p.state.claimedHeight = height;
      });
    } catch (error) {
      p.error = error;
    }
  }
  const paging = passes.filter((p) => p.error === undefined && pagesTarget(p.run, p.tip!) !== null);
  if (paging.length) {
    const start = (ctx.store.chain()!.tip?.height ?? -1) + 1;
    const failures = await downloadPages(start, paging.map((p) => ({ run: p.run, to: pagesTarget(p.run, p.tip!)! })), ctx.logProgress);
    paging.forEach((p, i) => {
      p.error = failures[i];
    });
  }
  let primary = true;
  for (const p of passes.filter((x) => x.error === undefined)) {
    try {
      standings.markVerified(p.state, await proveTip(p.run, p.tip!, primary));
    } catch (error) {
      p.error = error;
    }
    primary = false;
  }
  return passOutcome(passes, standings);
}

/** Each source's standing from how its pass ended. */
function passOutcome(passes: PassOfSource[], standings: SourceStandings): { answered: number; caughtUp: boolean; lastError: unknown } {
  let answered = 0;
  let caughtUp = true;
  let lastError: unknown = null;
  for (const { state, error } of passes) {
    if (error === undefined || error instanceof OutOfRequests) answered++;
    if (error === undefined) continue;
    if (error instanceof OutOfRequests) {
      caughtUp = false;
      standings.markSyncing(state);
      continue;
    }
    lastError = error;
    if (error instanceof UnprovenTip) standings.markUnproven(state, error.message);
    else if (error instanceof HeaderRejected) standings.markInvalid(state, error.code, `served an invalid header: ${error.message}`);
    // An answer over its size cap (answer-caps.ts): set aside like a source serving bad headers.
    else if (error instanceof ChainSourceInvalidData) standings.markInvalid(state, 'oversized-answer', error.message);
    else standings.markUnreachable(state, error);
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
