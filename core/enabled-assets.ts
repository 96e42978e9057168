import type { AssetId } from '../shared/index.ts';
import type { ConfiguredChain } from './chain-definition.ts';

/**
 * What /health reports as `enabled_assets`: the assets POST /invoice accepts with these chains'
 * settings, in the chains' order. The MCP server's list_supported_assets reads it, and Cloud's
 * dashboard offers a merchant's (its receive methods' settings).
 */
export function enabledAssets(configured: readonly ConfiguredChain[]): AssetId[] {
  return configured.flatMap(({ definition, settings }) => definition.enabledAssets(settings));
}
