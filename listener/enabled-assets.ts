import type { AssetId } from '../shared/index.ts';
import type { Config } from './config.ts';

/**
 * What /health reports as `enabled_assets`: the assets POST /invoice accepts with this config.
 * The MCP server's list_supported_assets reads it; a chain integration adds its assets here.
 */
export function enabledAssets(config: Pick<Config, 'btc'>): AssetId[] {
  return config.btc ? ['btc'] : [];
}
