/** Table types of the interactions feature (interactions and learned affinities). */
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

export interface InteractionTables {
  interactions: InteractionsTable;
  user_affinities: UserAffinitiesTable;
}
