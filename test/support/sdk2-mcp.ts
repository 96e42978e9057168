import { createMcpHandler, type McpServerFactory } from '@modelcontextprotocol/server';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

/** One JSON-RPC exchange as it crossed the wire: what the SDK client turns into a value or an error. */
export interface WireExchange {
  method: string;
  status: number;
  body: { result?: Record<string, unknown>; error?: { code: number; message: string; data?: unknown } };
}

/** The JSON-RPC response in a response body, whether sent as JSON or as one event of a stream. */
function responseOf(text: string): WireExchange['body'] {
  if (text.trimStart().startsWith('{')) return JSON.parse(text);
  const data = text
    .split('\n')
    .filter((line) => line.startsWith('data:'))
    .map((line) => JSON.parse(line.slice(5)))
    .find((message) => 'result' in message || 'error' in message);
  return data ?? {};
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
      if (sent?.method && sent.id !== undefined) exchanges.push({ method: sent.method, status: response.status, body: responseOf(await response.clone().text()) });
      return response;
    },
  });
  await client.connect(transport);
  return { client, exchanges };
}

/**
 * One 2026-07-28 request as a client sends it, headers and envelope included, for what the SDK
 * client will not send (methods this revision removed).
 */
export async function rawRequest(fetchMcp: (request: Request) => Promise<Response>, method: string, params: Record<string, unknown>, capabilities: Record<string, unknown> = {}) {
  const body = {
    jsonrpc: '2.0',
    id: 1,
    method,
    params: {
      ...params,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientInfo': { name: 'service-test', version: '1.0.0' },
        'io.modelcontextprotocol/clientCapabilities': capabilities,
      },
    },
  };
  const response = await fetchMcp(
    new Request('http://mcp.test/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': method },
      body: JSON.stringify(body),
    }),
  );
  return { status: response.status, body: responseOf(await response.text()) };
}

/** A 2026-07-28 endpoint served in process, one server per request as createMcpHandler builds them. */
export function inProcessEndpoint(factory: McpServerFactory) {
  const handler = createMcpHandler(factory, { legacy: 'reject' });
  return (request: Request) => handler.fetch(request);
}
