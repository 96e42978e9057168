import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Icon, ListToolsResult } from '@modelcontextprotocol/sdk/types.js';

type RequestHandler = (request: unknown, extra: unknown) => Promise<ListToolsResult>;

/**
 * Puts each tool's `icons` into `tools/list`. SDK 1.x's McpServer takes a tool's title, annotations
 * and `_meta` but drops its icons from the listing (modelcontextprotocol/typescript-sdk#1864, fixed in
 * SDK 2 only), so its listing handler is wrapped; a missing handler fails at startup, not silently.
 */
export function listToolIcons(server: McpServer, icons: ReadonlyMap<string, Icon[]>): void {
  const handlers = (server.server as unknown as { _requestHandlers?: Map<string, RequestHandler> })._requestHandlers;
  const list = handlers?.get('tools/list');
  if (!handlers || !list) throw new Error('@modelcontextprotocol/sdk: no tools/list handler found to add tool icons to (has the SDK changed?)');
  handlers.set('tools/list', async (request, extra) => {
    const listed = await list(request, extra);
    return { ...listed, tools: listed.tools.map((tool) => (icons.has(tool.name) ? { ...tool, icons: icons.get(tool.name) } : tool)) };
  });
}
