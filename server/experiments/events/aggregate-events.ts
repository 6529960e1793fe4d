/**
 * Client events of users at tracking level `limited`: no event row is stored; each event
 * only moves the user's kept counts (experiment_user_counts, and the same split by UTC day of
 * receipt in experiment_user_day_counts) in the experiment they are enrolled in and that is
 * ACTIVE when it arrives, judged by the same rules as stored events
 * as far as counts allow:
 *
 * - the timestamp window is the same;
 * - a click is accepted while the user has more impressions than clicks in that
 *   experiment (so clicks never exceed impressions), else refused as `no_impression` (none
 *   served) or `duplicate_click`; which post was clicked is not kept, so a second click on
 *   one post is only caught once clicks reach impressions;
 * - a view is accepted when the user was served anything (views count in no metric);
 * - a session's start and end (and the clicks carrying its id) are kept in
 *   experiment_open_sessions until both are there; then the session is judged as a stored
 *   one would be (duplicate, ends before start, over 12 h) and folded into sessions,
 *   session milliseconds and bounces, and its row deleted. A click arriving after its
 *   session was folded no longer turns a bounce into a session with a click.
 *
 * Events of a user enrolled nowhere are judged by their timestamp alone (clicks and views:
 * `no_impression`, as for a stored event without an impression) and leave nothing behind.
 */
import type { Kysely } from 'kysely';
import { sessionVerdict, timestampVerdict, type EventToJudge, type Verdict } from '../../../src/experiments/event-rules.js';
import type { Database } from '../../platform/db/database.js';
import { addDayCounts } from '../experiment-data.repository.js';
import {
  addCounts,
  deleteOpenSession,
  enrolledCounts,
  findOpenSession,
  saveOpenSession,
  type EnrolledCountsRow,
} from './analytics.repository.js';

const refused = (reason: NonNullable<Verdict['reason']>): Verdict => ({ reason, impressionId: null });
const ACCEPTED: Verdict = { reason: null, impressionId: null };

/** Judges `events` (user ids already pseudonyms) in order and moves the kept counts, inside the caller's transaction. */
export async function recordAggregated(trx: Kysely<Database>, events: readonly EventToJudge[], receivedAtMs: number): Promise<Verdict[]> {
  const enrolled = new Map<string, EnrolledCountsRow[]>();
  const verdicts: Verdict[] = [];
  for (const event of events) {
    let rows = enrolled.get(event.userId);
    if (!rows) enrolled.set(event.userId, (rows = await enrolledCounts(trx, event.userId, receivedAtMs)));
    verdicts.push(await judge(trx, event, rows, receivedAtMs));
  }
  return verdicts;
}

async function judge(trx: Kysely<Database>, event: EventToJudge, rows: EnrolledCountsRow[], receivedAtMs: number): Promise<Verdict> {
  const late = timestampVerdict(event.occurredAtMs, receivedAtMs);
  if (late) return refused(late);
  if (event.type === 'view') return rows.some((row) => row.impressions > 0) ? ACCEPTED : refused('no_impression');
  if (event.type === 'click') return click(trx, event, rows, receivedAtMs);
  if (event.sessionId === undefined) return ACCEPTED;
  let verdict = ACCEPTED;
  for (const row of rows) {
    const outcome = await sessionEvent(trx, row.experiment_id, event, event.sessionId, receivedAtMs);
    if (outcome.reason !== null) verdict = outcome;
  }
  return verdict;
}

async function click(trx: Kysely<Database>, event: EventToJudge, rows: EnrolledCountsRow[], receivedAtMs: number): Promise<Verdict> {
  const claimable = rows.filter((row) => row.clicks < row.impressions);
  if (claimable.length === 0) return refused(rows.some((row) => row.impressions > 0) ? 'duplicate_click' : 'no_impression');
  for (const row of claimable) {
    row.clicks += 1;
    await addCounts(trx, row.experiment_id, event.userId, { clicks: 1 });
    await addDayCounts(trx, row.experiment_id, event.userId, receivedAtMs, { clicks: 1 });
    if (event.sessionId === undefined) continue;
    const open =
      (await findOpenSession(trx, row.experiment_id, event.userId, event.sessionId)) ??
      emptySession(row.experiment_id, event, event.sessionId);
    await saveOpenSession(trx, { ...open, clicks: Number(open.clicks) + 1, updated_at_ms: receivedAtMs });
  }
  return ACCEPTED;
}

async function sessionEvent(
  trx: Kysely<Database>,
  experimentId: number,
  event: EventToJudge,
  sessionId: string,
  receivedAtMs: number,
): Promise<Verdict> {
  const type = event.type as 'session_start' | 'session_end';
  const open = (await findOpenSession(trx, experimentId, event.userId, sessionId)) ?? emptySession(experimentId, event, sessionId);
  const bounds = { startMs: nullableNumber(open.started_ms), endMs: nullableNumber(open.ended_ms) };
  const reason = sessionVerdict(type, event.occurredAtMs, bounds);
  if (reason) return refused(reason);
  const startMs = type === 'session_start' ? event.occurredAtMs : bounds.startMs;
  const endMs = type === 'session_end' ? event.occurredAtMs : bounds.endMs;
  if (startMs !== null && endMs !== null) {
    const bounce = Number(open.clicks) === 0 ? 1 : 0;
    const folded = { sessions: 1, session_ms: Math.max(0, endMs - startMs), bounces: bounce };
    await addCounts(trx, experimentId, event.userId, folded);
    await addDayCounts(trx, experimentId, event.userId, receivedAtMs, folded);
    await deleteOpenSession(trx, experimentId, event.userId, sessionId);
  } else {
    await saveOpenSession(trx, { ...open, started_ms: startMs, ended_ms: endMs, updated_at_ms: receivedAtMs });
  }
  return ACCEPTED;
}

function emptySession(experimentId: number, event: EventToJudge, sessionId: string) {
  return {
    experiment_id: experimentId,
    user_id: event.userId,
    session_id: sessionId,
    started_ms: null,
    ended_ms: null,
    clicks: 0,
    updated_at_ms: 0,
  };
}

function nullableNumber(value: number | null): number | null {
  return value === null ? null : Number(value);
}
