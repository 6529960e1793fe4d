/** Table types of the settings feature (migration 0019-settings). */
export interface UserSettingsTable {
  user_id: string;
  /** 1: never enrolled in experiments. */
  experiments_opt_out: number;
  /** A reason language code, or null: from Accept-Language. */
  reason_language: string | null;
  updated_at_ms: number;
}

export interface IntegrationSettingsTable {
  /** The setting's name, e.g. `allowed_instances`. */
  name: string;
  /** Its value as JSON. */
  value: string;
  updated_at_ms: number;
  /** The user id of the admin token that set it, when the token has one. */
  updated_by: string | null;
}

export interface SettingsTables {
  user_settings: UserSettingsTable;
  integration_settings: IntegrationSettingsTable;
}

// These tables join the service's one `Database` type (server/platform/db/database.ts).
declare module '../platform/db/database.js' {
  interface Database extends SettingsTables {}
}
