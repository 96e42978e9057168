import { DEFAULT_CHAIN } from '../shared/index.ts';
import type { McpChain } from './mcp-chain.ts';

/** "Bitcoin", "Base and Ethereum", "Base, Ethereum and Polygon". */
const names = (chains: readonly McpChain[]) => {
  const all = chains.map((chain) => chain.facts.name);
  return all.length < 2 ? all.join('') : `${all.slice(0, -1).join(', ')} and ${all.at(-1)}`;
};

/** The chains grouped by what `say` says of each, in their order: chains that say the same are told together. */
function groupedBy(chains: readonly McpChain[], say: (chain: McpChain) => string): { said: string; chains: McpChain[] }[] {
  const groups = new Map<string, McpChain[]>();
  for (const chain of chains) groups.set(say(chain), [...(groups.get(say(chain)) ?? []), chain]);
  return [...groups].map(([said, grouped]) => ({ said, chains: grouped }));
}

/** How create_invoice prices an invoice on each chain: 'Bitcoin (default, chain "btc"): give amount_sats, …'. */
export const pricingTexts = (chains: readonly McpChain[]): string[] =>
  groupedBy(chains, (chain) => chain.display.pricingHint).map(
    ({ said, chains: grouped }) => `${grouped.map((chain) => `${chain.facts.name} (${chain.chain === DEFAULT_CHAIN ? 'default, ' : ''}chain "${chain.chain}")`).join(', ')}: ${said}`,
  );

/** "sats for Bitcoin, USD for Base, Ethereum and Polygon". */
export const unitsText = (chains: readonly McpChain[]): string =>
  groupedBy(chains, (chain) => chain.facts.unit)
    .map(({ said, chains: grouped }) => `${said} for ${names(grouped)}`)
    .join(', ');

/** "Bitcoin: typically 10 to 60 minutes; Base and Polygon: typically about a minute". */
export const confirmationTimesText = (chains: readonly McpChain[]): string =>
  groupedBy(chains, (chain) => chain.display.confirmationTime)
    .map(({ said, chains: grouped }) => `${names(grouped)}: typically ${said}`)
    .join('; ');
