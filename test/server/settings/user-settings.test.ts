/**
 * `/api/v1/settings` over real HTTP (inject) on a real SQLite database: GET with the
 * defaults filled in, PATCH of each field (omitted means unchanged, null means default),
 * bounds and unknown fields (400 naming the field), the access rule (a user reads and
 * changes only their own; an admin reads anyone's), and the ratio and `allow_sensitive`
 * being the same values as the recommendation preferences.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { settingsHarness, type SettingsHarness } from './settings-test-app.js';

let h: SettingsHarness;

beforeEach(async () => {
  h = await settingsHarness();
});
afterEach(async () => {
  await h.close();
});

async function getSettings(userId: string, query = '', headers?: Record<string, string>) {
  return h.app.inject({ url: `/api/v1/settings${query}`, headers: headers ?? (await h.userHeaders(userId)) });
}

async function patch(userId: string, payload: Record<string, unknown>, headers?: Record<string, string>) {
  return h.app.inject({ method: 'PATCH', url: '/api/v1/settings', headers: headers ?? (await h.userHeaders(userId)), payload });
}

describe('GET /api/v1/settings', () => {
  it("returns the token's own settings with every default filled in and named", async () => {
    const response = await getSettings('alice');
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    expect(body.meta.request_id).toEqual(expect.any(String));
    expect(body.data).toEqual({
      user_id: 'alice',
      recommendation_ratio: 0.3,
      languages: [],
      include_reblogs: true,
      allow_sensitive: false,
      experiments_opt_out: false,
      reason_language: null,
      effective_reason_language: 'en',
      defaults: ['recommendation_ratio', 'languages', 'include_reblogs', 'allow_sensitive', 'experiments_opt_out', 'reason_language'],
      updated_at: null,
    });
  });

  it('reads user_id from the query, and 401 without a token', async () => {
    expect((await getSettings('alice', '?user_id=alice')).json().data.user_id).toBe('alice');
    expect((await h.app.inject({ url: '/api/v1/settings' })).statusCode).toBe(401);
  });

  it('400 naming user_id for a token bound to no user that names none', async () => {
    const response = await getSettings('', '', await h.adminHeaders());
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ field: 'user_id', status_code: 400 });
  });
});

describe('PATCH /api/v1/settings', () => {
  it('changes each field, leaves omitted ones unchanged, and GET shows the result', async () => {
    const steps: Array<[Record<string, unknown>, Record<string, unknown>]> = [
      [{ recommendation_ratio: 0.15 }, { recommendation_ratio: 0.15 }],
      [{ languages: ['de', 'pt-BR'] }, { languages: ['de', 'pt-BR'] }],
      [{ include_reblogs: false }, { include_reblogs: false }],
      [{ allow_sensitive: true }, { allow_sensitive: true }],
      [{ experiments_opt_out: true }, { experiments_opt_out: true }],
      [{ reason_language: 'fr' }, { reason_language: 'fr', effective_reason_language: 'fr' }],
    ];
    let expected: Record<string, unknown> = {};
    for (const [change, effect] of steps) {
      const response = await patch('alice', change);
      expect(response.statusCode, response.body).toBe(200);
      expected = { ...expected, ...effect };
      expect(response.json().data).toMatchObject(expected);
      expect((await getSettings('alice')).json().data).toMatchObject(expected);
    }
    const final = (await getSettings('alice')).json().data;
    expect(final.defaults).toEqual([]);
    expect(final.updated_at).toEqual(expect.any(String));
  });

  it('null puts the ratio and the reason language back to their defaults', async () => {
    await patch('alice', { recommendation_ratio: 0.5, reason_language: 'de', include_reblogs: false });
    const response = await patch('alice', { recommendation_ratio: null, reason_language: null });
    expect(response.json().data).toMatchObject({ recommendation_ratio: 0.3, reason_language: null, include_reblogs: false });
    // The opt-out was stored (false) with the reason language: only these two are defaults again.
    expect(response.json().data.defaults).toEqual(['recommendation_ratio', 'reason_language']);
  });

  it('concurrent changes of different settings both land', async () => {
    await Promise.all([
      patch('alice', { experiments_opt_out: true }),
      patch('alice', { reason_language: 'de' }),
      patch('alice', { include_reblogs: false }),
    ]);
    expect((await getSettings('alice')).json().data).toMatchObject({
      experiments_opt_out: true,
      reason_language: 'de',
      include_reblogs: false,
    });
  });

  it('an empty body changes nothing', async () => {
    await patch('alice', { recommendation_ratio: 0.2 });
    const response = await patch('alice', {});
    expect(response.statusCode).toBe(200);
    expect(response.json().data.recommendation_ratio).toBe(0.2);
  });

  it.each([
    [{ recommendation_ratio: 1.01 }, 'recommendation_ratio'],
    [{ recommendation_ratio: -0.1 }, 'recommendation_ratio'],
    [{ recommendation_ratio: 'half' }, 'recommendation_ratio'],
    [{ languages: ['not a language'] }, 'languages/0'],
    [{ languages: 'de' }, 'languages'],
    [{ include_reblogs: 'yes' }, 'include_reblogs'],
    [{ allow_sensitive: 'true' }, 'allow_sensitive'],
    [{ allow_sensitive: 1 }, 'allow_sensitive'],
    [{ allow_sensitive: null }, 'allow_sensitive'],
    [{ experiments_opt_out: 1 }, 'experiments_opt_out'],
    [{ reason_language: 'xx' }, 'reason_language'],
    [{ colour: 'blue' }, 'colour'],
  ])('400 naming the field for %j, and nothing is stored', async (payload, field) => {
    const response = await patch('alice', payload);
    expect(response.statusCode, response.body).toBe(400);
    const body = response.json();
    expect(body.status_code).toBe(400);
    expect(body.field).toContain(field.split('/')[0]);
    expect(body.message).toEqual(expect.any(String));
    expect((await getSettings('alice')).json().data.updated_at).toBeNull();
  });

  it('accepts the bounds themselves', async () => {
    expect((await patch('alice', { recommendation_ratio: 0 })).json().data.recommendation_ratio).toBe(0);
    expect((await patch('alice', { recommendation_ratio: 1 })).json().data.recommendation_ratio).toBe(1);
  });
});

describe('one value: the setting is the recommendation preference', () => {
  it('a ratio set through settings is the preference, and the other way round', async () => {
    await patch('alice', { recommendation_ratio: 0.25, languages: ['fr'] });
    const prefs = await h.app.inject({ url: '/api/v1/recommendations/preferences?user_id=alice', headers: await h.userHeaders('alice') });
    expect(prefs.json().data).toMatchObject({ recommendation_ratio: 0.25, languages: ['fr'] });
    const put = await h.app.inject({
      method: 'PUT',
      url: '/api/v1/recommendations/preferences',
      headers: await h.userHeaders('alice'),
      payload: { user_id: 'alice', recommendation_ratio: 0.1, include_reblogs: false },
    });
    expect(put.statusCode).toBe(200);
    expect((await getSettings('alice')).json().data).toMatchObject({
      recommendation_ratio: 0.1,
      include_reblogs: false,
      languages: ['fr'],
    });
  });

  it('allow_sensitive set through settings is the preference, and the other way round', async () => {
    const preferences = async () =>
      (await h.app.inject({ url: '/api/v1/recommendations/preferences?user_id=alice', headers: await h.userHeaders('alice') })).json().data;
    expect((await preferences()).allow_sensitive).toBe(false);
    expect((await patch('alice', { allow_sensitive: true })).json().data.allow_sensitive).toBe(true);
    expect(await preferences()).toMatchObject({ allow_sensitive: true, include_reblogs: true, recommendation_ratio: null });
    const put = await h.app.inject({
      method: 'PUT',
      url: '/api/v1/recommendations/preferences',
      headers: await h.userHeaders('alice'),
      payload: { user_id: 'alice', allow_sensitive: false },
    });
    expect(put.statusCode, put.body).toBe(200);
    expect((await getSettings('alice')).json().data).toMatchObject({ allow_sensitive: false });
    // Stored (false) once set: no longer a default.
    expect((await getSettings('alice')).json().data.defaults).not.toContain('allow_sensitive');
  });
});

describe('access: a user reads and changes only their own settings', () => {
  it("403 when alice reads or changes bob's, and bob's settings stay as they were", async () => {
    await patch('bob', { recommendation_ratio: 0.2 });
    const alice = await h.userHeaders('alice');
    const read = await getSettings('bob', '?user_id=bob', alice);
    expect(read.statusCode).toBe(403);
    expect(read.json()).toMatchObject({ status_code: 403 });
    const write = await patch('bob', { user_id: 'bob', recommendation_ratio: 0.9, experiments_opt_out: true }, alice);
    expect(write.statusCode).toBe(403);
    expect((await getSettings('bob')).json().data).toMatchObject({ recommendation_ratio: 0.2, experiments_opt_out: false });
  });

  it('an admin reads anyone; a read-only token cannot change settings', async () => {
    await patch('bob', { include_reblogs: false });
    const admin = await getSettings('', '?user_id=bob', await h.adminHeaders());
    expect(admin.statusCode).toBe(200);
    expect(admin.json().data).toMatchObject({ user_id: 'bob', include_reblogs: false });
    const readOnly = await patch('bob', { include_reblogs: true }, await h.userHeaders('bob', ['read']));
    expect(readOnly.statusCode).toBe(403);
  });
});
