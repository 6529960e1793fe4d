/**
 * The retention agent, run through the agent framework on a real database: rows older than
 * their user's level keeps them go (full 365 days, limited 90, none everything), newer rows
 * stay, users who never chose follow the deployment default, and analytics rows are found by
 * pseudonym.
 */
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { makeStatus, postId } from '../../helpers/mastodon-fixtures.js';
import { privacyHarness, type PrivacyHarness } from './privacy-test-app.js';

const DAY = 86_400_000;
const NOW = Date.now();
const AGES = [400, 100, 10];

let h: PrivacyHarness;
afterEach(async () => {
  await h.close();
});

let sequence = 0;

/** One row per age in interactions, feedback (raw id) and analytics events, A/B and interleaved impressions (pseudonym). */
async function seedAges(userId: string): Promise<void> {
  const pseudonym = h.policy.pseudonym(userId);
  for (const [i, age] of AGES.entries()) {
    const at = NOW - age * DAY;
    sequence += 1;
    await sql`INSERT INTO interactions (id, user_id, post_id, action_type, context_json, created_at, created_at_ms)
      VALUES (${`i${sequence}`}, ${userId}, ${postId(i + 1)}, 'favorite', NULL, ${new Date(at).toISOString()}, ${at})`.execute(
      h.database.db,
    );
    await sql`INSERT INTO feedback (id, user_id, post_id, feedback, created_at, created_at_ms)
      VALUES (${`f${sequence}`}, ${userId}, ${postId(i + 1)}, 'more_like_this', ${new Date(at).toISOString()}, ${at})`.execute(
      h.database.db,
    );
    await sql`INSERT INTO analytics_events (type, user_id, post_id, session_id, occurred_at_ms, received_at_ms)
      VALUES ('view', ${pseudonym}, ${postId(i + 1)}, NULL, ${at}, ${at})`.execute(h.database.db);
    await sql`INSERT INTO experiment_impressions (experiment_id, variant, user_id, post_id, score, reason_code, served_at_ms)
      VALUES (1, 'control', ${pseudonym}, ${postId(i + 1)}, 0.5, 'popular', ${at})`.execute(h.database.db);
    await sql`INSERT INTO interleaving_impressions (experiment_id, user_id, post_id, team, served_at_ms)
      VALUES (2, ${pseudonym}, ${postId(i + 1)}, 'treatment', ${at})`.execute(h.database.db);
  }
}

/** The ages (days) of the user's rows still stored, per table. */
async function agesLeft(userId: string): Promise<Record<string, number[]>> {
  const keys = [userId, h.policy.pseudonym(userId)];
  const out: Record<string, number[]> = {};
  for (const [table, at] of [
    ['interactions', 'created_at_ms'],
    ['feedback', 'created_at_ms'],
    ['analytics_events', 'received_at_ms'],
    ['experiment_impressions', 'served_at_ms'],
    ['interleaving_impressions', 'served_at_ms'],
  ] as const) {
    const rows = await sql<{ at: number }>`SELECT ${sql.ref(at)} AS at FROM ${sql.table(table)}
      WHERE user_id IN (${sql.join(keys)}) ORDER BY 1`.execute(h.database.db);
    out[table] = rows.rows.map((row) => Math.round((NOW - row.at) / DAY)).sort((a, b) => b - a);
  }
  return out;
}

async function setup(defaultLevel: 'full' | 'limited'): Promise<void> {
  h = await privacyHarness({ policy: { defaultLevel }, now: () => NOW });
  const statuses = [1, 2, 3].map((n) => makeStatus({ n, author: `a${n}` }));
  const stored = await h.app.inject({ method: 'POST', url: '/api/v1/posts/batch', headers: await h.adminHeaders(), payload: { statuses } });
  expect(stored.statusCode).toBe(201);
  for (const [user, level] of [
    ['chose-full', 'full'],
    ['chose-limited', 'limited'],
    ['chose-none', 'none'],
  ] as const) {
    await h.policy.setLevel(user, level);
    await seedAges(user);
  }
  await seedAges('at-default');
}

function each(ages: number[]): Record<string, number[]> {
  return { interactions: ages, feedback: ages, analytics_events: ages, experiment_impressions: ages, interleaving_impressions: ages };
}

describe('retention agent', () => {
  it("purges only rows past their user's level, the default's for users who never chose", async () => {
    await setup('limited');
    const outcome = await h.app.agentRunner.runNow('retention');
    expect(outcome.status, outcome.error).toBe('success');
    expect(outcome.report?.details?.rows_purged).toBe(5 * (1 + 2 + 3 + 2));
    expect(await agesLeft('chose-full')).toEqual(each([100, 10]));
    expect(await agesLeft('chose-limited')).toEqual(each([10]));
    expect(await agesLeft('chose-none')).toEqual(each([]));
    expect(await agesLeft('at-default')).toEqual(each([10]));
    // A second run finds nothing more.
    expect((await h.app.agentRunner.runNow('retention')).report?.details?.rows_purged).toBe(0);
  });

  it('a deployment defaulting to full keeps its users’ rows for 365 days', async () => {
    await setup('full');
    expect((await h.app.agentRunner.runNow('retention')).status).toBe('success');
    expect(await agesLeft('at-default')).toEqual(each([100, 10]));
    expect(await agesLeft('chose-limited')).toEqual(each([10]));
    expect(await agesLeft('chose-full')).toEqual(each([100, 10]));
  });
});
