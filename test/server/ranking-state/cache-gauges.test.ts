import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeStatus } from '../../helpers/mastodon-fixtures.js';
import { parsePrometheusText } from '../../helpers/prometheus.js';
import { createTestApp, type TestApp } from '../../helpers/test-app.js';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});

afterAll(async () => {
  await t.close();
});

async function gauges(): Promise<{ entries: Record<string, number>; bytes: Record<string, number> }> {
  const res = await t.app.inject({ method: 'GET', url: '/metrics' });
  const families = parsePrometheusText(res.body);
  const read = (name: string): Record<string, number> =>
    Object.fromEntries((families.get(name)?.samples ?? []).map((s) => [s.labels.cache ?? '', s.value]));
  return { entries: read('service_cache_entries'), bytes: read('service_cache_bytes') };
}

describe('cache size gauges', () => {
  it('report each in-memory cache of the ranking state, following writes and reads', async () => {
    const before = await gauges();
    expect(before.entries).toMatchObject({ candidate_pool: 0, profiles: 0, statuses: 0, status_json: 0 });
    const statuses = Array.from({ length: 3 }, (_, i) => makeStatus({ n: i + 1, ageHours: 1 + i }));
    expect(
      (await t.app.inject({ method: 'POST', url: '/api/v1/posts/batch', headers: await t.adminHeaders(), payload: { statuses } }))
        .statusCode,
    ).toBe(201);
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/v1/recommendations?user_id=alice&limit=5',
      headers: await t.userHeaders('alice'),
    });
    expect(res.statusCode).toBe(200);
    const after = await gauges();
    expect(after.entries.candidate_pool).toBe(3);
    expect(after.entries.profiles).toBe(1);
    expect(after.entries.results).toBe(1);
    expect(after.entries.statuses).toBe(3);
    expect(after.entries.status_json).toBe(3);
    expect(after.entries.vocabulary).toBeGreaterThan(0);
    expect(after.bytes.status_json).toBeGreaterThan(300);
    // The first page as sent is kept with the list, its bytes counted in the lists' bound.
    expect(after.entries.kept_pages).toBe(1);
    expect(after.bytes.kept_pages).toBeGreaterThan(res.rawPayload.byteLength);
    expect(after.bytes.results).toBeGreaterThan(after.bytes.kept_pages!);
  });
});

describe('configured cache bounds', () => {
  it('hold: a status cache of 2 keeps at most 2 rendered statuses however many are read', async () => {
    const small = await createTestApp({ caches: { statusCapacity: 2, profileCapacity: 1 } });
    try {
      const statuses = Array.from({ length: 5 }, (_, i) => makeStatus({ n: i + 1, ageHours: 1 + i }));
      expect(
        (await small.app.inject({ method: 'POST', url: '/api/v1/posts/batch', headers: await small.adminHeaders(), payload: { statuses } }))
          .statusCode,
      ).toBe(201);
      for (const user of ['u1', 'u2', 'u3']) {
        const res = await small.app.inject({
          method: 'GET',
          url: `/api/v1/recommendations?user_id=${user}&limit=5`,
          headers: await small.userHeaders(user),
        });
        expect(res.statusCode).toBe(200);
      }
      const families = parsePrometheusText((await small.app.inject({ method: 'GET', url: '/metrics' })).body);
      const entries = Object.fromEntries(
        (families.get('service_cache_entries')?.samples ?? []).map((s) => [s.labels.cache ?? '', s.value]),
      );
      expect(entries.statuses).toBe(2);
      expect(entries.profiles).toBe(1);
    } finally {
      await small.close();
    }
  });
});
