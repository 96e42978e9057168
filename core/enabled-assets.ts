import type { AssetId } from '../shared/index.ts';
import type { EvmConfig } from './evm/evm-config.ts';
import { btcModule } from './btc/btc-module.ts';
import { chainModule } from './chains/registry.ts';

/**
 * What /health reports as `enabled_assets`: the assets POST /invoice accepts with this config, in
 * the registry's chain order. The MCP server's list_supported_assets reads it, and Cloud's
 * dashboard offers a merchant's (its Bitcoin receiver, its EVM settings).
 */
export function enabledAssets(config: { btc: object | null; evm: readonly Pick<EvmConfig, 'chain' | 'tokens' | 'fixedAddress'>[] }): AssetId[] {
  const configured: { chain: string; settings: object }[] = [...(config.btc ? [{ chain: btcModule.chain, settings: config.btc }] : []), ...config.evm.map((evm) => ({ chain: evm.chain, settings: evm }))];
  return configured.flatMap(({ chain, settings }) => chainModule(chain).enabledAssets(settings));
}
