import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { registerCreateInvoiceTool } from './create-invoice.ts';
import type { ServerDeps } from '../deps.ts';
import { registerGetInvoiceStatusTool } from './get-invoice-status.ts';
import { registerListInvoicesTool } from './list-invoices.ts';
import { registerListSupportedAssetsTool } from './list-supported-assets.ts';
import { registerWaitForPaymentTool } from './wait-for-payment.ts';

export function registerTools(server: McpServer, deps: ServerDeps): void {
  registerCreateInvoiceTool(server, deps);
  registerGetInvoiceStatusTool(server, deps);
  registerListSupportedAssetsTool(server, deps);
  registerWaitForPaymentTool(server, deps);
  if (deps.listener.listInvoices) registerListInvoicesTool(server, deps.listener.listInvoices.bind(deps.listener));
}
