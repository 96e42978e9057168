import { base } from './chains/base.ts';
import { ethereum } from './chains/ethereum.ts';
import { polygon } from './chains/polygon.ts';
import { arbitrum } from './chains/arbitrum.ts';
import type { EvmChainSpec } from './evm-chain-spec.ts';

export type { EvmChainSpec, EvmFinality } from './evm-chain-spec.ts';

/**
 * The facts of the EVM chains this repository ships with a local stand-in (the sandbox's nodes, the
 * tests'). The service itself runs the chains it is given (core/chains/default-chains.ts).
 */
export const evmChainSpecs: readonly EvmChainSpec[] = [base, ethereum, polygon, arbitrum].map((chain) => chain.spec);

export function evmSpecOf(chain: string): EvmChainSpec {
  const spec = evmChainSpecs.find((candidate) => candidate.chain === chain);
  if (!spec) throw new Error(`${chain} is not an EVM chain`);
  return spec;
}
