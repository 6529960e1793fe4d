/**
 * PATCH /experiments/:id (allocations) and POST /experiments/:id/allocation-diff: real
 * SQLite, real serving path recording assignments, fastify inject.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bucketOf } from '../../../src/experiments/assignment.js';
import { createTestApp, type TestApp } from '../../helpers/test-app.js';
import { experimentBody } from './experiment-bodies.js';

const BASE = '/api/v1/analytics/experiments';
const SPLIT_40_60 = [
  { name: 'control', traffic_allocation: 40 },
  { name: 'treatment', traffic_allocation: 60 },
];
let t: TestApp;
let admin: Record<string, string>;

beforeEach(async () => {
  t = await createTestApp();
  admin = await t.adminHeaders();
});
afterEach(async () => t.close());

async function created(): Promise<number> {
  const response = await t.app.inject({ method: 'POST', url: BASE, headers: admin, payload: experimentBody() });
  expect(response.statusCode).toBe(201);
  return response.json().data.id as number;
}

async function act(id: number, action: string): Promise<void> {
  expect((await t.app.inject({ method: 'POST', url: `${BASE}/${id}/${action}`, headers: admin })).statusCode).toBe(200);
}

const patch = (id: number, payload: object, headers = admin) => t.app.inject({ method: 'PATCH', url: `${BASE}/${id}`, headers, payload });
const diff = (id: number, payload: object, headers = admin) =>
  t.app.inject({ method: 'POST', url: `${BASE}/${id}/allocation-diff`, headers, payload });

/** Serves users through the real recommendations endpoint so their assignments are recorded. */
async function serve(users: string[]): Promise<void> {
  for (const user of users) {
    const response = await t.app.inject({
      method: 'GET',
      url: `/api/v1/recommendations?user_id=${user}&limit=5`,
      headers: await t.userHeaders(user),
    });
    expect(response.statusCode).toBe(200);
  }
}

async function recorded(id: number): Promise<Array<{ user_id: string; variant: string }>> {
  return t.database.db
    .selectFrom('experiment_assignments')
    .select(['user_id', 'variant'])
    .where('experiment_id', '=', id)
    .orderBy('user_id')
    .execute();
}

async function allocationsOf(id: number): Promise<number[]> {
  const response = await t.app.inject({ method: 'GET', url: `${BASE}/${id}`, headers: admin });
  return response.json().data.variants.map((v: { traffic_allocation: number }) => v.traffic_allocation);
}

describe('allocation changes', () => {
  it('changes a DRAFT freely, keeping the variant order whatever the body order', async () => {
    const id = await created();
    const response = await patch(id, { variants: [...SPLIT_40_60].reverse() });
    expect(response.statusCode).toBe(200);
    expect(response.json().data.variants.map((v: { name: string; traffic_allocation: number }) => [v.name, v.traffic_allocation])).toEqual([
      ['control', 40],
      ['treatment', 60],
    ]);
    expect(await allocationsOf(id)).toEqual([40, 60]);
  });

  it('diffs, refuses to move assigned users without force, and changes with force keeping recorded assignments', async () => {
    const id = await created();
    await act(id, 'start');
    const users = Array.from({ length: 60 }, (_, i) => `mover-${i}`);
    await serve(users);
    const before = await recorded(id);
    expect(before).toHaveLength(users.length);
    const moving = before.filter((row) => bucketOf(row.user_id, id) >= 40 && bucketOf(row.user_id, id) < 50);
    expect(moving.length).toBeGreaterThan(0);
    expect(moving.every((row) => row.variant === 'control')).toBe(true);

    const preview = await diff(id, { variants: SPLIT_40_60 });
    expect(preview.statusCode).toBe(200);
    expect(preview.json().data).toEqual({
      buckets: [{ start: 40, end: 50, from: 'control', to: 'treatment' }],
      buckets_moving: 10,
      moves: [{ from: 'control', to: 'treatment', users: moving.length }],
      users_assigned: users.length,
      users_moving: moving.length,
    });

    const refused = await patch(id, { variants: SPLIT_40_60 });
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ error: 'Conflict', status_code: 409 });
    expect(refused.json().message).toContain(`would move ${moving.length} of ${users.length} assigned users`);
    expect(refused.json().message).toContain('force');
    expect(await allocationsOf(id)).toEqual([50, 50]);

    const forced = await patch(id, { variants: SPLIT_40_60, force: true });
    expect(forced.statusCode).toBe(200);
    expect(await allocationsOf(id)).toEqual([40, 60]);
    expect(await recorded(id)).toEqual(before);

    const newcomer = Array.from({ length: 2000 }, (_, i) => `new-${i}`).find(
      (u) => bucketOf(u, id) >= 40 && bucketOf(u, id) < 50,
    ) as string;
    await serve([newcomer]);
    expect((await recorded(id)).find((row) => row.user_id === newcomer)?.variant).toBe('treatment');
  });

  it('changes an ACTIVE or PAUSED experiment without force when no assigned user moves', async () => {
    const id = await created();
    await act(id, 'start');
    expect((await patch(id, { variants: SPLIT_40_60 })).statusCode).toBe(200);
    await act(id, 'pause');
    expect(
      (await patch(id, { variants: [...SPLIT_40_60].map((v) => ({ ...v, traffic_allocation: 100 - v.traffic_allocation })) })).statusCode,
    ).toBe(200);
    expect(await allocationsOf(id)).toEqual([60, 40]);
  });

  it('refuses a COMPLETED experiment even with force (409 naming the state), but still previews', async () => {
    const id = await created();
    await act(id, 'start');
    await act(id, 'stop');
    const response = await patch(id, { variants: SPLIT_40_60, force: true });
    expect(response.statusCode).toBe(409);
    expect(response.json().message).toContain('COMPLETED');
    expect(await allocationsOf(id)).toEqual([50, 50]);
    expect((await diff(id, { variants: SPLIT_40_60 })).statusCode).toBe(200);
  });

  it.each([
    [
      [
        { name: 'control', traffic_allocation: 40 },
        { name: 'other', traffic_allocation: 60 },
      ],
      'variants[1].name',
    ],
    [
      [
        { name: 'control', traffic_allocation: 40 },
        { name: 'treatment', traffic_allocation: 50 },
      ],
      'variants',
    ],
    [
      [
        { name: 'control', traffic_allocation: -5 },
        { name: 'treatment', traffic_allocation: 105 },
      ],
      'variants[0].traffic_allocation',
    ],
  ])('400 naming the field for %j, stored allocations untouched', async (variants, field) => {
    const id = await created();
    for (const response of [await patch(id, { variants, force: true }), await diff(id, { variants })]) {
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ error: 'Invalid request', field });
    }
    expect(await allocationsOf(id)).toEqual([50, 50]);
  });

  it('404 for an unknown experiment', async () => {
    expect((await patch(999, { variants: SPLIT_40_60 })).statusCode).toBe(404);
    expect((await diff(999, { variants: SPLIT_40_60 })).statusCode).toBe(404);
  });

  it('admin only: anonymous 401, a user token 403, nothing changed', async () => {
    const id = await created();
    const user = await t.userHeaders('someone');
    expect((await patch(id, { variants: SPLIT_40_60, force: true }, {})).statusCode).toBe(401);
    expect((await diff(id, { variants: SPLIT_40_60 }, {})).statusCode).toBe(401);
    expect((await patch(id, { variants: SPLIT_40_60, force: true }, user)).statusCode).toBe(403);
    expect((await diff(id, { variants: SPLIT_40_60 }, user)).statusCode).toBe(403);
    expect(await allocationsOf(id)).toEqual([50, 50]);
  });
});
