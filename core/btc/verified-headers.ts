import type { Kysely } from 'kysely';
import type { Clock } from '../clock.ts';
import type { Logger } from '../log.ts';
import type { CoreTables } from '../schema.ts';
import { clearHeaders, loadHeaders, saveHeaders } from './btc-headers.repository.ts';
import { GENESIS_CHECKPOINT, HeaderChain, HeaderRejected, RETARGET_INTERVAL, parseHeader, type Checkpoint, type HeaderOutcome, type HeaderRules } from './header-chain.ts';
import type { HeaderSource, SourceHeader } from './header-source.ts';

/** One source's standing, as /health shows it. */
export interface HeaderSourceStatus {
  /** Scheme, host and port of its URL (never a path, which may hold an API key). */
  source: string;
  /**
   * `ok`: its tip is the best verified tip. `behind`: its tip is a verified header below the best
   * one (or on a lighter branch): it may be slow, or withholding blocks. `invalid`: it served a
   * header or block that failed verification, and is ignored for a while. `unreachable`: it did not answer.
   */
  state: 'ok' | 'behind' | 'invalid' | 'unreachable' | 'unknown';
  tip_height: number | null;
  problem: string | null;
}

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

export interface NamedHeaderSource {
  label: string;
  headers: HeaderSource;
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

/** A source that lied is not asked again for this long (it stays named in /health meanwhile). */
const IGNORE_INVALID_MS = 10 * 60_000;
/** A source this close above our tip is followed header by header (by hash); further, by height pages. */
const FOLLOW_BY_HASH = 6;
/** Deepest reorg followed by walking back from a tip by hash. */
const MAX_WALK_BACK = 144;
const PROGRESS_EVERY_MS = 5_000;

interface SourceState extends NamedHeaderSource {
  status: HeaderSourceStatus;
  ignoredUntil: number;
  /** Since when it has stood invalid (cleared once it serves a valid tip again). */
  invalidSince: number | null;
  claimedHeight: number | null;
}

class OutOfRequests extends Error {}

/**
 * The verified header chain of one network, fed by one or more third-party sources and kept in
 * the database. A header is believed only through the consensus rules (header-chain.ts), whichever
 * source sent it; a source that sends one the rules refuse is named, counted and ignored for a
 * while, one whose tip lags the best verified tip is reported behind.
 */
export function createVerifiedHeaders(deps: VerifiedHeadersDeps) {
  const { rules, checkpoint, db, clock, network } = deps;
  const log = deps.logger.child({ component: 'btc-headers', network });
  const maxRequests = deps.maxRequestsPerSync ?? 60;
  const genesis = checkpoint.height === GENESIS_CHECKPOINT.height;
  const trustedFrom = genesis ? 0 : checkpoint.height - RETARGET_INTERVAL + 1;
  const sources: SourceState[] = deps.sources.map((s) => ({
    ...s,
    status: { source: s.label, state: 'unknown', tip_height: null, problem: null },
    ignoredUntil: 0,
    invalidSince: null,
    claimedHeight: null,
  }));
  let chain: HeaderChain | null = genesis ? new HeaderChain(rules, checkpoint, []) : null;
  /** The trusted interval while a first sync downloads it. */
  let trusted: SourceHeader[] = [];
  let loaded = false;
  /** Lowest height of the best chain changed since the last save. */
  let dirtyFrom: number | null = null;
  let synced = false;
  let lastProgressLog = Number.NEGATIVE_INFINITY;

  function noteChange(outcome: HeaderOutcome): void {
    if (outcome.kind === 'extended') dirtyFrom = Math.min(dirtyFrom ?? Infinity, outcome.tip.height);
    if (outcome.kind === 'reorg') {
      dirtyFrom = Math.min(dirtyFrom ?? Infinity, outcome.forkHeight + 1);
      log.warn('btc header chain reorganised', { fork_height: outcome.forkHeight, tip_height: outcome.tip.height, tip: outcome.tip.hash });
    }
  }

  async function load(): Promise<void> {
    const rows = await loadHeaders(db, network);
    if (!rows.length) return;
    let rest = rows;
    if (!genesis) {
      const first = rows.slice(0, RETARGET_INTERVAL);
      try {
        if (first[0].height !== trustedFrom) throw new Error('stored chain starts elsewhere');
        chain = new HeaderChain(rules, checkpoint, first.map((r) => r.header));
      } catch {
        // A release with a newer checkpoint: the stored chain is downloaded again from it.
        log.info('btc header chain stored from another checkpoint; syncing again', { checkpoint_height: checkpoint.height });
        await clearHeaders(db, network);
        return;
      }
      rest = rows.slice(RETARGET_INTERVAL);
    }
    for (const row of rest) {
      try {
        chain!.add(row.header, clock.now());
      } catch (error) {
        log.warn('btc stored header refused; dropping it and those above', { height: row.height, error: String(error) });
        await saveHeaders(db, network, row.height, []);
        break;
      }
    }
    log.info('btc header chain loaded', { height: chain?.tip?.height ?? null });
  }

  async function save(): Promise<void> {
    if (dirtyFrom === null || !chain) return;
    const from = dirtyFrom;
    await saveHeaders(
      db,
      network,
      from,
      chain.bestAbove(from - 1).map((e) => ({ height: e.height, raw: e.raw })),
    );
    dirtyFrom = null;
  }

  /** One source's sync, within its request allowance. */
  function sourceSync(s: SourceState) {
    let requests = 0;
    const ask = async <T>(question: () => Promise<T>): Promise<T> => {
      if (requests >= maxRequests) throw new OutOfRequests();
      requests++;
      return question();
    };

    /** Downloads the checkpoint's interval; every header must link up to the checkpoint. */
    async function bootstrap(): Promise<void> {
      while (trusted.length < RETARGET_INTERVAL) {
        const from = trustedFrom + trusted.length;
        const page = await pageFrom(from, checkpoint.height);
        trusted.push(...page);
      }
      try {
        chain = new HeaderChain(
          rules,
          checkpoint,
          trusted.map((h) => h.raw),
        );
      } finally {
        trusted = [];
      }
      dirtyFrom = trustedFrom;
    }

    /** Headers `from`..`to` (at most one page), in height order, as the source claims them. */
    async function pageFrom(from: number, to: number): Promise<SourceHeader[]> {
      const top = Math.min(from + 9, to);
      const page = (await ask(() => s.headers.headersDownFrom(top))).filter((h) => h.height >= from && h.height <= top).sort((a, b) => a.height - b.height);
      if (!page.length || page[0].height !== from) throw new Error(`no header at height ${from} in its answer`);
      return page;
    }

    /** Adds `head` after fetching, by hash, its ancestors we do not know yet (a reorg). */
    async function connect(head: SourceHeader): Promise<void> {
      const pending = [head];
      for (;;) {
        const prevHash = parseHeader(pending[pending.length - 1].raw).prevHash;
        if (chain!.byHashOf(prevHash) || (genesis && prevHash === GENESIS_CHECKPOINT.hash)) break;
        if (pending.length > MAX_WALK_BACK) break; // the add below refuses it: it does not link
        const parent = await ask(() => s.headers.headerOf(prevHash));
        if (!parent) break;
        pending.push(parent);
      }
      for (let i = pending.length - 1; i >= 0; i--) noteChange(chain!.add(pending[i].raw, clock.now()));
    }

    async function catchUp(to: number): Promise<void> {
      while (chain!.tip === null || chain!.tip.height < to) {
        const page = await pageFrom(chain!.tip ? chain!.tip.height + 1 : 0, to);
        const [first, ...others] = page;
        await connect(first);
        for (const header of others) noteChange(chain!.add(header.raw, clock.now()));
        logProgress(to);
      }
    }

    return async function run(primary: boolean): Promise<boolean> {
      const tipHash = await ask(() => s.headers.tipHash());
      if (!chain) await bootstrap();
      if (!chain!.byHashOf(tipHash)) {
        const head = await ask(() => s.headers.headerOf(tipHash));
        if (!head) throw new Error(`tip ${tipHash} is not served`);
        s.claimedHeight = head.height;
        const ours = chain!.tip?.height ?? -1;
        if (head.height > ours + FOLLOW_BY_HASH) await catchUp(head.height - 1);
        await connect(head);
      }
      const tip = chain!.byHashOf(tipHash);
      if (!tip) throw new HeaderRejected('unknown-parent', tipHash, 'its tip does not link to the verified chain');
      // Two branches of equal work: the first source's node chose one; it is as good as ours.
      const tie = primary ? chain!.preferOnTie(tipHash) : null;
      if (tie) noteChange(tie);
      s.claimedHeight = tip.height;
      const best = chain!.tip!;
      const behind = !chain!.onBestChain(tipHash) || tip.height < best.height;
      s.invalidSince = null;
      s.status = { source: s.label, state: behind ? 'behind' : 'ok', tip_height: tip.height, problem: behind ? `tip ${tip.height} is behind the best verified tip ${best.height}` : null };
      return true;
    };
  }

  function logProgress(target: number): void {
    if (clock.now() - lastProgressLog < PROGRESS_EVERY_MS) return;
    lastProgressLog = clock.now();
    log.info('btc header chain syncing', { height: chain?.tip?.height ?? null, target_height: target });
  }

  function markInvalid(s: SourceState, reason: string, message: string): void {
    s.ignoredUntil = clock.now() + IGNORE_INVALID_MS;
    s.invalidSince ??= clock.now();
    s.status = { source: s.label, state: 'invalid', tip_height: null, problem: message };
    deps.onRejected?.(s.label, reason);
    log.warn('btc source served data that failed verification; ignoring it for a while', { source: s.label, reason, error: message });
  }

  /** Sources that served data failing verification and have not served a valid tip since, named with what failed. */
  function problemOf(): { reason: string; since: number } | null {
    const bad = sources.filter((s) => s.invalidSince !== null);
    if (!bad.length) return null;
    return { reason: bad.map((s) => `${s.label} ${s.status.problem}`).join('; '), since: Math.min(...bad.map((s) => s.invalidSince!)) };
  }

  function usable(s: SourceState): boolean {
    return clock.now() >= s.ignoredUntil;
  }

  return {
    /**
     * Brings the chain up to every usable source's tip, each within its request allowance. Throws
     * when no source answered. Returns whether the chain is synced: every answering source's tip is
     * a verified header.
     */
    async sync(): Promise<boolean> {
      if (!loaded) {
        await load();
        loaded = true;
      }
      let answered = 0;
      let caughtUp = true;
      let lastError: unknown = null;
      let first = true;
      for (const s of sources) {
        if (!usable(s)) continue;
        const primary = first;
        first = false;
        try {
          await sourceSync(s)(primary);
          answered++;
        } catch (error) {
          if (error instanceof OutOfRequests) {
            answered++;
            caughtUp = false;
          } else if (error instanceof HeaderRejected) {
            markInvalid(s, error.code, `served an invalid header: ${error.message}`);
            lastError = error;
          } else {
            s.status = { ...s.status, state: 'unreachable', problem: error instanceof Error ? error.message : String(error) };
            lastError = error;
          }
        }
      }
      await save();
      if (!answered) throw lastError instanceof Error ? lastError : new Error(`no usable Bitcoin source: ${problemOf()?.reason ?? 'none answers'}`);
      if (caughtUp && !synced) log.info('btc header chain synced', { height: chain?.tip?.height ?? null });
      synced = caughtUp && chain?.tip != null;
      return synced;
    },
    /** The chain as verified so far; null before the checkpoint's interval is in. */
    chain: () => chain,
    /** A source served a block body that does not match its verified header. */
    rejectBlock(label: string, message: string): void {
      const s = sources.find((x) => x.label === label);
      if (s) markInvalid(s, 'block-mismatch', `served a block that does not match its verified header: ${message}`);
    },
    usableSources: () => sources.filter(usable).map((s) => s.label),
    status(): HeaderChainStatus {
      const height = chain?.tip?.height ?? null;
      const claimed = sources.map((s) => s.claimedHeight ?? -1);
      const target = Math.max(height ?? -1, ...claimed);
      return {
        network,
        height,
        target_height: target < 0 ? null : target,
        synced,
        checkpoint_height: checkpoint.height,
        sources: sources.map((s) => ({ ...s.status })),
      };
    },
    problem: problemOf,
  };
}

export type VerifiedHeaders = ReturnType<typeof createVerifiedHeaders>;
