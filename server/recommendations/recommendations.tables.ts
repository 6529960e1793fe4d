/** Table types of the recommendations feature (feedback and explicit preferences). */
export interface FeedbackTable {
  id: string;
  user_id: string;
  post_id: string;
  feedback: string;
  created_at: string;
  created_at_ms: number;
}

export interface UserPreferencesTable {
  user_id: string;
  /** JSON arrays of strings. */
  favoured_authors: string;
  muted_authors: string;
  favoured_tags: string;
  muted_tags: string;
  languages: string;
  include_reblogs: number;
  recommendation_ratio: number | null;
  /** 1: sensitive posts may be recommended (migration 0028; 0 by default). */
  allow_sensitive: number;
  updated_at: string;
}

export interface RecommendationTables {
  feedback: FeedbackTable;
  user_preferences: UserPreferencesTable;
}

// These tables join the service's one `Database` type (server/platform/db/database.ts).
declare module '../platform/db/database.js' {
  interface Database extends RecommendationTables {}
}
