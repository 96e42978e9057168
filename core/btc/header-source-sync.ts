import type { Clock } from '../clock.ts';
import { GENESIS_CHECKPOINT, HeaderRejected, parseHeader, type ChainEntry, type HeaderChain } from './header-chain.ts';
import type { HeaderSource, SourceHeader } from './header-source.ts';
import type { StoredHeaderChain } from './stored-header-chain.ts';

/** A source this close above our tip is followed header by header (by hash); further, by height pages. */
const FOLLOW_BY_HASH = 6;
/** Deepest reorg followed by walking back from a tip by hash. */
const MAX_WALK_BACK = 144;

/** A source's sync used up its request allowance: it answered, the chain is just not caught up yet. */
export class OutOfRequests extends Error {}

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

/** One source's sync: the source, and the requests sent to it so far. */
interface SourceRun {
  ctx: HeaderSyncContext;
  headers: HeaderSource;
  requests: number;
}

function ask<T>(run: SourceRun, question: (headers: HeaderSource) => Promise<T>): Promise<T> {
  if (run.requests >= run.ctx.maxRequests) throw new OutOfRequests();
  run.requests++;
  return question(run.headers);
}

/** The chain once `bootstrap` or the store made it (a sync asks for no header before then). */
function chainOf(run: SourceRun): HeaderChain {
  return run.ctx.store.chain()!;
}

/** Headers `from`..`to` (at most one page), in height order, as the source claims them. */
async function pageFrom(run: SourceRun, from: number, to: number): Promise<SourceHeader[]> {
  const top = Math.min(from + 9, to);
  const page = (await ask(run, (h) => h.headersDownFrom(top))).filter((h) => h.height >= from && h.height <= top).sort((a, b) => a.height - b.height);
  if (!page.length || page[0].height !== from) throw new Error(`no header at height ${from} in its answer`);
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

/** Adds `head` after fetching, by hash, its ancestors we do not know yet (a reorg). */
async function connect(run: SourceRun, head: SourceHeader): Promise<void> {
  const { store, clock } = run.ctx;
  const chain = chainOf(run);
  const pending = [head];
  for (;;) {
    const prevHash = parseHeader(pending[pending.length - 1].raw).prevHash;
    if (chain.byHashOf(prevHash) || (store.genesis && prevHash === GENESIS_CHECKPOINT.hash)) break;
    if (pending.length > MAX_WALK_BACK) break; // the add below refuses it: it does not link
    const parent = await ask(run, (h) => h.headerOf(prevHash));
    if (!parent) break;
    pending.push(parent);
  }
  for (let i = pending.length - 1; i >= 0; i--) store.noteChange(chain.add(pending[i].raw, clock.now()));
}

async function catchUp(run: SourceRun, to: number): Promise<void> {
  const { store, clock } = run.ctx;
  const chain = chainOf(run);
  while (chain.tip === null || chain.tip.height < to) {
    const page = await pageFrom(run, chain.tip ? chain.tip.height + 1 : 0, to);
    const [first, ...others] = page;
    await connect(run, first);
    for (const header of others) store.noteChange(chain.add(header.raw, clock.now()));
    run.ctx.logProgress(to);
  }
}

/**
 * Brings the chain up to one source's tip, within the request allowance (OutOfRequests when it runs
 * out first). `claim` hears the height the source claims for its tip as soon as it is known. The
 * primary source settles ties: of two branches of equal work, its node chose one, as good as ours.
 */
export async function syncFromSource(ctx: HeaderSyncContext, headers: HeaderSource, primary: boolean, claim: (height: number) => void): Promise<SourceTip> {
  const run: SourceRun = { ctx, headers, requests: 0 };
  const tipHash = await ask(run, (h) => h.tipHash());
  if (!ctx.store.chain()) await bootstrap(run);
  const chain = chainOf(run);
  if (!chain.byHashOf(tipHash)) {
    const head = await ask(run, (h) => h.headerOf(tipHash));
    if (!head) throw new Error(`tip ${tipHash} is not served`);
    claim(head.height);
    const ours = chain.tip?.height ?? -1;
    if (head.height > ours + FOLLOW_BY_HASH) await catchUp(run, head.height - 1);
    await connect(run, head);
  }
  const tip = chain.byHashOf(tipHash);
  if (!tip) throw new HeaderRejected('unknown-parent', tipHash, 'its tip does not link to the verified chain');
  const tie = primary ? chain.preferOnTie(tipHash) : null;
  if (tie) ctx.store.noteChange(tie);
  claim(tip.height);
  const best = chain.tip!;
  return { tip, best, behind: !chain.onBestChain(tipHash) || tip.height < best.height };
}
