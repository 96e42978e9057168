import * as z from 'zod';
import type { McpServer } from '@modelcontextprotocol/server';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { INVOICE_LIST_DEFAULT, INVOICE_LIST_MAX, InvoiceList } from '../../shared/index.ts';
import type { ListenerClient } from '../listener-client.ts';
import { toolError } from '../tool-error.ts';
import { toolIcons } from '../icons.ts';

const name = 'list_invoices';

/** Shown to people (hosts list the tool by it); the same in the annotations, for hosts that read only those. */
const title = "List the merchant's invoices";

const config = {
  title,
  description: `Lists the merchant's most recent invoices, newest first (limit 1-${INVOICE_LIST_MAX}, default ${INVOICE_LIST_DEFAULT}), each with its id, status and amount. Read one in full with get_invoice_status or the resource invoice://{invoice_id}.`,
  inputSchema: z.object({ limit: z.number().int().min(1).max(INVOICE_LIST_MAX).optional().describe(`How many (1-${INVOICE_LIST_MAX}, default ${INVOICE_LIST_DEFAULT}).`) }),
  outputSchema: z.object(InvoiceList.shape),
  annotations: { title, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  icons: toolIcons[name],
  _meta: { ui: { visibility: ['model'] } },
};

/** Only for a client that can list (Cloud): the self-hosted listener has no list route. */
export function registerListInvoicesTool(server: McpServer, listInvoices: NonNullable<ListenerClient['listInvoices']>): void {
  server.registerTool(name, config, async ({ limit }): Promise<CallToolResult> => {
    const listed = await listInvoices(limit);
    if (!listed.ok) return toolError(listed.failure);
    const { invoices } = listed.value;
    const lines = invoices.map((invoice) => `${invoice.invoice_id}: ${invoice.status}, ${invoice.amount} ${invoice.asset} on ${invoice.chain}, created ${invoice.created_at}`);
    return {
      structuredContent: listed.value satisfies z.infer<typeof InvoiceList>,
      content: [{ type: 'text', text: lines.length ? lines.join('\n') : 'No invoices yet.' }],
    };
  });
}
