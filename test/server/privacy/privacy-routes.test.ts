/**
 * `/api/v1/privacy` over real HTTP: the level view and its PATCH (bad values 400 naming the
 * field, nothing stored), the deployment default, and BOLA: a user can never read or change
 * another user's privacy, export or data; an admin can.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { loadServerConfig } from '../../../server/config.js';
import { privacyHarness, type PrivacyHarness } from './privacy-test-app.js';

let h: PrivacyHarness;
afterEach(async () => {
  await h.close();
});

async function privacy(userId: string, query = ''): Promise<{ status: number; body: any }> {
  const response = await h.app.inject({ url: `/api/v1/privacy${query}`, headers: await h.userHeaders(userId) });
  return { status: response.statusCode, body: response.json() };
}

async function patch(headers: Record<string, string>, payload: unknown, query = ''): Promise<{ status: number; body: any }> {
  const response = await h.app.inject({ method: 'PATCH', url: `/api/v1/privacy${query}`, headers, payload: payload as object });
  return { status: response.statusCode, body: response.json() };
}

describe('GET and PATCH /api/v1/privacy', () => {
  it("shows the deployment default until the user chooses, then the user's choice and what it allows", async () => {
    h = await privacyHarness();
    const before = await privacy('alice');
    expect(before.status).toBe(200);
    expect(before.body.data).toEqual({
      user_id: 'alice',
      tracking_level: 'limited',
      source: 'default',
      default_tracking_level: 'limited',
      stores_interactions: true,
      stores_event_rows: false,
      stores_aggregate_counts: true,
      enrolled_in_experiments: true,
      retention_days: 90,
    });
    expect(before.body.meta.request_id).toBeTypeOf('string');
    const changed = await patch(await h.userHeaders('alice'), { tracking_level: 'full' });
    expect(changed.status).toBe(200);
    expect(changed.body.data).toMatchObject({ tracking_level: 'full', source: 'user', retention_days: 365, erased: null });
    expect((await privacy('alice')).body.data).toMatchObject({ tracking_level: 'full', source: 'user' });
    expect(h.policy.levelOf('alice')).toBe('full');
    expect(h.policy.levelOf('bob')).toBe('limited');
  });

  it('RECSVC_DEFAULT_TRACKING_LEVEL sets the default of users who never chose', async () => {
    h = await privacyHarness({ policy: { defaultLevel: 'none' } });
    expect((await privacy('carol')).body.data).toMatchObject({ tracking_level: 'none', default_tracking_level: 'none', source: 'default' });
    expect(h.policy.allowanceFor('carol').enrolInExperiments).toBe(false);
    expect(loadServerConfig({}, { RECSVC_DEFAULT_TRACKING_LEVEL: 'full' }).privacy.defaultLevel).toBe('full');
    expect(loadServerConfig({}, {}).privacy.defaultLevel).toBe('limited');
    expect(() => loadServerConfig({}, { RECSVC_DEFAULT_TRACKING_LEVEL: 'some' })).toThrow(/RECSVC_DEFAULT_TRACKING_LEVEL must be one of/);
  });

  it('a bad tracking_level or an unknown field is 400 naming the field, and nothing changes', async () => {
    h = await privacyHarness();
    const headers = await h.userHeaders('alice');
    for (const payload of [{ tracking_level: 'everything' }, { tracking_level: 3 }, { tracking_level: null }]) {
      const response = await patch(headers, payload);
      expect(response.status, JSON.stringify(payload)).toBe(400);
      expect(response.body).toMatchObject({ field: 'tracking_level', status_code: 400 });
      expect(response.body.message).toContain('tracking_level');
    }
    const missing = await patch(headers, {});
    expect(missing.status).toBe(400);
    expect(missing.body.field).toBe('tracking_level');
    const unknown = await patch(headers, { tracking_level: 'full', level: 'full' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.field).toBe('level');
    expect((await privacy('alice')).body.data.source).toBe('default');
    const rows = await h.database.db
      .selectFrom('privacy_settings' as never)
      .selectAll()
      .execute();
    expect(rows).toEqual([]);
  });
});

describe('BOLA', () => {
  it('a user can never read or change another user’s privacy, export or data; an admin can', async () => {
    h = await privacyHarness();
    const alice = await h.userHeaders('alice');
    const requests = [
      { method: 'GET' as const, url: '/api/v1/privacy?user_id=bob' },
      { method: 'PATCH' as const, url: '/api/v1/privacy?user_id=bob', payload: { tracking_level: 'none' } },
      { method: 'GET' as const, url: '/api/v1/privacy/export?user_id=bob' },
      { method: 'DELETE' as const, url: '/api/v1/privacy/data?user_id=bob' },
    ];
    for (const request of requests) {
      const response = await h.app.inject({ ...request, headers: alice });
      expect(response.statusCode, `${request.method} ${request.url}`).toBe(403);
      expect(response.json()).toMatchObject({ error: 'Forbidden', status_code: 403 });
      expect(response.json().message).toContain('user_id');
    }
    expect(h.policy.levelOf('bob')).toBe('limited');
    // Without a token: 401; a read-only token may not change or erase.
    expect((await h.app.inject({ url: '/api/v1/privacy' })).statusCode).toBe(401);
    const readOnly = await h.userHeaders('alice', ['read']);
    expect((await patch(readOnly, { tracking_level: 'none' })).status).toBe(403);
    expect((await h.app.inject({ method: 'DELETE', url: '/api/v1/privacy/data', headers: readOnly })).statusCode).toBe(403);
    // Naming oneself is fine.
    expect((await h.app.inject({ url: '/api/v1/privacy?user_id=alice', headers: alice })).statusCode).toBe(200);
    const admin = await h.adminHeaders();
    for (const request of requests) {
      const response = await h.app.inject({ ...request, headers: admin });
      expect(response.statusCode, `${request.method} ${request.url}`).toBe(200);
      expect(response.json().data.user_id).toBe('bob');
    }
    // An admin token bound to no user must name one.
    const unnamed = await h.app.inject({ url: '/api/v1/privacy', headers: admin });
    expect(unnamed.statusCode).toBe(400);
    expect(unnamed.json().field).toBe('user_id');
  });

  it('every privacy route declares its access rule', async () => {
    h = await privacyHarness();
    for (const [method, url] of [
      ['GET', '/api/v1/privacy'],
      ['PATCH', '/api/v1/privacy'],
      ['GET', '/api/v1/privacy/export'],
      ['DELETE', '/api/v1/privacy/data'],
    ] as const) {
      expect(h.app.accessRule(method, url), `${method} ${url}`).toMatchObject({ user: 'resource' });
    }
  });
});
