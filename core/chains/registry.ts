import type { ChainName } from '../../shared/index.ts';
import { btcModule } from '../btc/btc-module.ts';
import { evmModules } from '../evm/evm-module.ts';
import type { ChainModule } from '../invoices/chain-module.ts';

/**
 * Every chain the service knows, in the contract's order: Bitcoin, then the EVM chains (one module
 * parameterised by chain, core/evm/evm-chains.ts). The editions, the checkout page and the MCP
 * texts find a chain here by name instead of branching on it.
 */
export const chainModules: ReadonlyMap<ChainName, ChainModule<any>> = new Map<ChainName, ChainModule<any>>([['btc', btcModule], ...evmModules]);

export function chainModule(chain: string): ChainModule<any> {
  const module = chainModules.get(chain as ChainName);
  if (!module) throw new Error(`no chain module for ${chain}`);
  return module;
}
