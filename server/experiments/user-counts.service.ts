/**
 * Streams an experiment's enrolled users with their counts (decisions.md's `user`
 * lines), a page of users at a time by user id, never the whole experiment in memory.
 * The export, the metrics and the analysis all read this one iterator in this one
 * order, so the online analysis and the CLI's analysis of the export add the same
 * numbers in the same order and agree to the last digit.
 *
 * Sessions: a session is a `session_id` with both a `session_start` and a `session_end`
 * in the experiment window; its duration is end − start (event timestamps, at least 0);
 * it is a bounce when no click carried its `session_id`. Clicks count with or without a
 * session. Interactions are the favorite/bookmark/reblog rows in place; feedback `more`
 * is positive, `less` negative. `pre_engagement`, CUPED's covariate (cuped.ts), is the user's
 * interactions in the 14 days before the experiment first became active (preEngagementCounts).
 */
import type { Kysely } from 'kysely';
import type { UserRecord } from '../../src/experiments/export-format.js';
import { emptyCounts } from '../../src/experiments/metrics.js';
import type { Database } from '../db/database.js';
import {
  clickCounts,
  feedbackCounts,
  impressionCounts,
  interactionCounts,
  pageAssignments,
  preEngagementCounts,
  sessionRows,
  type SessionRow,
  type UserCountRow,
} from './experiment-data.repository.js';

/** A user line plus whether the user was a cold start (no activity before assignment). */
export interface EnrolledUser extends UserRecord {
  user_id: string;
  pre_engagement: number;
  cold_start: boolean;
}

export const USER_PAGE_SIZE = 1000;

const byUser = (rows: readonly UserCountRow[]): Map<string, number> => new Map(rows.map((row) => [row.user_id, Number(row.value)]));

/** The experiment's enrolled users and their counts, by user id. */
export async function* iterateEnrolledUsers(
  db: Kysely<Database>,
  experimentId: number,
  pageSize = USER_PAGE_SIZE,
): AsyncGenerator<EnrolledUser> {
  let after: string | null = null;
  for (;;) {
    const page = await pageAssignments(db, experimentId, after, pageSize);
    const first = page[0];
    const last = page.at(-1);
    if (!first || !last) return;
    const range = [db, experimentId, first.user_id, last.user_id] as const;
    const impressions = byUser(await impressionCounts(...range));
    const clicks = byUser(await clickCounts(...range));
    const interactions = byUser(await interactionCounts(...range));
    const preEngagement = byUser(await preEngagementCounts(...range));
    const feedback = new Map((await feedbackCounts(...range)).map((row) => [row.user_id, row]));
    const sessions = groupSessions(await sessionRows(...range));
    for (const row of page) {
      const counts = emptyCounts();
      counts.impressions = impressions.get(row.user_id) ?? 0;
      counts.clicks = clicks.get(row.user_id) ?? 0;
      counts.interactions = interactions.get(row.user_id) ?? 0;
      counts.feedback_positive = Number(feedback.get(row.user_id)?.positive ?? 0);
      counts.feedback_negative = Number(feedback.get(row.user_id)?.negative ?? 0);
      Object.assign(counts, sessionCounts(sessions.get(row.user_id) ?? []));
      const pre = preEngagement.get(row.user_id) ?? 0;
      yield { user_id: row.user_id, variant: row.variant, cold_start: Number(row.cold) === 1, ...counts, pre_engagement: pre };
    }
    if (page.length < pageSize) return;
    after = last.user_id;
  }
}

function groupSessions(rows: readonly SessionRow[]): Map<string, SessionRow[]> {
  const grouped = new Map<string, SessionRow[]>();
  for (const row of rows) {
    const list = grouped.get(row.user_id);
    if (list) list.push(row);
    else grouped.set(row.user_id, [row]);
  }
  return grouped;
}

/** sessions, session_seconds (Σ milliseconds / 1000, one division) and bounces of one user's sessions. */
export function sessionCounts(rows: readonly SessionRow[]): { sessions: number; session_seconds: number; bounces: number } {
  let sessions = 0;
  let ms = 0;
  let bounces = 0;
  for (const row of rows) {
    if (row.started_ms === null || row.ended_ms === null) continue;
    sessions++;
    ms += Math.max(0, Number(row.ended_ms) - Number(row.started_ms));
    if (Number(row.clicks) === 0) bounces++;
  }
  return { sessions, session_seconds: ms / 1000, bounces };
}
