import type { Disagreement } from './agreement.ts';
import type { BlockHeader, TransferLog } from './chain.ts';

/** What one source's scan of a block range found: its logs, and its headers of the blocks any source reported a log in. */
export interface ScanView {
  source: string;
  /** The last block its scan covered (its own head, when below the range end). */
  reached: number;
  logs: readonly TransferLog[];
  /** Its header at each block number asked (null: it does not have the block). */
  headers: ReadonlyMap<number, BlockHeader | null>;
}

interface ScanRule {
  /** Sources that must report the same log, in the same block with the same time, before it is recorded. */
  quorum: number;
  /** Sources that may still vote: the configured ones that were not refused, heard this pass or not. */
  voters: number;
  /** The deepest block that is not the tip (the required confirmations below the head): there a fork or a missing log is no race, and is named. */
  deepest: number;
}

interface ScanVerdict {
  /** The logs enough sources report, each with the header those sources agree on (its time is the block's). */
  agreed: Array<{ log: TransferLog; header: BlockHeader }>;
  /** The lowest block holding a log that sources not heard yet could still make agreed: the range must end below it. */
  holdAt: number | null;
  /** Who left out what enough others report, or reported what the others, at the same block, do not. */
  disagreements: Disagreement[];
}

/** A header as sources must agree on it: its hash and its time (a time is a money fact: it decides whether a payment beat the expiry). */
const headerIdentity = (header: BlockHeader) => `${header.hash} ${header.time}`;

const logIdentity = (log: TransferLog, header: BlockHeader) =>
  [log.txHash, log.logIndex, log.blockNumber, log.token, log.from, log.to, log.value, headerIdentity(header)].join(' ');

const iso = (ms: number) => new Date(ms).toISOString();

const what = (log: TransferLog) => `transfer ${log.txHash} log ${log.logIndex} in block ${log.blockNumber}`;

interface Candidate {
  log: TransferLog;
  header: BlockHeader;
  reporters: string[];
}

/** Each distinct log any source reports, in a block its own header confirms, with who reports it. */
function candidatesOf(views: readonly ScanView[]): Candidate[] {
  const byIdentity = new Map<string, Candidate>();
  for (const view of views) {
    for (const log of view.logs) {
      const header = view.headers.get(log.blockNumber);
      if (!header || header.hash !== log.blockHash) continue;
      const key = logIdentity(log, header);
      const candidate = byIdentity.get(key) ?? { log, header, reporters: [] };
      if (!candidate.reporters.includes(view.source)) candidate.reporters.push(view.source);
      byIdentity.set(key, candidate);
    }
  }
  return [...byIdentity.values()];
}

/** The sources' headers at one height, grouped by identity, largest group first. */
function headerGroups(views: readonly ScanView[], number: number): Array<{ header: BlockHeader; sources: string[] }> {
  const groups = new Map<string, { header: BlockHeader; sources: string[] }>();
  for (const view of views) {
    const header = view.reached >= number ? view.headers.get(number) : undefined;
    if (!header) continue;
    const group = groups.get(headerIdentity(header)) ?? { header, sources: [] };
    group.sources.push(view.source);
    groups.set(headerIdentity(header), group);
  }
  return [...groups.values()].sort((a, b) => b.sources.length - a.sources.length);
}

/**
 * Judges one block range scanned on every source heard: a log counts when `quorum` sources report
 * it identically, whichever is listed first; a source that saw the same block at depth and left it
 * out is named. A log fewer report holds the range while it is at the tip or sources not heard
 * could still make it agreed; at depth it is refuted when the sources that saw its block outvote
 * it (its reporters are named when they are not more than those). Pure.
 */
export function judgeScan(views: readonly ScanView[], rule: ScanRule): ScanVerdict {
  const agreed: ScanVerdict['agreed'] = [];
  const disagreements: Disagreement[] = [];
  let holdAt: number | null = null;
  for (const candidate of candidatesOf(views)) {
    const { log, header, reporters } = candidate;
    const groups = headerGroups(views, log.blockNumber);
    const sameBlock = groups.find((g) => headerIdentity(g.header) === headerIdentity(header))?.sources ?? [];
    const deniers = sameBlock.filter((source) => !reporters.includes(source));
    const atTip = log.blockNumber > rule.deepest;
    if (reporters.length >= rule.quorum) {
      agreed.push({ log, header });
      // At the tip a source's log index may lag its head; settlement asks it again at depth.
      if (!atTip) for (const source of deniers) disagreements.push({ source, reason: `does not report ${what(log)} that ${reporters.join(', ')} report` });
      continue;
    }
    const agreedBlock = groups[0] && groups[0].sources.length >= rule.quorum ? groups[0] : null;
    // On a block the others agree is not the chain's: the fork is named below, at depth.
    if (agreedBlock && headerIdentity(agreedBlock.header) !== headerIdentity(header)) continue;
    const unheard = rule.voters - reporters.length - deniers.length;
    // A denial counts only at depth: at the tip it may be a source whose logs lag its head.
    const undecided = atTip ? reporters.length + deniers.length + unheard >= rule.quorum : unheard > 0 && reporters.length + unheard >= rule.quorum;
    if (undecided) {
      holdAt = Math.min(holdAt ?? log.blockNumber, log.blockNumber);
    } else if (reporters.length <= deniers.length) {
      // A source cannot prove a log absent, but a made-up log is the attack: on a tie the reporters are named.
      for (const source of reporters) disagreements.push({ source, reason: `reports ${what(log)} that ${deniers.join(', ') || 'no other source'} do not` });
    } else {
      for (const source of deniers) disagreements.push({ source, reason: `does not report ${what(log)} that ${reporters.join(', ')} report` });
    }
  }
  return { agreed, holdAt, disagreements: [...disagreements, ...forksAtDepth(views, rule)] };
}

/** Sources on another block than the most sources, at a height a log was reported in and deep enough not to be a race; everyone on a tie. */
function forksAtDepth(views: readonly ScanView[], rule: ScanRule): Disagreement[] {
  const heights = [...new Set(views.flatMap((view) => view.logs.map((log) => log.blockNumber)))].filter((n) => n <= rule.deepest);
  const named: Disagreement[] = [];
  for (const number of heights) {
    const groups = headerGroups(views, number);
    if (groups.length < 2) continue;
    const most = groups[0]!.sources.length;
    const tie = groups.every((g) => g.sources.length === most);
    for (const group of groups) {
      if (!tie && group.sources.length === most) continue;
      const others = groups.filter((g) => g !== group);
      const theirs = others[0]!.header;
      // Same hash, another time: the header is a lie about the block's time (the hash commits to it).
      const [claim, against] = theirs.hash === group.header.hash ? [`time ${iso(group.header.time)} for block ${group.header.hash}`, iso(theirs.time)] : [`block ${group.header.hash}`, theirs.hash];
      for (const source of group.sources) {
        named.push({ source, reason: `reports ${claim} at height ${number} where ${others.flatMap((g) => g.sources).join(', ')} report ${against}` });
      }
    }
  }
  return named;
}

/** The highest value at least `quorum` of the answers reach (the quorum-th highest); null with fewer answers. */
export function quorumValue(values: readonly number[], quorum: number): number | null {
  const sorted = [...values].sort((a, b) => b - a);
  return sorted.length >= quorum ? sorted[quorum - 1]! : null;
}

/** The header at least `quorum` of the answers agree on (hash and time); null when none has that many. */
export function agreedHeader(answers: ReadonlyArray<BlockHeader | null>, quorum: number): BlockHeader | null {
  const counts = new Map<string, { header: BlockHeader; count: number }>();
  for (const header of answers) {
    if (!header) continue;
    const entry = counts.get(headerIdentity(header)) ?? { header, count: 0 };
    entry.count++;
    counts.set(headerIdentity(header), entry);
  }
  return [...counts.values()].find((entry) => entry.count >= quorum)?.header ?? null;
}
