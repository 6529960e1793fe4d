/**
 * A recommendation list that fails is still reported to the experiment: it counts as a
 * request and an error of the user's variant (error_rate, which the max_error_rate gate reads).
 */
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { assignVariant } from '../../../src/experiments/assignment.js';
import { makeStatus } from '../../helpers/mastodon-fixtures.js';
import { createTestApp, type TestApp } from '../../helpers/test-app.js';
import { experimentBody } from './experiment-bodies.js';

const BASE = '/api/v1/analytics/experiments';
let t: TestApp;
let admin: Record<string, string>;
let id: number;

beforeEach(async () => {
  t = await createTestApp();
  admin = await t.adminHeaders();
  const statuses = Array.from({ length: 6 }, (_, i) => makeStatus({ n: i + 1, author: `author${i}` }));
  expect((await t.app.inject({ method: 'POST', url: '/api/v1/posts/batch', headers: admin, payload: { statuses } })).statusCode).toBe(201);
  id = (await t.app.inject({ method: 'POST', url: BASE, headers: admin, payload: experimentBody() })).json().data.id;
  expect((await t.app.inject({ method: 'POST', url: `${BASE}/${id}/start`, headers: admin })).statusCode).toBe(200);
});
afterEach(async () => t.close());

const recommend = async (user: string) =>
  t.app.inject({ method: 'GET', url: `/api/v1/recommendations?user_id=${user}&limit=5`, headers: await t.userHeaders(user) });

describe('failed recommendation lists', () => {
  it("count as requests and errors of the user's variant (its error_rate)", async () => {
    expect((await recommend('ok-user')).statusCode).toBe(200);
    // Make profile building fail for users seen for the first time (their interest vector cannot be read;
    // the assignment, which reads interactions and feedback, still succeeds).
    await sql`ALTER TABLE user_interests RENAME TO user_interests_hidden`.execute(t.database.db);
    const failing = await recommend('unlucky-user');
    await sql`ALTER TABLE user_interests_hidden RENAME TO user_interests`.execute(t.database.db);
    expect(failing.statusCode).toBe(500);
    expect(failing.json()).toMatchObject({ error: 'Internal server error', status_code: 500 });

    const metrics = (await t.app.inject({ method: 'GET', url: `${BASE}/${id}/metrics`, headers: admin })).json().data;
    const variantOf = (user: string) => assignVariant(user, id, experimentBody().variants).variant?.name;
    const performance = (name: string | undefined) => metrics.variants.find((v: { name: string }) => v.name === name).performance;
    const unlucky = performance(variantOf('unlucky-user'));
    const ok = performance(variantOf('ok-user'));
    if (variantOf('unlucky-user') === variantOf('ok-user')) {
      expect(unlucky).toMatchObject({ requests: 2, errors: 1, error_rate: 0.5 });
    } else {
      expect(unlucky).toMatchObject({ requests: 1, errors: 1, error_rate: 1 });
      expect(ok).toMatchObject({ requests: 1, errors: 0, error_rate: 0 });
    }
  });
});
