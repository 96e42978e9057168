import type { Clock } from '../clock.ts';
import { GENESIS_CHECKPOINT, parseHeader, type ChainEntry, type HeaderChain } from './header-chain.ts';
import type { HeaderSource, SourceHeader } from './header-source.ts';
import type { StoredHeaderChain } from './stored-header-chain.ts';

/** A source this close above our tip is followed header by header (by hash); further, by height pages. */
const FOLLOW_BY_HASH = 6;
/** Deepest reorg followed by walking back from a tip by hash. */
const MAX_WALK_BACK = 144;

/** A source's sync used up its request allowance while its headers still extended the chain: not caught up yet. */
export class OutOfRequests extends Error {}

/**
 * A source's claimed tip could not be proven: walking back from it (by hash) found no verified
 * ancestor within the reorg limit or the request allowance, or the source does not serve its own
 * tip's ancestors. Treated as a lie: the source is set aside, the others carry the sync.
 */
export class UnprovenTip extends Error {}

export interface HeaderSyncContext {
  store: StoredHeaderChain;
  /** The checkpoint's height: the top of the interval a first sync downloads. */
  checkpointHeight: number;
  clock: Clock;
  /** Requests one sync may send to one source. */
  maxRequests: number;
  /** Called after each page while catching up to `target`. */
  logProgress(target: number): void;
}

/** Where a source's tip stands against the best verified tip. */
export interface SourceTip {
  tip: ChainEntry;
  best: ChainEntry;
  behind: boolean;
}

/** One source's sync in one pass: the source, and the requests sent to it so far. */
export interface SourceRun {
  ctx: HeaderSyncContext;
  headers: HeaderSource;
  requests: number;
}

/** What a source claims for its tip: its hash, and its header when the chain does not hold it yet. */
export interface TipClaim {
  hash: string;
  head: SourceHeader | null;
}

export function ask<T>(run: SourceRun, question: (headers: HeaderSource) => Promise<T>): Promise<T> {
  if (run.requests >= run.ctx.maxRequests) throw new OutOfRequests();
  run.requests++;
  return question(run.headers);
}

/** The chain once `bootstrap` or the store made it (a sync asks for no header before then). */
function chainOf(run: SourceRun): HeaderChain {
  return run.ctx.store.chain()!;
}

/** Headers `from`..`to` (at most one page), in height order, as the source claims them. */
export async function pageFrom(run: SourceRun, from: number, to: number): Promise<SourceHeader[]> {
  const top = Math.min(from + 9, to);
  const page = (await ask(run, (h) => h.headersDownFrom(top))).filter((h) => h.height >= from && h.height <= top).sort((a, b) => a.height - b.height);
  // Below the tip it claims, a source serves every height: one it leaves out proves nothing of that tip.
  if (!page.length || page[0].height !== from) throw new UnprovenTip(`no header at height ${from} in its answer, below the tip it claims`);
  return page;
}

/** Downloads the checkpoint's interval; every header must link up to the checkpoint. */
async function bootstrap(run: SourceRun): Promise<void> {
  const { store, checkpointHeight } = run.ctx;
  for (let from = store.nextTrustedHeight(); from !== null; from = store.nextTrustedHeight()) {
    store.addTrusted(await pageFrom(run, from, checkpointHeight));
  }
  store.installTrusted();
}

/** Adds `head` after fetching, by hash, its ancestors we do not know yet (a reorg); UnprovenTip when none links. */
export async function connect(run: SourceRun, head: SourceHeader): Promise<void> {
  const { store, clock } = run.ctx;
  const chain = chainOf(run);
  const pending = [head];
  for (;;) {
    const prevHash = parseHeader(pending[pending.length - 1].raw).prevHash;
    if (chain.byHashOf(prevHash) || (store.genesis && prevHash === GENESIS_CHECKPOINT.hash)) break;
    if (pending.length > MAX_WALK_BACK) throw new UnprovenTip(`no verified ancestor of header ${parseHeader(head.raw).hash} (height ${head.height}) within ${MAX_WALK_BACK} headers`);
    const parent = await walkBackStep(run, prevHash, head);
    pending.push(parent);
  }
  for (let i = pending.length - 1; i >= 0; i--) store.noteChange(chain.add(pending[i].raw, clock.now()));
}

/** The parent `prevHash` of a header being walked back from; running out of requests here proves nothing of the tip. */
async function walkBackStep(run: SourceRun, prevHash: string, head: SourceHeader): Promise<SourceHeader> {
  const claimed = `header ${parseHeader(head.raw).hash} (height ${head.height})`;
  let parent: SourceHeader | null;
  try {
    parent = await ask(run, (h) => h.headerOf(prevHash));
  } catch (error) {
    if (error instanceof OutOfRequests) throw new UnprovenTip(`walking back from ${claimed} used up its ${run.ctx.maxRequests} requests without reaching a verified header`);
    throw error;
  }
  if (!parent) throw new UnprovenTip(`it does not serve ${prevHash}, an ancestor of its ${claimed}`);
  return parent;
}

/**
 * What a source claims for its tip (the checkpoint's interval downloaded first on a first sync);
 * `claim` hears the height as soon as it is known.
 */
export async function claimTip(run: SourceRun, claim: (height: number) => void): Promise<TipClaim> {
  const hash = await ask(run, (h) => h.tipHash());
  if (!run.ctx.store.chain()) await bootstrap(run);
  const known = chainOf(run).byHashOf(hash);
  if (known) {
    claim(known.height);
    return { hash, head: null };
  }
  const head = await ask(run, (h) => h.headerOf(hash));
  if (!head) throw new Error(`tip ${hash} is not served`);
  claim(head.height);
  return { hash, head };
}

/** Height to which pages by height bring the chain before a source's tip is followed by hash; null when none are needed. */
export function pagesTarget(run: SourceRun, tip: TipClaim): number | null {
  if (!tip.head) return null;
  const ours = chainOf(run).tip?.height ?? -1;
  return tip.head.height > ours + FOLLOW_BY_HASH ? tip.head.height - 1 : null;
}

/** Adds one page in height order: its first header is connected (walking back on a reorg), the rest follow it. */
export async function addPage(run: SourceRun, page: SourceHeader[]): Promise<void> {
  const [first, ...others] = page;
  await connect(run, first);
  for (const header of others) run.ctx.store.noteChange(chainOf(run).add(header.raw, run.ctx.clock.now()));
}

/**
 * Proves a source's tip once the pages brought the chain near it: its header connected and on the
 * verified chain. The primary source settles ties: of two branches of equal work, its node chose
 * one, as good as ours.
 */
export async function proveTip(run: SourceRun, tip: TipClaim, primary: boolean): Promise<SourceTip> {
  const chain = chainOf(run);
  if (tip.head && !chain.byHashOf(tip.hash)) {
    const ours = chain.tip?.height ?? -1;
    // Still far below it (its pages were not all in this pass): the next pass goes on.
    if (tip.head.height > ours + FOLLOW_BY_HASH) throw new OutOfRequests();
    await connect(run, tip.head);
  }
  const entry = chain.byHashOf(tip.hash);
  if (!entry) throw new UnprovenTip(`its tip ${tip.hash} does not link to the verified chain`);
  const tie = primary ? chain.preferOnTie(tip.hash) : null;
  if (tie) run.ctx.store.noteChange(tie);
  const best = chain.tip!;
  return { tip: entry, best, behind: !chain.onBestChain(tip.hash) || entry.height < best.height };
}
