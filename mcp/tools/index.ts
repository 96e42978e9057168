import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { registerCreateInvoiceTool } from './create-invoice.ts';
import type { ServerDeps } from '../deps.ts';
import { registerGetInvoiceStatusTool } from './get-invoice-status.ts';
import { registerListInvoicesTool } from './list-invoices.ts';
import { registerListSupportedAssetsTool } from './list-supported-assets.ts';
import { registerWaitForPaymentTool } from './wait-for-payment.ts';

/** The server as the tools see it: each tool's callback reports its outcome to `onToolCall`. */
function countingServer(server: McpServer, onToolCall: NonNullable<ServerDeps['onToolCall']>): McpServer {
  const registerTool = ((name: string, config: unknown, callback: (...args: unknown[]) => Promise<CallToolResult>) =>
    server.registerTool(name, config as never, (async (...args: unknown[]) => {
      try {
        const result = await callback(...args);
        onToolCall(name, result.isError ? 'error' : 'ok');
        return result;
      } catch (error) {
        onToolCall(name, 'error');
        throw error;
      }
    }) as never)) as McpServer['registerTool'];
  return Object.assign(Object.create(server) as McpServer, { registerTool });
}

export function registerTools(target: McpServer, deps: ServerDeps): void {
  const server = deps.onToolCall ? countingServer(target, deps.onToolCall) : target;
  registerCreateInvoiceTool(server, deps);
  registerGetInvoiceStatusTool(server, deps);
  registerListSupportedAssetsTool(server, deps);
  registerWaitForPaymentTool(server, deps);
  if (deps.listener.listInvoices) registerListInvoicesTool(server, deps.listener.listInvoices.bind(deps.listener));
}
