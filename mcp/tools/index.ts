import type { CallToolResult, McpServer } from '@modelcontextprotocol/server';
import { INVOICES_READ, INVOICES_WRITE, type Scope } from '../../shared/scopes.ts';
import { convertOnce } from '../schema-json-once.ts';
import { registerCreateInvoiceTool } from './create-invoice.ts';
import type { ServerDeps } from '../deps.ts';
import { registerGetInvoiceStatusTool } from './get-invoice-status.ts';
import { registerListInvoicesTool } from './list-invoices.ts';
import { registerListSupportedAssetsTool } from './list-supported-assets.ts';
import { registerWaitForPaymentTool } from './wait-for-payment.ts';

/** What a tool needs: a scope, or `any` credential the endpoint takes. */
export type ToolScope = Scope | 'any';

/**
 * The scope of every tool, beside their registrations: the HTTP endpoint refuses a call the
 * credential's scopes do not cover, and a tool missing here cannot be registered at all.
 */
export const toolScopes: Readonly<Record<string, ToolScope>> = {
  create_invoice: INVOICES_WRITE,
  get_invoice_status: INVOICES_READ,
  list_invoices: INVOICES_READ,
  // What this server accepts: no merchant data, and what a create-only agent needs first.
  list_supported_assets: 'any',
  wait_for_payment: INVOICES_READ,
};

/**
 * The server as the tools see it: a tool without a declared scope is refused at registration, and
 * each callback reports its outcome to `onToolCall` when given; its schemas are converted to JSON
 * Schema once for every server (convertOnce).
 */
function toolServer(server: McpServer, onToolCall: ServerDeps['onToolCall']): McpServer {
  const registerTool = ((name: string, config: { inputSchema?: object; outputSchema?: object }, callback: (...args: unknown[]) => Promise<CallToolResult>) => {
    if (!Object.hasOwn(toolScopes, name)) throw new Error(`The MCP tool ${name} declares no scope: add it to toolScopes (mcp/tools/index.ts).`);
    if (config.inputSchema) convertOnce(config.inputSchema);
    if (config.outputSchema) convertOnce(config.outputSchema);
    if (!onToolCall) return server.registerTool(name, config as never, callback as never);
    return server.registerTool(name, config as never, (async (...args: unknown[]) => {
      try {
        const result = await callback(...args);
        onToolCall(name, result.isError ? 'error' : 'ok');
        return result;
      } catch (error) {
        onToolCall(name, 'error');
        throw error;
      }
    }) as never);
  }) as McpServer['registerTool'];
  return Object.assign(Object.create(server) as McpServer, { registerTool });
}

export function registerTools(target: McpServer, deps: ServerDeps): void {
  const server = toolServer(target, deps.onToolCall);
  registerCreateInvoiceTool(server, deps);
  registerGetInvoiceStatusTool(server, deps);
  registerListSupportedAssetsTool(server, deps);
  registerWaitForPaymentTool(server, deps);
  if (deps.listener.listInvoices) registerListInvoicesTool(server, deps.listener.listInvoices.bind(deps.listener));
}
