import * as z from 'zod';
import type { McpServer } from '@modelcontextprotocol/server';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { chainNames, INVOICE_LIST_DEFAULT, INVOICE_LIST_MAX, InvoiceList, InvoiceStatus, LIST_QUERY_TEXT_MAX, listAssets } from '../../shared/index.ts';
import type { ListenerClient } from '../listener-client.ts';
import { toolError } from '../tool-error.ts';
import { toolIcons } from '../icons.ts';

const name = 'list_invoices';

/** Shown to people (hosts list the tool by it); the same in the annotations, for hosts that read only those. */
const title = "List the merchant's invoices";

const text = (description: string) => z.string().min(1).max(LIST_QUERY_TEXT_MAX).optional().describe(description);

const config = {
  title,
  description: `Lists the merchant's invoices, newest first, ${INVOICE_LIST_DEFAULT} at a time (limit 1-${INVOICE_LIST_MAX}), each with its id, status and amount; optionally only those of a status, chain, asset, order id, creation period, or matching a search. When next_cursor is not null, pass it as cursor for the next page. Read one in full with get_invoice_status or the resource invoice://{invoice_id}.`,
  inputSchema: z.object({
    limit: z.number().int().min(1).max(INVOICE_LIST_MAX).optional().describe(`How many (1-${INVOICE_LIST_MAX}, default ${INVOICE_LIST_DEFAULT}).`),
    status: InvoiceStatus.optional().describe('Only invoices with this status.'),
    chain: z.enum(chainNames).optional().describe('Only invoices on this chain.'),
    asset: z.enum(listAssets).optional().describe('Only invoices in this asset.'),
    order_id: text("Only the invoices of this order reference (the shop's order_id, exact)."),
    q: text('Only the invoices whose id or order id is exactly this, or whose receive address is this (any case).'),
    created_from: text('Only invoices created at or after this ISO 8601 date-time (with zone) or date (00:00 UTC).'),
    created_to: text('Only invoices created before this ISO 8601 date-time (with zone) or date (00:00 UTC).'),
    cursor: text('The next_cursor of the previous answer: the page after it.'),
  }),
  outputSchema: z.object(InvoiceList.shape),
  annotations: { title, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  icons: toolIcons[name],
  _meta: { ui: { visibility: ['model'] } },
};

/** Only for a client that can list (Cloud); the listener's GET /invoices is not offered over MCP. */
export function registerListInvoicesTool(server: McpServer, listInvoices: NonNullable<ListenerClient['listInvoices']>): void {
  server.registerTool(name, config, async (args): Promise<CallToolResult> => {
    // The list's own query: every argument given, as text, so the service checks them as over HTTP.
    const query = Object.fromEntries(Object.entries(args).flatMap(([key, value]) => (value === undefined ? [] : [[key, String(value)]])));
    const listed = await listInvoices(query);
    if (!listed.ok) return toolError(listed.failure);
    const { invoices } = listed.value;
    const lines = invoices.map((invoice) => `${invoice.invoice_id}: ${invoice.status}, ${invoice.amount} ${invoice.asset} on ${invoice.chain}, created ${invoice.created_at}`);
    if (listed.value.next_cursor) lines.push(`More: call again with cursor ${listed.value.next_cursor}.`);
    return {
      structuredContent: listed.value satisfies z.infer<typeof InvoiceList>,
      content: [{ type: 'text', text: lines.length ? lines.join('\n') : Object.keys(query).some((key) => key !== 'limit') ? 'No invoices match.' : 'No invoices yet.' }],
    };
  });
}
