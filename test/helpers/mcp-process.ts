import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import './built.ts';

const MCP_BIN = fileURLToPath(new URL('../../bin/service-mcp.js', import.meta.url));

export interface McpSession {
  client: Client;
  /** Everything the server wrote to stderr so far. */
  stderr(): string;
  /** Transport errors, e.g. a line on stdout that is not a protocol message. */
  transportErrors: Error[];
  close(): Promise<void>;
}

/** Spawns the MCP server through its bin (`bin/service-mcp.js`) and connects the SDK's real client over stdio. */
export async function connectMcp(env: { LISTENER_URL: string; SERVICE_API_KEY?: string }): Promise<McpSession> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [MCP_BIN],
    env: { PATH: process.env.PATH ?? '', ...env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr!.on('data', (chunk) => (stderr += chunk));
  const client = new Client({ name: 'service-test', version: '1.0.0' });
  const transportErrors: Error[] = [];
  client.onerror = (error) => transportErrors.push(error);
  await client.connect(transport);
  return { client, stderr: () => stderr, transportErrors, close: () => client.close() };
}
