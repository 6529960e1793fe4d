/** Table types of the privacy feature (migration 0020-privacy); types, not interfaces, so `withTables` takes them. */
export type PrivacySettingsTable = {
  user_id: string;
  /** `full`, `limited` or `none` (src/privacy/tracking-level.ts). */
  tracking_level: string;
  updated_at_ms: number;
};

export type PrivacyTables = {
  privacy_settings: PrivacySettingsTable;
};
