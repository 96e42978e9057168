import { INVOICES_READ, type Scope } from '../../shared/scopes.ts';
import { toolScopes, type ToolScope } from '../../mcp/tools/index.ts';

export { INVOICES_READ, INVOICES_WRITE, OAUTH_SCOPES } from '../../shared/scopes.ts';

/** Whoever a request to a keyed endpoint stands for, and what it may do (null: everything). */
export interface Principal {
  /** The account: a Cloud merchant id, or `listener`. */
  accountId: string;
  scopes: ReadonlySet<string> | null;
  via: 'key' | 'oauth';
  /** OAuth: the grant the token was issued under. */
  grantId?: string;
}

/** What one MCP method needs: a scope, any credential the endpoint takes, or the scope of the tool called. */
export type MethodScope = ToolScope | 'by-tool';

/**
 * The scope of every JSON-RPC method the MCP server answers (requests and notifications alike).
 * Listing counts as reading: the list names the merchant's invoices. A test checks this table
 * against the methods the server registers, so a method cannot be served without an entry here.
 */
export const methodScopes: Readonly<Record<string, MethodScope>> = {
  initialize: 'any',
  // The 2026-07-28 opening, stateless: says what initialize says, nothing of the merchant's.
  'server/discover': 'any',
  ping: 'any',
  'notifications/initialized': 'any',
  'notifications/cancelled': 'any',
  'notifications/progress': 'any',
  // Sent by clients that offer roots; the server keeps no roots and ignores it.
  'notifications/roots/list_changed': 'any',
  'tools/list': 'any',
  'tools/call': 'by-tool',
  'resources/list': INVOICES_READ,
  'resources/templates/list': INVOICES_READ,
  'resources/read': INVOICES_READ,
  'resources/subscribe': INVOICES_READ,
  'resources/unsubscribe': 'any',
  // 2026-07-28: the stream of changes (invoice status updates among them) counts as reading invoices.
  'subscriptions/listen': INVOICES_READ,
  // 2026-07-28 tasks extension: wait_for_payment's tasks, read (and cancelled) as the wait reads.
  'tasks/get': INVOICES_READ,
  'tasks/cancel': INVOICES_READ,
  'tasks/update': INVOICES_READ,
};

/** What a method or tool needs that nobody declared: only a credential without scopes may ask. */
export const UNDECLARED = 'full-access';

/**
 * The scope one JSON-RPC message needs; null when any credential may send it (and for the client's
 * responses, which carry no method). Undeclared methods and tools are refused to scoped credentials.
 */
function scopeOf(message: unknown): Scope | typeof UNDECLARED | null {
  if (typeof message !== 'object' || message === null) return null;
  const { method, params } = message as { method?: unknown; params?: { name?: unknown } };
  if (typeof method !== 'string') return null;
  const declared = Object.hasOwn(methodScopes, method) ? methodScopes[method] : UNDECLARED;
  const needed = declared === 'by-tool' ? (typeof params?.name === 'string' && Object.hasOwn(toolScopes, params.name) ? toolScopes[params.name] : UNDECLARED) : declared;
  return needed === 'any' ? null : needed;
}

/** The first scope a POSTed MCP body needs that `scopes` lacks (`full-access` for what nobody declared); null when it may go through. */
export function missingScope(body: unknown, scopes: ReadonlySet<string> | null): string | null {
  if (scopes === null) return null;
  for (const message of Array.isArray(body) ? body : [body]) {
    const needed = scopeOf(message);
    if (needed && !scopes.has(needed)) return needed;
  }
  return null;
}
