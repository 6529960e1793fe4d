/** The FASP feature's tables (migrations 0038-fasp-servers and 0045-fasp-data). */

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

export interface FaspDebugCallbacksTable {
  id: string;
  server_id: string;
  ip: string;
  body: string;
  callback_status: number | null;
  created_at_ms: number;
}

export interface FaspSubscriptionsTable {
  server_id: string;
  remote_id: string;
  category: string;
  subscription_type: string;
  created_at_ms: number;
}

export interface FaspBackfillsTable {
  server_id: string;
  remote_id: string;
  category: string;
  more_available: number;
  created_at_ms: number;
}

export interface FaspObjectsTable {
  uri: string;
  category: string;
  validated_at_ms: number;
}

export interface FaspSignatureSchemesTable {
  host: string;
  scheme: string;
  checked_at_ms: number;
}

export interface FaspActorTable {
  id: number;
  private_key_sealed: string;
  public_key_pem: string;
  created_at_ms: number;
}

export interface FaspTables {
  fasp_servers: FaspServersTable;
  fasp_debug_callbacks: FaspDebugCallbacksTable;
  fasp_subscriptions: FaspSubscriptionsTable;
  fasp_backfills: FaspBackfillsTable;
  fasp_objects: FaspObjectsTable;
  fasp_signature_schemes: FaspSignatureSchemesTable;
  fasp_actor: FaspActorTable;
}

// These tables join the service's one `Database` type (server/platform/db/database.ts).
declare module '../platform/db/database.js' {
  interface Database extends FaspTables {}
}
