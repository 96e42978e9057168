import type { AssetId } from '../shared/index.ts';
import type { BaseConfig } from './base/base-config.ts';

/**
 * What /health reports as `enabled_assets`: the assets POST /invoice accepts with this config.
 * The MCP server's list_supported_assets reads it, and Cloud's dashboard offers a merchant's
 * (its Bitcoin receiver, its Base settings); a chain integration adds its assets here.
 */
export function enabledAssets(config: { btc: object | null; base: Pick<BaseConfig, 'tokens' | 'fixedAddress'> | null }): AssetId[] {
  const assets: AssetId[] = config.btc ? ['btc'] : [];
  if (config.base?.tokens.has('usdc')) assets.push('usdc-base');
  if (config.base?.tokens.has('usdt') && config.base.fixedAddress) assets.push('usdt-base');
  return assets;
}
