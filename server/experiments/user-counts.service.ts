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
 * interactions in the 14 days before the experiment first became active.
 *
 * User ids are pseudonyms. Impressions, clicks and sessions add what event rows give (users
 * at `full`) to what the user's kept counts hold (users at `limited`, who have no event rows;
 * a user whose level changed has some of each); interactions, feedback, pre_engagement and
 * the cold start come from the kept counts alone (experiment-data.repository.ts says why).
 */
import type { Kysely } from 'kysely';
import type { DayCounts, UserRecord } from '../../src/experiments/io/export-format.js';
import { emptyCounts, type UserCounts } from '../../src/experiments/metrics.js';
import type { Database } from '../platform/db/database.js';
import {
  clickCounts,
  clickDayCounts,
  DAY_COUNT_COLUMNS,
  impressionCounts,
  impressionDayCounts,
  keptDayCounts,
  pageAssignments,
  sessionRows,
  type DayCountColumn,
  type SessionRow,
  type UserCountRow,
  type UserDayCountRow,
} from './experiment-data.repository.js';

/** A user line plus whether the user was a cold start (no activity before assignment) and when they were assigned. */
export interface EnrolledUser extends UserRecord {
  user_id: string;
  pre_engagement: number;
  cold_start: boolean;
  assigned_at_ms: number;
}

export interface EnrolledUserOptions {
  /**
   * Also split each user's counts by UTC day (`days`, the export's per-day counts): impressions
   * by serving time, clicks and sessions by receipt (a session on the day its later end was
   * received), interactions and feedback by creation, as kept per day at write time
   * (experiment_user_day_counts). Left out for a user whose days do not add up to the totals
   * (counts kept before the split existed, or days past retention): the report then shows no
   * daily history rather than a wrong one.
   */
  days?: boolean;
}

export const USER_PAGE_SIZE = 1000;

const byUser = (rows: readonly UserCountRow[]): Map<string, number> => new Map(rows.map((row) => [row.user_id, Number(row.value)]));

/** The experiment's enrolled users and their counts, by user id. */
export async function* iterateEnrolledUsers(
  db: Kysely<Database>,
  experimentId: number,
  pageSize = USER_PAGE_SIZE,
  options: EnrolledUserOptions = {},
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
    const sessions = groupSessions(await sessionRows(...range, { withReceipt: options.days === true }));
    const days = options.days === true ? await dayCounts(range, sessions) : undefined;
    for (const row of page) {
      const counts = emptyCounts();
      counts.impressions = (impressions.get(row.user_id) ?? 0) + Number(row.impressions);
      counts.clicks = (clicks.get(row.user_id) ?? 0) + Number(row.clicks);
      counts.interactions = Number(row.interactions);
      counts.feedback_positive = Number(row.feedback_positive);
      counts.feedback_negative = Number(row.feedback_negative);
      Object.assign(counts, sessionCounts(sessions.get(row.user_id) ?? [], row));
      const pre = Number(row.pre_engagement);
      const userDays = days === undefined ? undefined : daysAddingUp(days.get(row.user_id), counts);
      yield {
        user_id: row.user_id,
        variant: row.variant,
        assigned_at_ms: Number(row.assigned_at_ms),
        ...(userDays === undefined ? {} : { days: userDays }),
        // Recorded at assignment (the pseudonym hides it); absent on rows from before it was.
        ...(row.instance === null ? {} : { instance: row.instance }),
        cold_start: Number(row.cold) === 1,
        ...counts,
        pre_engagement: pre,
      };
    }
    if (page.length < pageSize) return;
    after = last.user_id;
  }
}

type DayRow = Record<DayCountColumn, number>;
type UserDays = Map<number, DayRow>;

/** Every user of the page's counts per day: event rows (users at `full`) plus what was kept per day. */
async function dayCounts(
  range: readonly [Kysely<Database>, number, string, string],
  sessions: ReadonlyMap<string, readonly SessionRow[]>,
): Promise<Map<string, UserDays>> {
  const byUser = new Map<string, UserDays>();
  const at = (user: string, atMs: number): DayRow => {
    const dayMs = Math.floor(atMs / DAY_MS) * DAY_MS;
    let days = byUser.get(user);
    if (!days) byUser.set(user, (days = new Map<number, DayRow>()));
    let day = days.get(dayMs);
    if (!day) days.set(dayMs, (day = Object.fromEntries(DAY_COUNT_COLUMNS.map((c) => [c, 0])) as DayRow));
    return day;
  };
  const addRows = (rows: readonly UserDayCountRow[], column: DayCountColumn): void => {
    for (const r of rows) at(r.user_id, Number(r.day_ms))[column] += Number(r.value);
  };
  addRows(await impressionDayCounts(...range), 'impressions');
  addRows(await clickDayCounts(...range), 'clicks');
  for (const [user, rows] of sessions) {
    for (const r of rows) {
      if (r.started_ms === null || r.ended_ms === null || r.received_ms === null || r.received_ms === undefined) continue;
      const day = at(user, Number(r.received_ms));
      day.sessions += 1;
      day.session_ms += Math.max(0, Number(r.ended_ms) - Number(r.started_ms));
      if (Number(r.clicks) === 0) day.bounces += 1;
    }
  }
  for (const r of await keptDayCounts(...range)) {
    const day = at(r.user_id, Number(r.day_ms));
    for (const column of DAY_COUNT_COLUMNS) day[column] += Number(r[column]);
  }
  return byUser;
}

const DAY_MS = 86_400_000;

/** The user's days as the export writes them (zero counts left out), or undefined when they do not add up to `totals`. */
function daysAddingUp(days: UserDays | undefined, totals: UserCounts): Record<string, DayCounts> | undefined {
  const sums = Object.fromEntries(DAY_COUNT_COLUMNS.map((c) => [c, 0])) as DayRow;
  const out: Record<string, DayCounts> = {};
  for (const [dayMs, day] of [...(days ?? new Map<number, DayRow>())].sort((a, b) => a[0] - b[0])) {
    const counts: DayCounts = {};
    for (const column of DAY_COUNT_COLUMNS) {
      const value = day[column];
      if (value < 0) return undefined;
      sums[column] += value;
      if (value === 0 || column === 'session_ms') continue;
      counts[column] = value;
    }
    if (day.session_ms > 0) counts.session_seconds = day.session_ms / 1000;
    if (Object.keys(counts).length > 0) out[new Date(dayMs).toISOString().slice(0, 10)] = counts;
  }
  const sessionMs = Math.round(totals.session_seconds * 1000);
  const adds = DAY_COUNT_COLUMNS.every((c) => (c === 'session_ms' ? sums[c] === sessionMs : sums[c] === totals[c]));
  return adds ? out : undefined;
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

/** Sessions already summed (a `limited` user's kept counts). */
export interface SummedSessions {
  sessions: number;
  session_ms: number;
  bounces: number;
}

/**
 * sessions, session_seconds (Σ milliseconds / 1000, one division) and bounces of one user's
 * sessions, plus those already summed.
 */
export function sessionCounts(
  rows: readonly SessionRow[],
  summed: SummedSessions = { sessions: 0, session_ms: 0, bounces: 0 },
): { sessions: number; session_seconds: number; bounces: number } {
  let sessions = Number(summed.sessions);
  let ms = Number(summed.session_ms);
  let bounces = Number(summed.bounces);
  for (const row of rows) {
    if (row.started_ms === null || row.ended_ms === null) continue;
    sessions++;
    ms += Math.max(0, Number(row.ended_ms) - Number(row.started_ms));
    if (Number(row.clicks) === 0) bounces++;
  }
  return { sessions, session_seconds: ms / 1000, bounces };
}
