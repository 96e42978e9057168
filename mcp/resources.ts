import { ProtocolError, ProtocolErrorCode, type McpServer } from '@modelcontextprotocol/server';
import type { ListenerClient, ListenerDocument } from './listener-client.ts';

const documents: { name: ListenerDocument; mimeType: string; title: string; description: string }[] = [
  {
    name: 'llms.txt',
    mimeType: 'text/plain',
    title: 'Payment listener API, summary for language models',
    description: "Plain-text summary of the connected listener's HTTP API, read from its /llms.txt.",
  },
  {
    name: 'openapi.json',
    mimeType: 'application/json',
    title: 'Payment listener API, OpenAPI 3.1',
    description: "The connected listener's OpenAPI 3.1 document, read from its /openapi.json.",
  },
];

/** The listener's own API descriptions, read through at each request so they match the listener. */
export function registerResources(server: McpServer, listener: ListenerClient): void {
  for (const document of documents) {
    const uri = `service://${document.name}`;
    server.registerResource(
      document.name,
      uri,
      { title: document.title, description: document.description, mimeType: document.mimeType },
      async () => {
        const read = await listener.document(document.name);
        if (!read.ok) throw new ProtocolError(ProtocolErrorCode.InternalError, `${read.failure.code}: ${read.failure.message}`);
        return { contents: [{ uri, mimeType: document.mimeType, text: read.value }] };
      },
    );
  }
}
