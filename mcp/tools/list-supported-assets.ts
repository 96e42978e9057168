import * as z from 'zod';
import type { McpServer } from '@modelcontextprotocol/server';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { SupportedAsset, supportedAssets } from '../../shared/index.ts';
import { toolError } from '../tool-error.ts';
import type { ServerDeps } from '../deps.ts';
import { unitsText } from '../chain-texts.ts';
import { toolIcons } from '../icons.ts';

const name = 'list_supported_assets';

const ListedAsset = SupportedAsset.extend({
  enabled: z
    .boolean()
    .nullable()
    .describe('Whether the connected listener accepts invoices in this asset; on Cloud, whether its receive methods enable it; null when the service does not say (an older listener, or the Cloud API reached over HTTP by the stdio server): then try create_invoice.'),
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
    const health = await deps.listener.healthAssets();
    if (!health.ok) return toolError(health.failure);
    const enabled = health.value.enabled_assets;
    const assets = listed.map((entry) => ({ ...entry, enabled: enabled ? enabled.includes(entry.id) : null }));
    const lines = assets.map(
      (entry) =>
        `${entry.id}: ${entry.asset} on ${entry.chain}, amount in ${entry.amount_field} (${entry.unit}), ${
          entry.enabled === null ? 'enabled: unknown' : entry.enabled ? 'enabled' : 'not enabled on this listener'
        }.`,
    );
    return {
      structuredContent: { assets } satisfies { assets: z.infer<typeof ListedAsset>[] },
      content: [{ type: 'text', text: lines.join('\n') }],
    };
  });
}
