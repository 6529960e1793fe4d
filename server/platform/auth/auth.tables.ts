/** Table types of the auth feature. */
export interface TokensTable {
  id: string;
  token_hash: string;
  user_id: string | null;
  /** Comma-separated scopes. */
  scopes: string;
  tier: string;
  label: string | null;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
}

export interface AuthTables {
  tokens: TokensTable;
}
