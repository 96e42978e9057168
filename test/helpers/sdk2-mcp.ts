import { createMcpHandler, type McpServerFactory } from '@modelcontextprotocol/server';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { messageOf } from './modern-mcp.ts';

/** One JSON-RPC exchange as it crossed the wire: what the SDK client turns into a value or an error. */
export interface WireExchange {
  method: string;
  status: number;
  body: { result?: Record<string, unknown>; error?: { code: number; message: string; data?: unknown } };
}

/**
 * The SDK 2 client over `fetch` (a createMcpHandler's, served in process, or the real endpoint's),
 * negotiating 2026-07-28, with every exchange kept as it crossed the wire.
 */
export async function sdk2Client(
  fetchMcp: (request: Request) => Promise<Response>,
  options: { capabilities?: Record<string, unknown>; url?: string; headers?: Record<string, string> } = {},
): Promise<{ client: Client; exchanges: WireExchange[] }> {
  const exchanges: WireExchange[] = [];
  const client = new Client({ name: 'service-test', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' }, capabilities: options.capabilities ?? {} });
  const transport = new StreamableHTTPClientTransport(new URL(options.url ?? 'http://mcp.test/mcp'), {
    requestInit: { headers: options.headers ?? {} },
    fetch: async (url, init) => {
      const response = await fetchMcp(new Request(url, init));
      const sent = typeof init?.body === 'string' ? JSON.parse(init.body) : undefined;
      if (sent?.method && sent.id !== undefined) exchanges.push({ method: sent.method, status: response.status, body: (await messageOf(response.clone())) as WireExchange['body'] });
      return response;
    },
  });
  await client.connect(transport);
  return { client, exchanges };
}

/** A 2026-07-28 endpoint served in process, one server per request as createMcpHandler builds them. */
export function inProcessEndpoint(factory: McpServerFactory) {
  const handler = createMcpHandler(factory, { legacy: 'reject' });
  return (request: Request) => handler.fetch(request);
}
