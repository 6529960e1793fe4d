/** The FASP feature's table (migration 0038-fasp-servers). */

export interface FaspServersTable {
  id: string;
  base_url: string;
  name: string;
  fasp_id: string;
  private_key_sealed: string;
  public_key: string;
  server_public_key: string;
  capabilities: string;
  created_at_ms: number;
}

export interface FaspTables {
  fasp_servers: FaspServersTable;
}
