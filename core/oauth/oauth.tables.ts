/**
 * The authorization server's records (oidc-provider models: grants, codes, tokens, sessions,
 * interactions, registered clients), one row each. Rows are keyed by the SHA-256 of their id, so
 * a token, code or session id read from the database is no credential; the payload is stored
 * without its id.
 */
export interface OAuthRecordsTable {
  model: string;
  id_hash: string;
  /** The model's payload as JSON, its `jti` removed. */
  payload: string;
  /** The grant a code or token was issued under (grants: their own id); revoking it removes them all. */
  grant_id: string | null;
  /** Sessions: the SHA-256 of their uid. */
  uid_hash: string | null;
  /** Grants: the merchant (Cloud) or `listener` that approved them, and the client; for the Connected apps page. */
  account_id: string | null;
  client_id: string | null;
  /** Grants: the client's name as shown on the consent page. */
  client_name: string | null;
  /**
   * Grants: the key that approved them, as a non-reversible id (Cloud: the key's stored hash; the
   * listener: an HMAC of SERVICE_API_KEY). Revoking or changing the key ends the grant.
   */
  key_id: string | null;
  /** Epoch ms; null never expires. A row past it is treated as absent and swept. */
  expires_at: number | null;
  consumed_at: number | null;
  created_at: number;
  /** Grants: when a token of theirs last reached the MCP endpoint (epoch ms, to the minute). */
  last_used_at: number | null;
}

/** Values shared by every instance on one database: cookie signing keys and the token signing key. */
export interface OAuthSecretsTable {
  name: string;
  value: string;
}

export interface OAuthTables {
  oauth_records: OAuthRecordsTable;
  oauth_secrets: OAuthSecretsTable;
}
