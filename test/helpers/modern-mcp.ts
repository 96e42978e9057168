import { CLIENT_CAPABILITIES_META_KEY, CLIENT_INFO_META_KEY, PROTOCOL_VERSION_META_KEY } from '@modelcontextprotocol/client';

/** The MCP revision the stateless path serves. */
export const MODERN_REVISION = '2026-07-28';

/** Methods whose 2026-07-28 request names its target in Mcp-Name, and the param that names it. */
const NAMED: Record<string, string> = { 'tools/call': 'name', 'resources/read': 'uri', 'prompts/get': 'name', 'tasks/get': 'taskId', 'tasks/cancel': 'taskId', 'tasks/update': 'taskId' };

export interface ModernPostOptions {
  /** Leave out a standard header, as a careless hand-written client would. */
  omit?: 'Mcp-Method' | 'Mcp-Name' | 'MCP-Protocol-Version';
  id?: number;
  /** The client capabilities the request declares (none by default). */
  capabilities?: Record<string, unknown>;
  /** Aborts the request (and the stream it opened). */
  signal?: AbortSignal;
}

/**
 * One 2026-07-28 request POSTed by hand, as the SDK's client sends it: the per-request `_meta`
 * envelope in the body and the standard headers (`Mcp-Method`, `Mcp-Name`, `MCP-Protocol-Version`).
 * Raw, so a test reads the wire result (cache fields) and the HTTP status of a refusal.
 */
export async function postModern(url: string, credential: Record<string, string>, method: string, params: Record<string, unknown> = {}, options: ModernPostOptions = {}): Promise<Response> {
  const body = {
    jsonrpc: '2.0',
    id: options.id ?? 1,
    method,
    params: {
      ...params,
      _meta: { [PROTOCOL_VERSION_META_KEY]: MODERN_REVISION, [CLIENT_INFO_META_KEY]: { name: 'modern-test', version: '1.0.0' }, [CLIENT_CAPABILITIES_META_KEY]: options.capabilities ?? {} },
    },
  };
  const headers: Record<string, string> = {
    ...credential,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'Mcp-Method': method,
    'MCP-Protocol-Version': MODERN_REVISION,
  };
  const name = Object.hasOwn(NAMED, method) ? params[NAMED[method]!] : undefined;
  if (typeof name === 'string') headers['Mcp-Name'] = name;
  if (options.omit) delete headers[options.omit];
  return fetch(url, { method: 'POST', headers, body: JSON.stringify(body), signal: options.signal });
}

/** The JSON-RPC message of a modern answer: the JSON body, or the last message of its event stream. */
export async function messageOf(response: Response): Promise<{ result?: Record<string, unknown>; error?: { code: number; message: string } }> {
  const text = await response.text();
  if (!response.headers.get('content-type')?.includes('text/event-stream')) return JSON.parse(text);
  const data = text
    .split('\n')
    .filter((line) => line.startsWith('data:'))
    .map((line) => line.slice('data:'.length).trim())
    .filter(Boolean);
  return JSON.parse(data.at(-1)!);
}
