import type { Kysely } from 'kysely';
import type { Clock } from '../clock.ts';
import type { Logger } from '../log.ts';
import type { CoreTables } from '../schema.ts';
import { clearHeaders, loadHeaders, saveHeaders } from './btc-headers.repository.ts';
import { GENESIS_CHECKPOINT, HeaderChain, RETARGET_INTERVAL, type Checkpoint, type HeaderOutcome, type HeaderRules } from './header-chain.ts';
import type { SourceHeader } from './header-source.ts';

export interface StoredHeaderChainDeps {
  network: string;
  rules: HeaderRules;
  checkpoint: Checkpoint;
  db: Kysely<CoreTables>;
  clock: Clock;
  log: Logger;
}

/**
 * One network's verified header chain as held in memory and in the database: loaded once, saved
 * from the lowest height changed since the last save. Before the checkpoint's interval is in (a
 * first sync from a checkpoint) there is no chain yet, only the part of the interval downloaded so
 * far, which every source's sync adds to.
 */
export function createStoredHeaderChain(deps: StoredHeaderChainDeps) {
  const { rules, checkpoint, db, network, log } = deps;
  const genesis = checkpoint.height === GENESIS_CHECKPOINT.height;
  const trustedFrom = genesis ? 0 : checkpoint.height - RETARGET_INTERVAL + 1;
  let chain: HeaderChain | null = genesis ? new HeaderChain(rules, checkpoint, []) : null;
  /** The trusted interval while a first sync downloads it. */
  let trusted: SourceHeader[] = [];
  /** Lowest height of the best chain changed since the last save. */
  let dirtyFrom: number | null = null;

  function noteChange(outcome: HeaderOutcome): void {
    if (outcome.kind === 'extended') dirtyFrom = Math.min(dirtyFrom ?? Infinity, outcome.tip.height);
    if (outcome.kind === 'reorg') {
      dirtyFrom = Math.min(dirtyFrom ?? Infinity, outcome.forkHeight + 1);
      log.warn('btc header chain reorganised', { fork_height: outcome.forkHeight, tip_height: outcome.tip.height, tip: outcome.tip.hash });
    }
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

  return {
    /** From the genesis block on, every header is checked (no checkpoint interval to download). */
    genesis,
    /** The chain as verified so far; null before the checkpoint's interval is in. */
    chain: () => chain,
    noteChange,
    async load(): Promise<void> {
      chain = await loadStoredChain(deps, chain);
    },
    save,
    /** Next height of the checkpoint's interval to download; null once all of it is in. */
    nextTrustedHeight: (): number | null => (trusted.length < RETARGET_INTERVAL ? trustedFrom + trusted.length : null),
    addTrusted(page: SourceHeader[]): void {
      trusted.push(...page);
    },
    /** Builds the chain from the downloaded interval, which must link up to the checkpoint (the download is dropped either way). */
    installTrusted(): HeaderChain {
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
      return chain;
    },
  };
}

/**
 * The chain as stored, each header checked again: from the genesis block, the stored headers added
 * to `genesisChain`; from a checkpoint, a chain made from the stored checkpoint interval (none when
 * it was stored from another checkpoint: the store is cleared to download again). A stored header
 * the rules refuse is dropped with every header above it.
 */
async function loadStoredChain(deps: StoredHeaderChainDeps, genesisChain: HeaderChain | null): Promise<HeaderChain | null> {
  const { db, network, clock, log } = deps;
  const rows = await loadHeaders(db, network);
  if (!rows.length) return genesisChain;
  let chain = genesisChain;
  let rest = rows;
  if (!chain) {
    chain = await loadCheckpointInterval(deps, rows.slice(0, RETARGET_INTERVAL));
    if (!chain) return null;
    rest = rows.slice(RETARGET_INTERVAL);
  }
  for (const row of rest) {
    try {
      chain.add(row.header, clock.now());
    } catch (error) {
      log.warn('btc stored header refused; dropping it and those above', { height: row.height, error: String(error) });
      await saveHeaders(db, network, row.height, []);
      break;
    }
  }
  log.info('btc header chain loaded', { height: chain.tip?.height ?? null });
  return chain;
}

/** The chain made from the stored checkpoint interval; null (and the store cleared) when it was stored from another checkpoint. */
async function loadCheckpointInterval(deps: StoredHeaderChainDeps, first: { height: number; header: Uint8Array }[]): Promise<HeaderChain | null> {
  const { rules, checkpoint, db, network, log } = deps;
  try {
    if (first[0].height !== checkpoint.height - RETARGET_INTERVAL + 1) throw new Error('stored chain starts elsewhere');
    return new HeaderChain(rules, checkpoint, first.map((r) => r.header));
  } catch {
    // A release with a newer checkpoint: the stored chain is downloaded again from it.
    log.info('btc header chain stored from another checkpoint; syncing again', { checkpoint_height: checkpoint.height });
    await clearHeaders(db, network);
    return null;
  }
}

export type StoredHeaderChain = ReturnType<typeof createStoredHeaderChain>;
