import type { Disagreement } from './agreement.ts';
import { RpcError, type RpcSource } from './rpc.ts';

/** One source's timestamps (epoch ms) of the blocks it was asked about, by block hash; a block it does not have, or answered badly, is absent. */
export interface BlockTimesAnswer {
  source: string;
  times: ReadonlyMap<string, number>;
}

/**
 * Asks one source, in one batch request where it takes batches, for the header of each block by
 * hash. Only a header that names the hash asked for and carries a timestamp is kept. Null when the
 * source cannot be reached or refuses a call: it then neither agrees nor disagrees.
 */
export async function askBlockTimes(source: RpcSource, blockHashes: readonly string[]): Promise<BlockTimesAnswer | null> {
  try {
    const answers = await source.batch(blockHashes.map((hash) => ({ method: 'eth_getBlockByHash', params: [hash, false] })));
    const times = new Map<string, number>();
    for (const [i, answer] of answers.entries()) {
      if (answer instanceof RpcError) return null;
      const time = timeOf(answer, blockHashes[i]);
      if (time !== null) times.set(blockHashes[i], time);
    }
    return { source: source.label, times };
  } catch {
    return null;
  }
}

function timeOf(answer: unknown, hash: string): number | null {
  if (!answer || typeof answer !== 'object') return null;
  const { hash: named, timestamp } = answer as { hash?: unknown; timestamp?: unknown };
  if (typeof named !== 'string' || named.toLowerCase() !== hash.toLowerCase() || typeof timestamp !== 'string' || !/^0x[0-9a-f]{1,16}$/i.test(timestamp)) return null;
  return Number(BigInt(timestamp)) * 1000;
}

/** How the sources that report a transfer's log judged its block's time. */
interface TimeVerdict {
  /** The time at least `needed` of them give, or null: the transfer waits. */
  agreed: number | null;
  /** The sources giving the agreed time. */
  agreeing: string[];
  disagreements: Disagreement[];
}

/**
 * The block time a transfer is counted with: the one at least `needed` of the sources agreeing on
 * its log give for its block, and more of them than give any other (the block hash they agree on
 * commits to it, but no source's word on the header is taken alone). A source giving another time
 * than the agreed one is named; with no agreement, each source is named that differs from another.
 * Pure.
 */
export function judgeBlockTime(block: { hash: string; number: number }, agreeing: readonly string[], answers: readonly BlockTimesAnswer[], needed: number): TimeVerdict {
  const votes = new Map<string, number>();
  for (const source of agreeing) {
    const time = answers.find((a) => a.source === source)?.times.get(block.hash);
    if (time !== undefined) votes.set(source, time);
  }
  const tally = new Map<number, number>();
  for (const time of votes.values()) tally.set(time, (tally.get(time) ?? 0) + 1);
  const [best, second] = [...tally].sort((a, b) => b[1] - a[1]);
  // A tie between two times proves neither.
  const agreed = best && best[1] >= needed && !(second && second[1] === best[1]) ? best[0] : null;
  const named = [...votes].filter(([, time]) => (agreed === null ? tally.size > 1 : time !== agreed));
  const iso = (ms: number) => new Date(ms).toISOString();
  const disagreements = named.map(([source, time]) => ({
    source,
    reason: `reports time ${iso(time)} for block ${block.number} (${block.hash}) where ${[...votes]
      .filter(([, t]) => t !== time)
      .map(([s, t]) => `${s} reports ${iso(t)}`)
      .join(', ')}`,
  }));
  return { agreed, agreeing: [...votes].filter(([, time]) => time === agreed).map(([source]) => source), disagreements };
}
