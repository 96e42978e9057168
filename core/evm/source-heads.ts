import { chainFacts, type EvmChainName } from '../../shared/index.ts';
import type { Logger } from '../log.ts';
import { headOf, type BlockHeader } from './chain.ts';
import { evmSettingNamesOf } from './evm-config.ts';
import { evmPrefixOf } from './evm-chain-spec.ts';
import type { RpcSource } from './rpc.ts';

/** A source that answered this pass: its head, and its `finalized` block when asked and answered. */
export interface HeardSource {
  source: RpcSource;
  head: number;
  finalized: number | null;
  /** Its header at the stored range end, when one was asked (null: it does not have that block). */
  atStored?: BlockHeader | null;
}

/** A source set aside because it serves another chain than the configured one. */
export interface RefusedSource {
  source: string;
  reason: string;
}

/**
 * Every source's head, asked each pass in one request per source (with the header of the stored
 * range end, which tells a reorg, and the `finalized` block when the chain settles by it). A source's `eth_chainId` is asked
 * with its head at start and again each time it answers after failing (a reconnect, which may land
 * on another node): one on another chain is refused, and not heard, until it answers the
 * configured id; the message names the setting that lists it.
 */
export function createSourceHeads(deps: { chain: EvmChainName; chainId: number; sources: readonly RpcSource[]; finalityTag: boolean; logger: Pick<Logger, 'warn' | 'error' | 'info'> }) {
  const { chain, chainId, logger } = deps;
  const names = evmSettingNamesOf({ envPrefix: evmPrefixOf(chain) });
  const chainName = chainFacts[chain].name;
  /** Sources that answered the configured chain id since they last failed. */
  const checked = new Set<RpcSource>();
  const refused = new Map<RpcSource, string>();

  function refuse(source: RpcSource, answered: number) {
    const reason = `${names.rpcUrl} lists ${source.label}, which answers eth_chainId ${answered}, not ${chainId} (${names.chainId}, ${chainName}): it is refused until it does; point that entry at a ${chainName} node or remove it`;
    if (refused.get(source) !== reason) logger.error(`${chain}: ${reason}`);
    refused.set(source, reason);
  }

  async function hear(source: RpcSource, stored: number | null): Promise<HeardSource | null> {
    try {
      const answer = await headOf(source, { chainId: !checked.has(source), finalized: deps.finalityTag, header: stored });
      if (answer.chainId !== null && answer.chainId !== chainId) {
        refuse(source, answer.chainId);
        return null;
      }
      if (answer.chainId !== null) {
        if (refused.delete(source)) logger.info(`${chain}: ${source.label} now answers eth_chainId ${chainId} and is heard again`);
        checked.add(source);
      }
      return { source, head: answer.head, finalized: answer.finalized, atStored: answer.header };
    } catch (error) {
      checked.delete(source);
      logger.warn(`${chain}: RPC source unavailable`, { source: source.label, error: (error as Error).message });
      return null;
    }
  }

  return {
    /** The sources that answered, on the configured chain, in the configured order; with their header at `stored` (the stored range end) when given. */
    async heard(stored: number | null): Promise<HeardSource[]> {
      return (await Promise.all(deps.sources.map((source) => hear(source, stored)))).filter((heard) => heard !== null);
    },
    /** The sources that may vote: every configured one but the refused. */
    voting: (): RpcSource[] => deps.sources.filter((source) => !refused.has(source)),
    refused: (): RefusedSource[] => [...refused].map(([source, reason]) => ({ source: source.label, reason })),
  };
}

export type SourceHeads = ReturnType<typeof createSourceHeads>;
