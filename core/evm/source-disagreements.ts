import type { Clock } from '../clock.ts';
import type { Logger } from '../log.ts';
import type { WatchObserver, WatcherProblem } from '../watch-progress.ts';
import type { Disagreement } from './agreement.ts';

/** A source named in /health for reporting what the chain's other sources do not. */
export interface SourceDisagreement {
  source: string;
  reason: string;
  /** ISO time it was last seen disagreeing. */
  at: string;
}

/** How long a source stays named in /health after it last disagreed. */
const DISAGREEMENT_SHOWN_MS = 3_600_000;

/**
 * The last disagreement of each source of one chain: logged once per reason, counted in the
 * metrics every time, and shown in /health (and as a `disagreeing` problem) for an hour after the last.
 */
export function createSourceDisagreements(deps: { chain: string; clock: Clock; logger: Pick<Logger, 'warn'>; observer?: Pick<WatchObserver, 'sourceDisagreed'> }) {
  const last = new Map<string, { reason: string; at: number }>();

  /** Who disagreed within the hour, most recent first. */
  function current(): SourceDisagreement[] {
    const since = deps.clock.now() - DISAGREEMENT_SHOWN_MS;
    return [...last]
      .filter(([, d]) => d.at >= since)
      .sort(([, a], [, b]) => b.at - a.at)
      .map(([source, d]) => ({ source, reason: d.reason, at: new Date(d.at).toISOString() }));
  }

  return {
    record(disagreement: Disagreement) {
      if (last.get(disagreement.source)?.reason !== disagreement.reason) {
        deps.logger.warn(`${deps.chain}: RPC sources disagree; nothing one source alone reports is counted`, { source: disagreement.source, reason: disagreement.reason });
      }
      last.set(disagreement.source, { reason: disagreement.reason, at: deps.clock.now() });
      deps.observer?.sourceDisagreed?.(disagreement.source);
    },
    current,
    /** The most recent disagreement as a /health problem of `component`: a lying source is an alarm, not a detail. */
    problem(component: string): WatcherProblem | null {
      const [latest] = current();
      return latest ? { component, kind: 'disagreeing', reason: `RPC sources disagree: ${latest.source} ${latest.reason}`, since: latest.at } : null;
    },
  };
}

export type SourceDisagreements = ReturnType<typeof createSourceDisagreements>;
