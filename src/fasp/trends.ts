/**
 * The trends capability's parameters and ranks (discovery/trends/v0.1): `withinLastHours`
 * 1–168 (default 24), `maxCount` 1–MAX_TREND_COUNT (default 20), `language` matched by RFC
 * 4647 basic filtering, and ranks that are integers 1–100 on one absolute scale, so that the
 * lists of several providers running this software merge by rank into the right order.
 */

export const DEFAULT_WITHIN_LAST_HOURS = 24;
export const MAX_WITHIN_LAST_HOURS = 168;
export const DEFAULT_TREND_COUNT = 20;
export const MAX_TREND_COUNT = 100;
/** The trend score that ranks 50: rank = round(100 · s / (s + TREND_RANK_MIDPOINT)), clamped to 1–100. */
export const TREND_RANK_MIDPOINT = 8;

/** A trend score (src/ranking/trending.ts) as a rank 1–100: increasing in the score, the same for every server and provider. */
export function trendRank(score: number): number {
  if (!Number.isFinite(score) || score <= 0) return 1;
  return Math.min(100, Math.max(1, Math.round((100 * score) / (score + TREND_RANK_MIDPOINT))));
}

/**
 * RFC 4647 section 3.3.1 basic filtering: `range` matches `tag` when they are equal, or the
 * range is a prefix of the tag followed by `-`, ignoring case; `*` matches every tag.
 */
export function languageMatches(range: string, tag: string | null | undefined): boolean {
  if (range === '*') return true;
  if (tag === null || tag === undefined || tag === '') return false;
  const r = range.toLowerCase();
  const t = tag.toLowerCase();
  return t === r || t.startsWith(`${r}-`);
}

/** A valid BCP 47-shaped language range (letters, digits and hyphens, subtags of 1–8) or `*`. */
export function isLanguageRange(value: string): boolean {
  return value === '*' || /^[A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*$/.test(value);
}
