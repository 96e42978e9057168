import type { CallToolResult } from '@modelcontextprotocol/server';
import type { ListenerFailure } from './listener-client.ts';

// What an agent can do about a failure, where the message alone does not say it.
const nextSteps: Record<string, string> = {
  unauthorized: 'The MCP server sends SERVICE_API_KEY from its environment as X-Service-Api-Key; set it to the key the listener was started with.',
  chain_disabled: 'Call list_supported_assets to see what this listener accepts.',
  base_disabled: 'Call list_supported_assets to see what this listener accepts.',
  asset_disabled: 'Call list_supported_assets to see what this listener accepts.',
  not_found: 'Check the invoice_id: it is the one create_invoice returned.',
  capacity: 'Retry in a few seconds, or with a slightly different amount.',
};

/**
 * A failure as an MCP tool error. The text starts with the stable code so an agent can branch on
 * it; there is no structuredContent, since clients check that against the success output schema.
 */
export function toolError(failure: ListenerFailure): CallToolResult {
  const parts = [`${failure.code}: ${failure.message}`];
  if (failure.retryAfterS !== undefined) parts.push(`Retry after ${failure.retryAfterS} s.`);
  const step = nextSteps[failure.code];
  if (step) parts.push(step);
  return { isError: true, content: [{ type: 'text', text: parts.join(' ') }] };
}
