import { describe, expect, it } from 'vitest';
import { createJsonlExportParser, parseLines } from '../../../../src/experiments/io/export-format.js';
import { InputFileError } from '../../../../src/experiments/io/input-file-error.js';
import { COUNT_KEYS, METRIC_NAMES, type UserCounts } from '../../../../src/experiments/metrics.js';
import { MAX_TIMELINE_POINTS, createTimelineExportParser } from '../../../../src/experiments/report/timeline.js';
import { createAccumulators } from '../../../../src/experiments/stats/variant-accumulator.js';

const DAY = 86_400_000;
const START = Date.UTC(2026, 2, 1);
const experiment = {
  type: 'experiment',
  id: 3,
  confidence_level: 0.95,
  minimum_sample_size: 10,
  variants: [
    { name: 'a', traffic_allocation: 50, is_control: true },
    { name: 'b', traffic_allocation: 50, is_control: false },
  ],
};

function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

interface TimedUser {
  variant: string;
  assigned: number;
  /** day (ms) → counts */
  days: Map<number, UserCounts>;
}

const iso = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const zero = (): UserCounts => Object.fromEntries(COUNT_KEYS.map((k) => [k, 0])) as unknown as UserCounts;

/** Users enrolled over `span` days, each active on a few days from enrolment on. */
function makeUsers(count: number, span: number): TimedUser[] {
  const next = random(5);
  return Array.from({ length: count }, (_, i) => {
    const assignedDay = START + Math.floor(next() * span) * DAY;
    const days = new Map<number, UserCounts>();
    for (let d = assignedDay; d < START + span * DAY; d += DAY) {
      if (next() < 0.5) continue;
      const impressions = 1 + Math.floor(next() * 6);
      const sessions = 1 + Math.floor(next() * 2);
      days.set(d, {
        impressions,
        clicks: Math.floor(next() * (impressions + 1)),
        interactions: Math.floor(next() * 2),
        sessions,
        session_seconds: Math.round(next() * 2000) / 10,
        bounces: Math.floor(next() * (sessions + 1)),
        feedback_positive: Math.floor(next() * 2),
        feedback_negative: Math.floor(next() * 2),
      });
    }
    return { variant: i % 2 === 0 ? 'a' : 'b', assigned: assignedDay + Math.floor(next() * DAY), days };
  });
}

function totals(user: TimedUser, through = Infinity): UserCounts {
  const sum = zero();
  for (const [day, counts] of user.days) if (day <= through) for (const key of COUNT_KEYS) sum[key] += counts[key];
  return sum;
}

function lines(users: TimedUser[], options: { days?: boolean } = {}): string[] {
  return [
    JSON.stringify(experiment),
    ...users.map((u, i) =>
      JSON.stringify({
        type: 'user',
        user_id: `u${i}`,
        variant: u.variant,
        ...totals(u),
        assigned_at: new Date(u.assigned).toISOString(),
        ...(options.days === false ? {} : { days: Object.fromEntries([...u.days].map(([d, c]) => [iso(d), c])) }),
      }),
    ),
  ];
}

async function* iterate(text: string[]): AsyncGenerator<string> {
  yield* text;
}

const parse = (text: string[]) => parseLines(iterate(text), createTimelineExportParser(createJsonlExportParser('x.jsonl'), 'x.jsonl'));

describe('the timeline of one export', () => {
  const users = makeUsers(400, 10);

  it('gives, for every day, exactly the accumulators of the users enrolled by then with their counts up to then', async () => {
    const { parsed, timeline } = await parse(lines(users));
    expect(timeline.daily?.map((d) => d.at)).toEqual(Array.from({ length: 10 }, (_, i) => START + i * DAY));
    for (const point of timeline.daily ?? []) {
      // Independent: recount from the users themselves.
      const expected = createAccumulators(['a', 'b']);
      for (const u of users) if (Math.floor(u.assigned / DAY) * DAY <= point.at) expected.get(u.variant)?.add(totals(u, point.at));
      for (const variant of ['a', 'b']) {
        const got = point.accumulators.get(variant);
        const want = expected.get(variant);
        expect(got?.users).toBe(want?.users);
        for (const metric of METRIC_NAMES) {
          const [g, w] = [got?.moments(metric), want?.moments(metric)];
          for (const field of ['sumX', 'sumY', 'meanX', 'meanY', 'm2x', 'm2y', 'cxy'] as const)
            expect(g?.[field]).toBeCloseTo(w?.[field] as number, 6);
        }
      }
    }
    // The last day is the export's totals.
    expect(timeline.daily?.at(-1)?.accumulators.get('b')?.moments('click_through_rate').sumX).toBe(
      parsed.accumulators.get('b')?.moments('click_through_rate').sumX,
    );
    const lastUsers = timeline.usersByDay?.at(-1)?.users;
    expect(lastUsers).toEqual({ a: 200, b: 200 });
  });

  it('with assigned_at but no days: users per variant by day only', async () => {
    const { timeline } = await parse(lines(users, { days: false }));
    expect(timeline.daily).toBeUndefined();
    const byDay = timeline.usersByDay ?? [];
    for (const { at, users: counts } of byDay)
      expect(counts.a).toBe(users.filter((u) => u.variant === 'a' && Math.floor(u.assigned / DAY) * DAY <= at).length);
    expect(byDay.map((d) => d.at)[0]).toBe(Math.min(...users.map((u) => Math.floor(u.assigned / DAY) * DAY)));
  });

  it('no timeline unless every user line has assigned_at', async () => {
    const text = lines(users);
    const untimed = JSON.parse(text[5] as string) as Record<string, unknown>;
    delete untimed.assigned_at;
    text[5] = JSON.stringify(untimed);
    expect((await parse(text)).timeline).toEqual({});
    expect((await parse([JSON.stringify(experiment)])).timeline).toEqual({});
  });

  it('thins a long experiment to at most MAX_TIMELINE_POINTS days, keeping the last', async () => {
    const long = makeUsers(60, 400);
    const { timeline } = await parse(lines(long));
    const days = timeline.daily?.map((d) => d.at) ?? [];
    expect(days.length).toBeLessThanOrEqual(MAX_TIMELINE_POINTS);
    expect(days.length).toBeGreaterThan(MAX_TIMELINE_POINTS / 2);
    expect(days.at(-1)).toBe(Math.max(...long.flatMap((u) => [...u.days.keys(), Math.floor(u.assigned / DAY) * DAY])));
  });

  it.each([
    ['a bad assigned_at', { assigned_at: 'yesterday' }, /^x\.jsonl:2:\d+: assigned_at must be an ISO 8601 time/],
    [
      'days that do not add up',
      { days: { '2026-03-01': { impressions: 999 } } },
      /^x\.jsonl:2:\d+: days add up to impressions 999, not the user's \d+/,
    ],
    ['an unknown count', { days: { '2026-03-01': { likes: 1 } } }, /^x\.jsonl:2:\d+: days\.2026-03-01: unknown count "likes"/],
    ['a bad date', { days: { 'March 1': {} } }, /^x\.jsonl:2:\d+: days: "March 1" is not a date "YYYY-MM-DD"/],
  ])('refuses %s with file:line:column', async (_name, change, message) => {
    const text = lines(users.slice(0, 3));
    text[1] = JSON.stringify({ ...(JSON.parse(text[1] as string) as object), ...change });
    const error = await parse(text).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InputFileError);
    expect((error as Error).message).toMatch(message);
  });
});
