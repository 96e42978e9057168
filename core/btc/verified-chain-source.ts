import { ChainSourceError, ChainSourceInvalidData, type ChainSource, type SourceBlock } from './chain-source.ts';
import { MAX_FUTURE_BLOCK_TIME_S, MEDIAN_TIME_SPAN, type HeaderChain } from './header-chain.ts';
import type { VerifiedHeaders } from './verified-headers.ts';

export interface LabelledChainSource {
  label: string;
  source: ChainSource;
}

/**
 * Third-party Esplora sources behind the verified header chain: the watcher's view of the chain
 * (tip, the hash at each height) is the verified best chain, never a source's word, and a block is
 * read only when its header is on that chain; its body then must match the header (raw-block.ts
 * checks the hash and the merkle root). Blocks come from the first usable source that has them; one
 * that serves a body not matching its header is named and ignored like one serving a bad header.
 * Mempool questions go to the first usable source: unconfirmed payments are never settled; one
 * serving transaction bytes that hash to another txid than the one asked for is counted and the
 * next source asked.
 */
export function createVerifiedChainSource(
  headers: VerifiedHeaders,
  sources: LabelledChainSource[],
  /** A source served something that failed verification (the metrics count it). */
  onRejected?: (source: string, reason: string) => void,
): ChainSource {
  const bestChain = () => {
    const chain = headers.chain();
    if (!chain?.tip) throw new ChainSourceError('esplora', 'the verified header chain is not synced yet');
    return chain;
  };
  const usable = () => {
    const labels = new Set(headers.usableSources());
    const found = sources.filter((s) => labels.has(s.label));
    if (!found.length) throw new ChainSourceError('esplora', `no usable Bitcoin source: ${headers.problem()?.reason ?? 'none answers'}`);
    return found;
  };
  const primary = () => usable()[0].source;
  /**
   * A sync the next tip read may answer from: the pass's own, made just before it. A mempool list
   * read since voids it: the tip judged against that list must be read after it.
   */
  let justSynced = false;

  return {
    kind: 'esplora',
    async syncHeaders() {
      const synced = await headers.sync();
      justSynced = true;
      return synced;
    },
    async tipHeight() {
      // Otherwise a fresh read: the mempool step judges a payment gone only while the tip stands still.
      if (!justSynced) await headers.sync();
      justSynced = false;
      return bestChain().tip!.height;
    },
    async tipHash() {
      return bestChain().tip!.hash;
    },
    async blockHash(height) {
      return bestChain().at(height)?.hash ?? null;
    },
    async block(hash, height): Promise<SourceBlock> {
      if (bestChain().at(height)?.hash !== hash) throw new ChainSourceError('esplora', `block ${hash} is not on the verified chain at height ${height}`);
      let lastError: unknown = null;
      for (const { label, source } of usable()) {
        try {
          return await source.block(hash, height);
        } catch (error) {
          if (error instanceof ChainSourceInvalidData) headers.rejectBlock(label, error.message);
          lastError = error;
        }
      }
      throw lastError;
    },
    mempoolTxids() {
      justSynced = false;
      return primary().mempoolTxids();
    },
    async transactions(txids) {
      // A source serving transaction bytes that hash to another txid is counted and the next one asked.
      let lastError: unknown = null;
      for (const { label, source } of usable()) {
        try {
          return await source.transactions(txids);
        } catch (error) {
          if (!(error instanceof ChainSourceInvalidData)) throw error;
          onRejected?.(label, 'tx-mismatch');
          lastError = error;
        }
      }
      throw lastError;
    },
    forgetTip() {
      for (const { source } of sources) source.forgetTip?.();
    },
    firstHeightMinedFrom: (timeMs) => firstHeightMinedFrom(bestChain(), timeMs),
  };
}

/**
 * A header's time may run up to 2 hours ahead of the clock that mined it, and a later block's may
 * be lower than an earlier one's (it need only exceed the median of the previous 11): so the walk
 * down from the tip stops at the first header more than 2 hours older than `timeMs`, and 11 blocks
 * below it.
 */
export function firstHeightMinedFrom(chain: Pick<HeaderChain, 'tip' | 'at' | 'baseHeight'>, timeMs: number): number {
  const before = Math.floor(timeMs / 1000) - MAX_FUTURE_BLOCK_TIME_S;
  let height = chain.tip!.height;
  while (height > chain.baseHeight && chain.at(height)!.time >= before) height--;
  return Math.max(chain.baseHeight, height - MEDIAN_TIME_SPAN);
}
