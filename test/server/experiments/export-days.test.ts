/**
 * The export carries time (issue 13): `exported_at` on the experiment line (the service's
 * clock), `assigned_at` and per-UTC-day counts (`days`) on user lines, adding up to the totals,
 * for a `full` user (from event rows) and a `limited` user (from the counts kept per day at
 * write time), over an experiment served across several simulated days. The report's reader
 * (timeline.ts) accepts the export and draws one point per day; the analysis ignores the new
 * fields. Users with kept counts from before the per-day split get no `days` (never wrong ones).
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJsonlExportParser, parseLines } from '../../../src/experiments/io/export-format.js';
import { COUNT_KEYS, type UserCounts } from '../../../src/experiments/metrics.js';
import { createTimelineExportParser } from '../../../src/experiments/report/timeline.js';
import type { Experiment } from '../../../src/experiments/experiment-response.schema.js';
import type { TrackingLevel } from '../../../src/privacy/tracking-level.js';
import { addImpressionDayCounts } from '../../../server/experiments/experiment-data.repository.js';
import { ExperimentResultsService } from '../../../server/experiments/experiment-results.service.js';
import { addImpressionCounts, addUserCounts } from '../../../server/experiments/serving.repository.js';
import { enforcement, POSTS, type Enforcement } from '../privacy-enforcement/enforcement-fixture.js';

const DAY = 86_400_000;
const LEVELS: Record<string, TrackingLevel> = { 'ann@full.example': 'full', 'dan@limited.example': 'limited' };
const DAYS = 3;

let e: Enforcement;
let lines: Array<Record<string, unknown>>;
let text: string;
let firstDayMs: number;

/** The experiment as the export reads it (its id, design and variants; the fixture's ACTIVE experiment). */
const experimentOf = (id: number) =>
  ({
    id,
    name: 'privacy',
    status: 'ACTIVE',
    confidence_level: 0.95,
    minimum_sample_size: 1,
    variants: [
      { name: 'control', traffic_allocation: 50, is_control: true },
      { name: 'treatment', traffic_allocation: 50, is_control: false },
    ],
  }) as unknown as Experiment;

async function* linesOf(text: string): AsyncGenerator<string> {
  yield* text.split('\n');
}

/** One simulated day of a user: 4 posts served, `day % 2 + 1` clicks in a 30 s session. */
async function dayOf(user: string, day: number): Promise<void> {
  const choice = await e.runtime.choose(user);
  const items = POSTS.slice(0, 4).map((postId, i) => ({ postId, score: 0.9 - i / 10, reasonCode: 'HIGH_ENGAGEMENT' }));
  if (LEVELS[user] === 'full') {
    await e.recorder.record({ userId: user, choice, items, latencyMs: 10, cacheHit: false });
    await e.recorder.drain();
  } else {
    // What the serving recorder does for a `limited` user (no impression rows), with the per-day
    // side the lead wires into it (report of issue 13): kept counts and their day in one transaction.
    const counts = [{ experimentId: e.experimentId, pseudonym: e.privacy.pseudonym(user), impressions: items.length }];
    await e.database.db.transaction().execute(async (trx) => {
      await addImpressionCounts(trx, counts);
      await addImpressionDayCounts(trx, counts, e.clock.now);
    });
  }
  const at = (offsetMs: number) => new Date(e.clock.now + offsetMs).toISOString();
  const session = `s-${day}`;
  await e.analytics.record([
    { type: 'session_start', user_id: user, session_id: session, timestamp: at(0) },
    ...POSTS.slice(0, (day % 2) + 1).map((postId) => ({
      type: 'click' as const,
      user_id: user,
      post_id: postId,
      session_id: session,
      timestamp: at(1_000),
    })),
    { type: 'session_end', user_id: user, session_id: session, timestamp: at(30_000) },
  ]);
  if (day === 1) {
    // An interaction kept per day: addUserCounts adds to the day's counts too.
    await e.database.db.transaction().execute(async (trx) => {
      await addUserCounts(trx, e.privacy.pseudonym(user), e.clock.now, 'interactions', 1);
    });
  }
}

beforeAll(async () => {
  e = await enforcement(LEVELS);
  firstDayMs = Math.floor(e.clock.now / DAY) * DAY;
  for (let day = 0; day < DAYS; day++) {
    for (const user of Object.keys(LEVELS)) await dayOf(user, day);
    e.clock.now += DAY;
  }
  const experiment = experimentOf(e.experimentId);
  text = '';
  for await (const line of new ExperimentResultsService(e.database.db, () => e.clock.now).exportLines(experiment)) text += line;
  lines = text
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
});
afterAll(async () => e?.close());

const userLine = (user: string) =>
  lines.find((l) => l.type === 'user' && l.user_id === e.privacy.pseudonym(user)) as Record<string, unknown>;
const isoDay = (d: number) => new Date(firstDayMs + d * DAY).toISOString().slice(0, 10);

describe('the export carries time', () => {
  it("stamps the experiment line with the service's clock", () => {
    expect(lines[0]).toMatchObject({ type: 'experiment', exported_at: new Date(e.clock.now).toISOString() });
  });

  it('gives every user line its assignment time', () => {
    for (const user of Object.keys(LEVELS)) expect(Date.parse(userLine(user).assigned_at as string)).toBeGreaterThanOrEqual(firstDayMs);
  });

  for (const [user, level] of Object.entries(LEVELS)) {
    it(`splits a ${level} user's counts by UTC day, adding up to the totals`, () => {
      const line = userLine(user);
      const days = line.days as Record<string, Partial<UserCounts>>;
      expect(Object.keys(days)).toEqual([0, 1, 2].map(isoDay));
      for (let d = 0; d < DAYS; d++) {
        const clicks = (d % 2) + 1;
        expect(days[isoDay(d)], `${user} day ${d}`).toEqual({
          impressions: 4,
          clicks,
          sessions: 1,
          session_seconds: 30,
          ...(d === 1 ? { interactions: 1 } : {}),
        });
      }
      for (const key of COUNT_KEYS) {
        const sum = Object.values(days).reduce((total, counts) => total + (counts[key] ?? 0), 0);
        expect(sum, `${user} ${key}`).toBe(line[key]);
      }
      expect(line).toMatchObject({ impressions: 12, clicks: 4, sessions: 3, interactions: 1, bounces: 0 });
    });
  }

  it('reads back in the report as one point per day, and the analysis ignores the time fields', async () => {
    const parsed = await parseLines(linesOf(text), createTimelineExportParser(createJsonlExportParser('export.jsonl'), 'export.jsonl'));
    expect(parsed.timeline.daily?.map((d) => d.at)).toEqual([0, 1, 2].map((d) => firstDayMs + d * DAY));
    expect(parsed.timeline.usersByDay?.at(-1)?.users).toBeDefined();
    const plain = await parseLines(linesOf(text), createJsonlExportParser('export.jsonl'));
    const last = parsed.timeline.daily?.at(-1)?.accumulators;
    for (const [variant, acc] of plain.accumulators)
      expect(last?.get(variant)?.moments('click_through_rate')).toEqual(acc.moments('click_through_rate'));
  });

  it('leaves out the days of a user whose kept counts predate the per-day split', async () => {
    // Counts kept before migration 0025 have no day rows: the totals move, the days do not.
    await sql`UPDATE experiment_user_counts SET feedback_negative = feedback_negative + 1 WHERE user_id = ${e.privacy.pseudonym('dan@limited.example')}`.execute(
      e.database.db,
    );
    const experiment = experimentOf(e.experimentId);
    const users: Array<Record<string, unknown>> = [];
    for await (const line of new ExperimentResultsService(e.database.db, () => e.clock.now).exportLines(experiment)) {
      const record = JSON.parse(line) as Record<string, unknown>;
      if (record.type === 'user') users.push(record);
    }
    const limited = users.find((u) => u.user_id === e.privacy.pseudonym('dan@limited.example'));
    expect(limited).toMatchObject({ feedback_negative: 1 });
    expect(limited?.days).toBeUndefined();
    expect(limited?.assigned_at).toBeDefined();
    expect(users.find((u) => u.user_id === e.privacy.pseudonym('ann@full.example'))?.days).toBeDefined();
  });
});
