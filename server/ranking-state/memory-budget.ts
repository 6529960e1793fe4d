/**
 * One memory budget for the ranking state's byte-bounded caches (RECSVC_MEMORY_MB): each cache
 * takes a fixed share of it, and a cache's own variable (RECSVC_PROFILE_CACHE_MB, ...) overrides
 * its share. The shares are the bounds as measured and tuned one by one (docs/operations.md,
 * "Memory budget"): at the default budget every cache gets the bound it had before the budget.
 */

/** Parts of the budget per cache (of 9): 288 MB gives 64 / 96 / 64 / 32 / 32 MB. */
export const MEMORY_BUDGET_PARTS = {
  /** Users' profiles (RECSVC_PROFILE_CACHE_MB). */
  profiles: 2,
  /** Users' ranked lists with their first pages as sent (RECSVC_RESULT_CACHE_MB). */
  results: 3,
  /** The co-engagement state (RECSVC_COENGAGEMENT_MB). */
  coEngagement: 2,
  /** The writers' memory of users' newest interactions (its share only). */
  recentInteractions: 1,
  /** Serialised statuses (RECSVC_STATUS_JSON_MAX_CHARS, characters). */
  statusJson: 1,
} as const;

export type BudgetedCache = keyof typeof MEMORY_BUDGET_PARTS;

/** RECSVC_MEMORY_MB's default: the caches' bounds before the budget, summed. */
export const DEFAULT_MEMORY_BUDGET_MB = 288;

const TOTAL_PARTS = Object.values(MEMORY_BUDGET_PARTS).reduce((sum, parts) => sum + parts, 0);

/** Bytes `cache` may hold out of a budget of `budgetMb` MB: budget × its parts / all parts, whole MB, at least 1 MB. */
export function budgetShareBytes(budgetMb: number, cache: BudgetedCache): number {
  const mb = Math.max(1, Math.floor((budgetMb * MEMORY_BUDGET_PARTS[cache]) / TOTAL_PARTS));
  return mb * 1024 * 1024;
}
