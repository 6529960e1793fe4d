/** Table types of the privacy feature (migration 0020-privacy). */
export type PrivacySettingsTable = {
  user_id: string;
  /** `full`, `limited` or `none` (src/privacy/tracking-level.ts). */
  tracking_level: string;
  updated_at_ms: number;
};

export type PrivacyTables = {
  privacy_settings: PrivacySettingsTable;
};

// These tables join the service's one `Database` type (server/platform/db/database.ts).
declare module '../platform/db/database.js' {
  interface Database extends PrivacyTables {}
}
