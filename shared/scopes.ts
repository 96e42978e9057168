/** What an OAuth token or a scoped API key may do: read invoices (and list them), create them. */
export const INVOICES_READ = 'invoices:read';
export const INVOICES_WRITE = 'invoices:write';
export const OAUTH_SCOPES = [INVOICES_READ, INVOICES_WRITE] as const;
export type Scope = (typeof OAUTH_SCOPES)[number];
