import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { registerCreateInvoiceTool } from './create-invoice.ts';
import type { ServerDeps } from '../deps.ts';
import { registerGetInvoiceStatusTool } from './get-invoice-status.ts';
import { registerListSupportedAssetsTool } from './list-supported-assets.ts';

export function registerTools(server: McpServer, deps: ServerDeps): void {
  registerCreateInvoiceTool(server, deps);
  registerGetInvoiceStatusTool(server, deps);
  registerListSupportedAssetsTool(server, deps);
}
