import * as z from 'zod';
import type { McpServer } from '@modelcontextprotocol/server';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { SupportedAsset, supportedAssets } from '../../shared/index.ts';
import { toolError } from '../tool-error.ts';
import type { ServerDeps } from '../deps.ts';
import type { ListenerClient, ListenerFailure, ListenerResult } from '../listener-client.ts';
import { unitsText } from '../chain-texts.ts';
import { toolIcons } from '../icons.ts';

const name = 'list_supported_assets';

const ListedAsset = SupportedAsset.extend({
  enabled: z
    .boolean()
    .nullable()
    .describe('Whether the connected listener accepts invoices in this asset; on Cloud, whether its receive methods enable it; null when the service does not say (an older listener or Cloud, or a Cloud API key limited to invoice scopes, which may not read GET /api/v1/me): then try create_invoice.'),
});

/** Shown to people (hosts list the tool by it); the same in the annotations, for hosts that read only those. */
const title = 'List the assets invoices can be paid in';

/** The assets of the chains the service runs. */
const assetsOf = (chains: ServerDeps['chains']) => supportedAssets.filter((entry) => chains.some((chain) => chain.chain === entry.chain));

const description = (chains: ServerDeps['chains']) =>
  `Lists the assets an invoice can be priced in (${assetsOf(chains)
    .map((entry) => entry.id)
    .join(', ')}): for each, the create_invoice arguments that select it, the amount field and its unit (${unitsText(chains)}), and whether the connected listener has it enabled. Cheap; call it before create_invoice when unsure.`;

const config = {
  title,
  outputSchema: z.object({ assets: z.array(ListedAsset) }),
  annotations: { title, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  icons: toolIcons[name],
  _meta: { ui: { visibility: ['model'] } },
};

export function registerListSupportedAssetsTool(server: McpServer, deps: ServerDeps): void {
  const listed = assetsOf(deps.chains);
  server.registerTool(name, { ...config, description: description(deps.chains) }, async (): Promise<CallToolResult> => {
    const found = await enabledOf(deps.listener);
    if (!found.ok) return toolError(found.failure);
    const { enabled, unknownBecause } = found.value;
    const assets = listed.map((entry) => ({ ...entry, enabled: enabled ? enabled.includes(entry.id) : null }));
    const lines = assets.map(
      (entry) =>
        `${entry.id}: ${entry.asset} on ${entry.chain}, amount in ${entry.amount_field} (${entry.unit}), ${
          entry.enabled === null ? 'enabled: unknown' : entry.enabled ? 'enabled' : 'not enabled on this listener'
        }.`,
    );
    if (unknownBecause) lines.push(`Which assets are enabled is unknown: ${unknownBecause}. Try create_invoice; asset_disabled or chain_disabled means not enabled.`);
    return {
      structuredContent: { assets } satisfies { assets: z.infer<typeof ListedAsset>[] },
      content: [{ type: 'text', text: lines.join('\n') }],
    };
  });
}

interface Enabled {
  /** null: the service does not say. */
  enabled: readonly string[] | null;
  unknownBecause?: string;
}

/**
 * The listener's /health says what it has enabled. Cloud's health is the platform's: over HTTP, the
 * key's account (GET /me) says what the merchant's receive methods enable, as invoice creation judges it.
 */
async function enabledOf(listener: ListenerClient): Promise<ListenerResult<Enabled>> {
  const health = await listener.healthAssets();
  if (!health.ok) return health;
  if (health.value.enabled_assets) return { ok: true, value: { enabled: health.value.enabled_assets } };
  if (!listener.accountAssets) return { ok: true, value: { enabled: null, unknownBecause: 'the service does not say' } };
  const account = await listener.accountAssets();
  if (account.ok && account.value.enabled_assets) return { ok: true, value: { enabled: account.value.enabled_assets } };
  return { ok: true, value: { enabled: null, unknownBecause: account.ok ? 'the service does not say' : accountUnreadable(account.failure) } };
}

const accountUnreadable = (failure: ListenerFailure) =>
  failure.code === 'insufficient_scope'
    ? 'this API key is limited to invoice scopes and may not read GET /me, where Cloud says which assets the merchant has enabled (a full-access key may)'
    : `the service does not say (GET /me answered ${failure.code})`;
