/** What an OAuth token or a scoped API key may do on the invoice tools. */
export const INVOICES_READ = 'invoices:read';
export const INVOICES_WRITE = 'invoices:write';
export const OAUTH_SCOPES = [INVOICES_READ, INVOICES_WRITE] as const;

/** Whoever a request to a keyed endpoint stands for, and what it may do (null: everything). */
export interface Principal {
  /** The account: a Cloud merchant id, or `listener`. */
  accountId: string;
  scopes: ReadonlySet<string> | null;
  via: 'key' | 'oauth';
  /** OAuth: the grant the token was issued under. */
  grantId?: string;
}

const toolScopes: Record<string, string> = {
  create_invoice: INVOICES_WRITE,
  get_invoice_status: INVOICES_READ,
  list_invoices: INVOICES_READ,
  wait_for_payment: INVOICES_READ,
};

/** The scope one JSON-RPC message needs: tool calls by tool, resource reads and subscriptions read. */
function scopeOf(message: unknown): string | null {
  if (typeof message !== 'object' || message === null) return null;
  const { method, params } = message as { method?: unknown; params?: { name?: unknown } };
  if (method === 'tools/call') return typeof params?.name === 'string' ? (Object.hasOwn(toolScopes, params.name) ? toolScopes[params.name]! : null) : null;
  if (method === 'resources/read' || method === 'resources/subscribe') return INVOICES_READ;
  return null;
}

/** The first scope a POSTed MCP body needs that `scopes` lacks; null when it may go through. */
export function missingScope(body: unknown, scopes: ReadonlySet<string> | null): string | null {
  if (scopes === null) return null;
  for (const message of Array.isArray(body) ? body : [body]) {
    const needed = scopeOf(message);
    if (needed && !scopes.has(needed)) return needed;
  }
  return null;
}
