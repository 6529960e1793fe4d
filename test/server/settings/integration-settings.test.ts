/**
 * `/api/v1/settings/integration` over real HTTP: admin only (401/403 otherwise), the
 * effective values with defaults, PATCH semantics, validation naming the field with
 * nothing stored on a bad value, persistence across a restart, and `applied`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSocialServices, DEFAULT_SOCIAL_OPTIONS } from '../../../server/platform/social/social.service.js';
import { settingsHarness, type SettingsHarness } from './settings-test-app.js';
import { startMastodonInstance, testSocialServices } from '../../helpers/mastodon-instance.js';
import { experimentBody } from '../experiments/experiment-bodies.js';

const URL = '/api/v1/settings/integration';
const harnesses: SettingsHarness[] = [];
const dirs: string[] = [];

afterEach(async () => {
  for (const h of harnesses.splice(0)) await h.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function harness(options: Parameters<typeof settingsHarness>[0] = {}): Promise<SettingsHarness> {
  const h = await settingsHarness(options);
  harnesses.push(h);
  return h;
}

async function patch(h: SettingsHarness, payload: Record<string, unknown>) {
  return h.app.inject({ method: 'PATCH', url: URL, headers: await h.adminHeaders(), payload });
}

describe('access', () => {
  it('401 without a token, 403 for a user token (read and write), 200 for admin', async () => {
    const h = await harness();
    expect((await h.app.inject({ url: URL })).statusCode).toBe(401);
    const user = await h.userHeaders('alice');
    expect((await h.app.inject({ url: URL, headers: user })).statusCode).toBe(403);
    const write = await h.app.inject({ method: 'PATCH', url: URL, headers: user, payload: { allowed_instances: ['evil.example'] } });
    expect(write.statusCode).toBe(403);
    expect(write.json()).toMatchObject({ status_code: 403 });
    const admin = await h.app.inject({ url: URL, headers: await h.adminHeaders() });
    expect(admin.statusCode).toBe(200);
    expect(admin.json().data.allowed_instances).toEqual([]);
  });
});

describe('GET and PATCH', () => {
  it('shows the defaults, the startup default instance, and when each setting applies', async () => {
    const social = createSocialServices({ ...DEFAULT_SOCIAL_OPTIONS, defaultInstance: 'mastodon.social' });
    const h = await harness({ social });
    const data = (await h.app.inject({ url: URL, headers: await h.adminHeaders() })).json().data;
    await social.close();
    expect(data).toEqual({
      default_instance: 'mastodon.social',
      allowed_instances: [],
      cors_origins: '*',
      gate_thresholds: { max_response_time_p95: 200, min_click_through_rate: 0.05, max_error_rate: 0.01, min_user_satisfaction: 0.6 },
      applied: { live: ['default_instance', 'allowed_instances', 'gate_thresholds'], at_restart: ['cors_origins'] },
      updated_at: null,
    });
  });

  it('changes what is given, canonicalises hosts, merges gate defaults, and keeps the rest', async () => {
    const h = await harness();
    const first = await patch(h, {
      allowed_instances: ['Mastodon.Social', 'fosstodon.org', 'mastodon.social'],
      default_instance: 'fosstodon.org',
    });
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json().data).toMatchObject({ allowed_instances: ['mastodon.social', 'fosstodon.org'], default_instance: 'fosstodon.org' });
    const second = await patch(h, { gate_thresholds: { min_click_through_rate: 0.08 }, cors_origins: ['https://elk.zone'] });
    expect(second.json().data).toMatchObject({
      allowed_instances: ['mastodon.social', 'fosstodon.org'],
      default_instance: 'fosstodon.org',
      cors_origins: ['https://elk.zone'],
      gate_thresholds: { max_response_time_p95: 200, min_click_through_rate: 0.08, max_error_rate: 0.01, min_user_satisfaction: 0.6 },
      applied: { live: ['default_instance', 'allowed_instances', 'gate_thresholds'], at_restart: ['cors_origins'] },
    });
    const cleared = await patch(h, { default_instance: null, allowed_instances: [] });
    expect(cleared.json().data).toMatchObject({ default_instance: null, allowed_instances: [], cors_origins: ['https://elk.zone'] });
  });

  it.each([
    [{ default_instance: '127.0.0.1' }, 'default_instance'],
    [{ default_instance: 'https://mastodon.social/path' }, 'default_instance'],
    [{ allowed_instances: ['mastodon.social', 'localhost'] }, 'allowed_instances[1]'],
    [{ cors_origins: ['https://elk.zone/app'] }, 'cors_origins[0]'],
    [{ cors_origins: ['ftp://elk.zone'] }, 'cors_origins[0]'],
    [{ cors_origins: [] }, 'cors_origins'],
    [{ gate_thresholds: { max_error_rate: 1.5 } }, 'gate_thresholds'],
    [{ gate_thresholds: { max_response_time_p95: 0 } }, 'gate_thresholds'],
    [{ gate_thresholds: { p99: 5 } }, 'gate_thresholds'],
    [{ default_instance: 'a.example', allowed_instances: ['b.example'] }, 'default_instance'],
    [{ theme: 'dark' }, 'theme'],
  ])('400 naming the field for %j, and nothing is stored', async (payload, field) => {
    const h = await harness();
    const response = await patch(h, payload);
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json().field).toContain(field);
    expect(response.json().status_code).toBe(400);
    const rows = await h.database.db
      .selectFrom('integration_settings' as never)
      .selectAll()
      .execute();
    expect(rows).toEqual([]);
  });

  it('stored values survive a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'recsvc-settings-'));
    dirs.push(dir);
    const dbPath = join(dir, 'db.sqlite');
    const first = await settingsHarness({ dbPath });
    const response = await patch(first, { allowed_instances: ['mastodon.social'], cors_origins: ['https://elk.zone'] });
    const updatedAt = response.json().data.updated_at as string;
    expect(updatedAt).toEqual(expect.any(String));
    await first.close();
    const second = await harness({ dbPath });
    const data = (await second.app.inject({ url: URL, headers: await second.adminHeaders() })).json().data;
    expect(data).toMatchObject({ allowed_instances: ['mastodon.social'], cors_origins: ['https://elk.zone'], updated_at: updatedAt });
  });
});

describe('settings applied at once', () => {
  it('allowed_instances refuses tokens of other instances before any call to them; default_instance is used without the header', async () => {
    const instance = await startMastodonInstance({ statuses: 3 });
    const social = testSocialServices();
    try {
      const h = await harness({ social });
      const token = instance.issueToken(0);
      const mastodon = { authorization: `Bearer ${token}`, 'x-social-instance': instance.host };
      const userId = encodeURIComponent(`${instance.accountIdOf(token)}@${instance.host}`);
      const before = await h.app.inject({ url: `/api/v1/recommendations?user_id=${userId}`, headers: mastodon });
      expect(before.statusCode, before.body).toBe(200);

      expect((await patch(h, { allowed_instances: ['mastodon.example'] })).statusCode).toBe(200);
      const verifications = instance.count('/api/v1/accounts/verify_credentials');
      const refused = await h.app.inject({
        url: `/api/v1/recommendations?user_id=${userId}`,
        headers: { ...mastodon, authorization: `Bearer ${instance.issueToken(1)}` },
      });
      expect(refused.statusCode, refused.body).toBe(400);
      expect(refused.json()).toMatchObject({ field: 'X-Social-Instance' });
      expect(refused.json().message).toContain('not an instance this service accepts');
      expect(instance.count('/api/v1/accounts/verify_credentials')).toBe(verifications);

      // Allowed again, and the default instance: a Mastodon token works without the header.
      expect((await patch(h, { allowed_instances: [instance.host], default_instance: instance.host })).statusCode).toBe(200);
      const viaDefault = await h.app.inject({
        url: `/api/v1/recommendations?user_id=${userId}`,
        headers: { authorization: `Bearer ${token}` },
      });
      expect(viaDefault.statusCode, viaDefault.body).toBe(200);
    } finally {
      await social.close();
      await instance.close();
    }
  });

  it('gate_thresholds become the gates of experiments created afterwards without their own', async () => {
    const h = await harness();
    const create = async (gates?: { max_error_rate: number }) => {
      const response = await h.app.inject({
        method: 'POST',
        url: '/api/v1/analytics/experiments',
        headers: await h.adminHeaders(),
        payload: experimentBody(gates ? { gates } : {}),
      });
      expect(response.statusCode, response.body).toBe(201);
      return response.json().data as { gates: Record<string, number> };
    };
    const before = await create();
    expect((await patch(h, { gate_thresholds: { min_click_through_rate: 0.08 } })).statusCode).toBe(200);
    const after = await create();
    const own = await create({ max_error_rate: 0.02 });
    expect(before.gates.min_click_through_rate ?? 0.05).toBe(0.05);
    expect(after.gates).toMatchObject({ min_click_through_rate: 0.08, max_error_rate: 0.01 });
    // An experiment's own gates object wins whole (the fields it omits take the spec's defaults, as always).
    expect(own.gates).toMatchObject({ min_click_through_rate: 0.05, max_error_rate: 0.02 });
  });
});
