/**
 * A dashboard sign-in. Only the SHA-256 of the session token is stored (the cookie holds the
 * token), so a copy of the database cannot be replayed as a session. `key_hash` is the API key
 * used to sign in: revoking that key ends its sessions too.
 */
export interface DashboardSessionsTable {
  session_hash: string;
  merchant_id: string;
  key_hash: string;
  created_at: number;
  expires_at: number;
}
