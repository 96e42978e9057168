import { blockHeader, blockHeaders, scanBlocks, type BlockHeader, type TransferFilter, type TransferLog } from './chain.ts';
import type { ScanView } from './scan-agreement.ts';
import type { HeardSource } from './source-heads.ts';

/** The chain moved under a scan, or the sources do not agree on a block yet: the pass is abandoned and retried. */
export class ChainMovedError extends Error {}

/** One source's first look at a range: its header of its own end, and its logs. */
interface FirstLook {
  heard: HeardSource;
  reached: number;
  endHeader: BlockHeader | null;
  logs: TransferLog[];
}

/** A source that failed a step of the scan: not heard for this pass, whatever the others say. */
export type ScanFailure = (source: string, error: Error) => void;

/**
 * The same range on every heard source whose head reaches it (each up to its own head): the
 * headers and the eth_getLogs calls in one batch per source, in parallel, each source on its own
 * request budget.
 */
export async function firstLooks(heard: readonly HeardSource[], filter: TransferFilter, failed: ScanFailure): Promise<FirstLook[]> {
  const looks = await Promise.all(
    heard
      .filter((h) => h.head >= filter.fromBlock)
      .map(async (h): Promise<FirstLook | null> => {
        const reached = Math.min(h.head, filter.toBlock);
        try {
          const { headers, logs } = await scanBlocks(h.source, { ...filter, toBlock: reached }, [reached]);
          return { heard: h, reached, endHeader: headers.get(reached) ?? null, logs };
        } catch (error) {
          failed(h.source.label, error as Error);
          return null;
        }
      }),
  );
  return looks.filter((look) => look !== null);
}

/**
 * Each source's view of the range: its headers of every block any source reported a log in, read
 * after the logs. A source whose own logs no longer match its headers, or whose range end changed,
 * moved during the scan and is left out of this pass.
 */
export async function viewsOf(looks: readonly FirstLook[], failed: ScanFailure): Promise<ScanView[]> {
  const logBlocks = [...new Set(looks.flatMap((look) => look.logs.map((log) => log.blockNumber)))];
  const views = await Promise.all(
    looks.map(async (look): Promise<ScanView | null> => {
      if (!logBlocks.length) return { source: look.heard.source.label, reached: look.reached, logs: [], headers: new Map([[look.reached, look.endHeader]]) };
      try {
        const headers = await blockHeaders(look.heard.source, [...new Set([...logBlocks.filter((n) => n <= look.reached), look.reached])]);
        const moved = headers.get(look.reached)?.hash !== look.endHeader?.hash || look.logs.some((log) => headers.get(log.blockNumber)?.hash !== log.blockHash);
        return moved ? null : { source: look.heard.source.label, reached: look.reached, logs: look.logs, headers };
      } catch (error) {
        failed(look.heard.source.label, error as Error);
        return null;
      }
    }),
  );
  return views.filter((view) => view !== null);
}

/** The header at one height of every heard source whose head reaches it, in parallel; a source that fails to answer is left out. */
export async function headersAt(heard: readonly HeardSource[], number: number): Promise<Array<BlockHeader | null>> {
  const answers = await Promise.all(heard.filter((h) => h.head >= number).map((h) => blockHeader(h.source, number).then((header) => header ?? null, () => undefined)));
  return answers.filter((answer) => answer !== undefined);
}

/** Whether the stored block is still the chain's: `quorum` sources have it, `quorum` have another, or neither yet. */
export function storedBlockVote(answers: ReadonlyArray<BlockHeader | null>, hash: string, quorum: number): 'kept' | 'replaced' | 'unsure' {
  const kept = answers.filter((header) => header?.hash === hash).length;
  if (kept >= quorum) return 'kept';
  return answers.length - kept >= quorum ? 'replaced' : 'unsure';
}
