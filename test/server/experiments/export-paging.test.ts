import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { iterateEnrolledUsers } from '../../../server/experiments/user-counts.service.js';
import { createTestApp, type TestApp } from '../../helpers/test-app.js';
import { experimentBody } from './experiment-bodies.js';

const BASE = '/api/v1/analytics/experiments';
let t: TestApp;
beforeEach(async () => {
  t = await createTestApp();
});
afterEach(async () => t.close());

describe('streaming enrolled users', () => {
  it('pages through users by id without losing or repeating any, whatever the page size', async () => {
    const admin = await t.adminHeaders();
    const id = (await t.app.inject({ method: 'POST', url: BASE, headers: admin, payload: experimentBody() })).json().data.id;
    await t.app.inject({ method: 'POST', url: `${BASE}/${id}/start`, headers: admin });
    const users = Array.from({ length: 53 }, (_, i) => `user-${i}`);
    for (const user of users) await t.app.experiments.rankingPolicy.choose(user);
    // What the serving path records when it serves each user post p<i> (a click needs an impression).
    const servedAt = Date.now();
    await t.database.db
      .insertInto('experiment_impressions')
      .values(
        users.map((user, i) => ({
          experiment_id: id,
          variant: 'control',
          user_id: user,
          post_id: `p${i}`,
          score: 0.5,
          reason_code: 'HIGH_ENGAGEMENT',
          served_at_ms: servedAt,
        })),
      )
      .execute();
    const events = users.map((user, i) => ({ type: 'click', user_id: user, post_id: `p${i}` }));
    await t.app.inject({ method: 'POST', url: '/api/v1/analytics/events', headers: admin, payload: { events } });
    const collect = async (pageSize: number) => {
      const out = [];
      for await (const user of iterateEnrolledUsers(t.database.db, id, pageSize)) out.push(user);
      return out;
    };
    const whole = await collect(1000);
    expect(whole.map((u) => u.user_id)).toEqual([...users].sort());
    expect(whole.every((u) => u.clicks === 1 && u.cold_start)).toBe(true);
    for (const size of [1, 7, 53]) expect(await collect(size)).toEqual(whole);
  });
});
