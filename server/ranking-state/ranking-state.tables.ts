/** Table types of the ranking state's own writers, the ranking_fit and item_model agents. */
/** One run of the ranking_fit agent (migration 0050; server/ranking-state/ranking-fit.agent.ts). */
export interface RankingFitsTable {
  id: string;
  created_at_ms: number;
  /** applied, kept, insufficient or reverted. */
  status: string;
  /** JSON RankingDefault: the point chosen (or kept). */
  choice: string;
  /** JSON RankingDefault: the point in effect before. */
  previous: string;
  /** Interactions the service held when the fit ran. */
  interactions: number;
  summary: string;
  /** JSON: the fit's evidence (src/evaluation/fit.ts). */
  evidence: string;
}

/** The periodic item–item model (migration 0051; server/ranking-state/item-model.agent.ts): at most one row. */
export interface ItemModelsTable {
  id: string;
  /** When the build began reading the interactions it was fitted on. */
  created_at_ms: number;
  interactions: number;
  posts: number;
  entries: number;
  /** The stored model's length in bytes (`model_bytes`, or `model` in a row stored before migration 0052). */
  bytes: number;
  /** JSON (`itemModelToJson`) in a row stored before migration 0052; empty since. */
  model: string;
  /** The model (`itemModelToBytes`); null in a row stored before migration 0052. */
  model_bytes: Uint8Array | null;
}

export interface RankingStateTables {
  ranking_fits: RankingFitsTable;
  item_models: ItemModelsTable;
}

// These tables join the service's one `Database` type (server/platform/db/database.ts).
declare module '../platform/db/database.js' {
  interface Database extends RankingStateTables {}
}
