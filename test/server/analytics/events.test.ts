import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../helpers/test-app.js';

const URL = '/api/v1/analytics/events';
let t: TestApp;

beforeEach(async () => {
  t = await createTestApp();
});
afterEach(async () => t.close());

const click = (user: string, post = 'p1') => ({ type: 'click', user_id: user, post_id: post, session_id: 's1' });
const stored = () => t.database.db.selectFrom('analytics_events').selectAll().orderBy('id').execute();

/** Records impressions of `posts` for `user`, as the serving path does for an enrolled user (clicks and views need one). */
async function served(user: string, posts: string[]): Promise<void> {
  const rows = posts.map((post_id) => ({
    experiment_id: 1,
    variant: 'control',
    user_id: user,
    post_id,
    score: 0.5,
    reason_code: 'HIGH_ENGAGEMENT',
    served_at_ms: Date.now(),
  }));
  await t.database.db.insertInto('experiment_impressions').values(rows).execute();
}

async function post(headers: Record<string, string>, events: unknown) {
  return t.app.inject({ method: 'POST', url: URL, headers, payload: { events } as object });
}

describe('POST /api/v1/analytics/events', () => {
  it('stores a batch and answers 201 with the count in the envelope', async () => {
    await served('alice', ['p1', 'p2']);
    const started = new Date(Date.now() - 10 * 60_000).toISOString();
    const response = await post(await t.userHeaders('alice'), [
      { type: 'session_start', user_id: 'alice', session_id: 's1', timestamp: started },
      click('alice'),
      { type: 'view', user_id: 'alice', post_id: 'p2' },
      { type: 'session_end', user_id: 'alice', session_id: 's1', timestamp: new Date(Date.parse(started) + 5 * 60_000).toISOString() },
    ]);
    expect(response.statusCode).toBe(201);
    expect(response.json().data).toEqual({ accepted: 4, rejected: 0, rejected_by_reason: {}, rejections: [], not_stored: 0 });
    const rows = await stored();
    expect(rows.map((r) => r.type)).toEqual(['session_start', 'click', 'view', 'session_end']);
    expect(rows[0]?.occurred_at_ms).toBe(Date.parse(started));
    expect(rows[1]?.occurred_at_ms).toBe(rows[1]?.received_at_ms);
  });

  const bad: [string, unknown, string, string][] = [
    ['an unknown type', { type: 'purchase', user_id: 'alice' }, 'events[2].type', 'Invalid parameter'],
    ['a missing user_id', { type: 'click', post_id: 'p' }, 'events[2].user_id', 'Invalid request'],
    ['a click without post_id', { type: 'click', user_id: 'alice' }, 'events[2].post_id', 'Invalid request'],
    ['a view without post_id', { type: 'view', user_id: 'alice' }, 'events[2].post_id', 'Invalid request'],
    ['a session_start without session_id', { type: 'session_start', user_id: 'alice' }, 'events[2].session_id', 'Invalid request'],
    ['a session_end without session_id', { type: 'session_end', user_id: 'alice' }, 'events[2].session_id', 'Invalid request'],
    ['a bad timestamp', { ...click('alice'), timestamp: 'yesterday' }, 'events[2].timestamp', 'Invalid request'],
    ['an unknown property', { ...click('alice'), referrer: 'x' }, 'events[2].referrer', 'Invalid request'],
    ['an empty user_id', { ...click('alice'), user_id: '' }, 'events[2].user_id', 'Invalid request'],
  ];
  it.each(bad)('rejects %s with 400 naming events[i].field and stores nothing of the batch', async (_label, event, field, error) => {
    const response = await post(await t.userHeaders('alice'), [click('alice'), click('alice', 'p2'), event]);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ field, error });
    expect(await stored()).toEqual([]);
  });

  it('takes up to 500 events and rejects 501 naming events', async () => {
    const admin = await t.adminHeaders();
    expect(
      (
        await post(
          admin,
          Array.from({ length: 500 }, (_, i) => click(`u${i}`)),
        )
      ).statusCode,
    ).toBe(201);
    const response = await post(
      admin,
      Array.from({ length: 501 }, (_, i) => click(`u${i}`)),
    );
    expect(response.statusCode).toBe(400);
    expect(response.json().field).toBe('events');
    expect(await stored()).toHaveLength(500);
  });

  it('rejects an empty batch and a body without events', async () => {
    const admin = await t.adminHeaders();
    expect((await post(admin, [])).json().field).toBe('events');
    const missing = await t.app.inject({ method: 'POST', url: URL, headers: admin, payload: {} });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().field).toBe('events');
  });

  it("lets a user token post only its own user's events (403, nothing stored), an admin anyone's", async () => {
    const forbidden = await post(await t.userHeaders('alice'), [click('alice'), click('bob')]);
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.json().message).toContain('events[1].user_id');
    expect(await stored()).toEqual([]);
    expect((await post(await t.adminHeaders(), [click('alice'), click('bob')])).statusCode).toBe(201);
    expect(await stored()).toHaveLength(2);
  });

  it('needs a token (401) with write scope (403)', async () => {
    expect((await post({}, [click('alice')])).statusCode).toBe(401);
    expect((await post({ authorization: 'Bearer nope' }, [click('alice')])).statusCode).toBe(401);
    const readOnly = await t.token(['read'], { userId: 'alice' });
    expect((await post({ authorization: `Bearer ${readOnly}` }, [click('alice')])).statusCode).toBe(403);
    const unbound = await t.token(['read', 'write']);
    expect((await post({ authorization: `Bearer ${unbound}` }, [click('alice')])).statusCode).toBe(403);
  });
});
