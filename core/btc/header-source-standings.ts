import type { Clock } from '../clock.ts';
import type { Logger } from '../log.ts';
import type { HeaderSource } from './header-source.ts';
import type { SourceTip } from './header-source-sync.ts';

/** One source's standing, as /health shows it. */
export interface HeaderSourceStatus {
  /** Scheme, host and port of its URL (never a path, which may hold an API key). */
  source: string;
  /**
   * `syncing`: the chain is still being brought up to its tip (or it was not asked yet). `ok`: its
   * tip is the best verified tip. `behind`: its tip is a verified header below the best one (or on
   * a lighter branch): it may be slow, or withholding blocks. `invalid`: it served a header or
   * block that failed verification; `unproven-tip`: the tip it claims does not link to the verified
   * chain (unknown ancestry, ancestors it does not serve, a walk back that used its allowance);
   * either is set aside for a while. `unreachable`: it did not answer. (`unknown` is no longer given.)
   */
  state: 'syncing' | 'ok' | 'behind' | 'invalid' | 'unproven-tip' | 'unreachable' | 'unknown';
  tip_height: number | null;
  problem: string | null;
}

export interface NamedHeaderSource {
  label: string;
  headers: HeaderSource;
  /** Lets its request budget sprint while the chain syncs (off again after each pass). */
  sprint?(on: boolean): void;
}

export interface SourceState extends NamedHeaderSource {
  status: HeaderSourceStatus;
  ignoredUntil: number;
  /** Since when it has stood invalid or unproven (cleared once it serves a valid tip again). */
  invalidSince: number | null;
  claimedHeight: number | null;
  /** Times in a row it was set aside (back to 0 once it serves a valid tip): each doubles the next set-aside. */
  strikes: number;
}

export interface SourceStandingsDeps {
  clock: Clock;
  log: Logger;
  /** A source served something that failed verification (the metrics count it). */
  onRejected?(source: string, reason: string): void;
}

/** A source that lied is not asked again for this long (it stays named in /health meanwhile); doubled each time again, up to a day. */
const IGNORE_INVALID_MS = 10 * 60_000;
const MAX_IGNORE_MS = 24 * 3_600_000;

/** How each header source stands: syncing, ok, behind, invalid or unproven (either ignored for a while), or unreachable. */
export function createSourceStandings(named: NamedHeaderSource[], deps: SourceStandingsDeps) {
  const { clock, log } = deps;
  const sources: SourceState[] = named.map((s) => ({
    ...s,
    status: { source: s.label, state: 'syncing', tip_height: null, problem: null },
    ignoredUntil: 0,
    invalidSince: null,
    claimedHeight: null,
    strikes: 0,
  }));

  function usable(s: SourceState): boolean {
    return clock.now() >= s.ignoredUntil;
  }

  function setAside(s: SourceState, state: 'invalid' | 'unproven-tip', reason: string, message: string): void {
    // Asking a liar again costs a pass up to its whole allowance (a walk back): a repeated liar is asked ever less often.
    s.ignoredUntil = clock.now() + Math.min(MAX_IGNORE_MS, IGNORE_INVALID_MS * 2 ** s.strikes);
    s.strikes++;
    s.invalidSince ??= clock.now();
    s.status = { source: s.label, state, tip_height: null, problem: message };
    deps.onRejected?.(s.label, reason);
    log.warn(`btc source ${state === 'invalid' ? 'served data that failed verification' : 'claims a tip it cannot prove'}; ignoring it for a while`, { source: s.label, reason, error: message });
  }
  const markInvalid = (s: SourceState, reason: string, message: string) => setAside(s, 'invalid', reason, message);

  return {
    sources,
    usable,
    markInvalid,
    /** Its tip is a verified header: ok, or behind the best one. */
    markVerified(s: SourceState, { tip, best, behind }: SourceTip): void {
      s.invalidSince = null;
      s.strikes = 0;
      s.status = { source: s.label, state: behind ? 'behind' : 'ok', tip_height: tip.height, problem: behind ? `tip ${tip.height} is behind the best verified tip ${best.height}` : null };
    },
    /** Its claimed tip does not link to the verified chain: set aside like an invalid one. */
    markUnproven(s: SourceState, message: string): void {
      setAside(s, 'unproven-tip', 'unproven-tip', `claims a tip it cannot prove: ${message}`);
    },
    /** It answered, and the chain is still being brought up to its tip. */
    markSyncing(s: SourceState): void {
      s.status = { source: s.label, state: 'syncing', tip_height: null, problem: null };
    },
    markUnreachable(s: SourceState, error: unknown): void {
      s.status = { ...s.status, state: 'unreachable', problem: error instanceof Error ? error.message : String(error) };
    },
    byLabel: (label: string): SourceState | undefined => sources.find((x) => x.label === label),
    /**
     * Sources that served data failing verification or claim a tip they cannot prove, and have not
     * served a valid tip since, named with what failed; `kind` is the first one's.
     */
    problem(): { kind: 'invalid-source' | 'unproven-tip'; reason: string; since: number } | null {
      const bad = sources.filter((s) => s.invalidSince !== null);
      if (!bad.length) return null;
      return {
        kind: bad[0].status.state === 'unproven-tip' ? 'unproven-tip' : 'invalid-source',
        reason: bad.map((s) => `${s.label} ${s.status.problem}`).join('; '),
        since: Math.min(...bad.map((s) => s.invalidSince!)),
      };
    },
  };
}

export type SourceStandings = ReturnType<typeof createSourceStandings>;
