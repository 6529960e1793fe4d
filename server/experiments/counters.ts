/**
 * The per-user counters kept at write time for the analysis, listed once: the columns of
 * experiment_user_counts that grow after assignment, which experiment_user_day_counts splits by
 * UTC day. The tables' types, the rows read back and the SQL that sums them all take this list.
 */
export const DAY_COUNT_COLUMNS = [
  'impressions',
  'clicks',
  'sessions',
  'session_ms',
  'bounces',
  'interactions',
  'feedback_positive',
  'feedback_negative',
] as const;
export type DayCountColumn = (typeof DAY_COUNT_COLUMNS)[number];

/** The counters fixed at assignment (cold start, pre-experiment engagement), ahead of those that grow. */
export const USER_COUNT_COLUMNS = ['cold', 'pre_engagement', ...DAY_COUNT_COLUMNS] as const;

/** One value of each counter that grows after assignment (a table's columns, a row's numbers). */
export type DayCounters<T> = { [C in DayCountColumn]: T };
