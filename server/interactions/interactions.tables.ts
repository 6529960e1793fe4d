/** Table types of the interactions feature (interactions, learned affinities and interests). */
export interface InteractionsTable {
  id: string;
  user_id: string;
  post_id: string;
  action_type: string;
  context_json: string | null;
  created_at: string;
  created_at_ms: number;
}

/** A time-decayed affinity of a user to an author (`kind` author) or a tag (`kind` tag). */
export interface UserAffinitiesTable {
  user_id: string;
  kind: string;
  target: string;
  /** Value at `as_of_ms`; decays with the ranking engine's affinity half-life. */
  score: number;
  as_of_ms: number;
}

/** A user's interest vector (see migration 0015): raw forward-decayed weights relative to `ref_ms`. */
export interface UserInterestsTable {
  user_id: string;
  ref_ms: number;
  latest_ms: number;
  /** JSON array of the terms, in the order of `weights`. */
  terms: string;
  /** Little-endian float64 per term. */
  weights: Uint8Array;
}

export interface InteractionTables {
  interactions: InteractionsTable;
  user_affinities: UserAffinitiesTable;
  user_interests: UserInterestsTable;
}

// These tables join the service's one `Database` type (server/platform/db/database.ts).
declare module '../platform/db/database.js' {
  interface Database extends InteractionTables {}
}
