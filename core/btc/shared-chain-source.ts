import type { Clock } from '../clock.ts';
import { sharedAnswers, sharedChainAnswers } from '../shared-answers.ts';
import type { ChainSource, SourceBlock, SourceTx } from './chain-source.ts';

export interface SharedChainSourceOptions {
  clock: Clock;
  /** How long the tip, a height's block hash and the mempool list are reused: bounds how stale a reorg can be seen. */
  maxAgeMs?: number;
  /** Parsed blocks kept by hash; a mainnet block is a few MB, and watchers only lag each other by a few. */
  maxBlocks?: number;
  /** Parsed mempool transactions kept by txid; each watcher fetches up to its mempool limit per pass. */
  maxTxs?: number;
}

/**
 * One backend shared by many watchers (one per Cloud merchant): each block is downloaded once
 * however many watchers read it, and the tip, block hashes and mempool list once per `maxAgeMs`.
 * Blocks and transactions never change for a given hash or txid, so they are kept (bounded) until
 * pushed out; what answers by height or "now" is only reused briefly, and the height → hash
 * answers are forgotten whenever the tip moves, so a reorg is seen within `maxAgeMs`.
 *
 * A watcher judges that a payment left the mempool only when the tip read after the mempool list
 * equals the one it scanned blocks to. A reused tip could predate the list, so a fresh list drops
 * the remembered tip (and one in flight): every tip handed out afterwards was read after that list.
 */
export function createSharedChainSource(inner: ChainSource, options: SharedChainSourceOptions): ChainSource {
  const { clock } = options;
  const maxAgeMs = options.maxAgeMs ?? 2_000;
  const chain = sharedChainAnswers<number, number, string | null>({ clock, maxAgeMs });
  const tipHash = sharedAnswers<'tip', string>({ clock, maxAgeMs, maxEntries: 1 });
  const mempool = sharedAnswers<'mempool', string[]>({ clock, maxAgeMs, maxEntries: 1 });
  const blocks = sharedAnswers<string, SourceBlock>({ clock, maxAgeMs: Infinity, maxEntries: options.maxBlocks ?? 16 });
  const txs = sharedAnswers<string, SourceTx>({ clock, maxAgeMs: Infinity, maxEntries: options.maxTxs ?? 20_000 });
  const forgetTip = () => {
    chain.forgetHead();
    tipHash.clear();
  };

  return {
    kind: inner.kind,
    tipHeight: () => chain.head(() => inner.tipHeight()),
    tipHash: () => tipHash.get('tip', () => inner.tipHash()),
    blockHash: (height) => chain.atHeight(height, () => inner.blockHash(height)),
    forgetTip,
    block: (hash, height) => blocks.get(hash, () => inner.block(hash, height)),
    mempoolTxids: () =>
      mempool.get('mempool', async () => {
        const txids = await inner.mempoolTxids();
        forgetTip();
        return txids;
      }),
    async transactions(txids) {
      const missing = new Set(txids.filter((txid) => !txs.has(txid)));
      const batch = missing.size ? inner.transactions([...missing]).then((found) => new Map(found.map((tx) => [tx.txid, tx]))) : null;
      const load = async (txid: string) => {
        // Not in this batch only if pushed out between the check and now (more txids than the cache holds).
        const tx = missing.has(txid) ? (await batch!).get(txid) : (await inner.transactions([txid]))[0];
        // One that left the mempool is not remembered as absent: it may come back after a reorg.
        if (!tx) throw new LeftMempool();
        return tx;
      };
      const answers = await Promise.all(
        txids.map((txid) =>
          txs.get(txid, () => load(txid)).catch((error: unknown) => {
            if (error instanceof LeftMempool) return null;
            throw error;
          }),
        ),
      );
      return answers.filter((tx): tx is SourceTx => tx !== null);
    },
  };
}

class LeftMempool extends Error {}
