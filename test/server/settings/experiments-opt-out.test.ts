/**
 * The experiments opt-out over real HTTP: an opted-out user gets the default ranking and
 * no assignment is recorded; opting out after enrolment stops the variant at once (the
 * runtime forgets its cached enrolment) and the recorded assignment stays as history;
 * opting back in restores the same variant.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_ALGORITHM_CONFIG, SHIPPED_RANKING_OPTIONS } from '../../../src/ranking/ranking.types.js';
import { experimentBody } from '../experiments/experiment-bodies.js';
import { settingsHarness, type SettingsHarness } from './settings-test-app.js';

const BASE = '/api/v1/analytics/experiments';
let h: SettingsHarness;

beforeEach(async () => {
  h = await settingsHarness();
});
afterEach(async () => {
  await h.close();
});

async function startExperiment(): Promise<number> {
  const admin = await h.adminHeaders();
  const created = await h.app.inject({ method: 'POST', url: BASE, headers: admin, payload: experimentBody() });
  expect(created.statusCode, created.body).toBe(201);
  const id = created.json().data.id as number;
  expect((await h.app.inject({ method: 'POST', url: `${BASE}/${id}/start`, headers: admin })).statusCode).toBe(200);
  return id;
}

async function optOut(userId: string, value: boolean): Promise<void> {
  const response = await h.app.inject({
    method: 'PATCH',
    url: '/api/v1/settings',
    headers: await h.userHeaders(userId),
    payload: { experiments_opt_out: value },
  });
  expect(response.statusCode, response.body).toBe(200);
}

async function assignments(userId: string) {
  return h.database.db.selectFrom('experiment_assignments').selectAll().where('user_id', '=', userId).execute();
}

const users = Array.from({ length: 20 }, (_, i) => `user${i}`);

describe('experiments_opt_out', () => {
  it('opted-out users are never enrolled: default ranking and no assignment row', async () => {
    await startExperiment();
    for (const user of users.slice(0, 10)) await optOut(user, true);
    for (const user of users) {
      const recommended = await h.app.inject({ url: `/api/v1/recommendations?user_id=${user}`, headers: await h.userHeaders(user) });
      expect(recommended.statusCode).toBe(200);
    }
    for (const user of users.slice(0, 10)) {
      expect(await h.app.experiments.rankingPolicy.choose(user)).toEqual({
        config: DEFAULT_ALGORITHM_CONFIG,
        options: SHIPPED_RANKING_OPTIONS,
        algorithm: 'default',
      });
      expect(await assignments(user)).toEqual([]);
    }
    for (const user of users.slice(10)) expect(await assignments(user)).toHaveLength(1);
  });

  it('opting out after enrolment takes effect at once; opting back in restores the recorded variant', async () => {
    const id = await startExperiment();
    const enrolled = await h.app.experiments.rankingPolicy.choose('alice');
    expect(enrolled.enrolment?.experimentId).toBe(id);
    await optOut('alice', true);
    const out = await h.app.experiments.rankingPolicy.choose('alice');
    expect(out.enrolment).toBeUndefined();
    expect(out.algorithm).toBe('default');
    expect(await assignments('alice')).toHaveLength(1);
    await optOut('alice', false);
    expect((await h.app.experiments.rankingPolicy.choose('alice')).enrolment).toEqual(enrolled.enrolment);
  });
});
