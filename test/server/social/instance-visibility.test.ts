/**
 * The social side as an operator sees it, against the test Mastodon instance on 127.0.0.1:
 * one warn line when the instance stops answering and one when it answers again (not one per
 * request), per-instance request, error and latency metrics, degraded timeline pages counted
 * per instance, an `instances` component in `/api/v1/health`, and proxied Mastodon paths
 * labelled by their Mastodon route instead of `endpoint="unmatched"`.
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mastodonRoute } from '../../../server/platform/plugins/metric-routes.js';
import type { SocialServices } from '../../../server/platform/social/social.service.js';
import { startMastodonInstance, testSocialServices, withSocial, type MastodonTestInstance } from '../../helpers/mastodon-instance.js';
import { parsePrometheusText } from '../../helpers/prometheus.js';
import { createTestApp, type TestApp } from '../../helpers/test-app.js';

let instance: MastodonTestInstance;
let social: SocialServices;
let t: TestApp;
const lines: Array<{ level: number; msg: string; instance?: string }> = [];

beforeAll(async () => {
  instance = await startMastodonInstance();
  social = testSocialServices({ tokenCacheTtlMs: 0 });
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim() !== '') lines.push(JSON.parse(line));
      done();
    },
  });
  t = await createTestApp({ ...withSocial(social), logger: { level: 'warn', stream } });
});
afterAll(async () => {
  await t.close();
  await social.close();
  await instance.close();
});

const home = (token = instance.token) =>
  t.app.inject({
    url: '/api/v1/timelines/home?limit=5',
    headers: { authorization: `Bearer ${token}`, 'x-social-instance': instance.host },
  });

async function metric(name: string, labels: Record<string, string>): Promise<number> {
  const text = (await t.app.inject({ url: '/metrics' })).body;
  const samples = [...parsePrometheusText(text).values()]
    .flatMap((family) => family.samples)
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  return samples.reduce((sum, s) => sum + s.value, 0);
}

const outageLines = () => lines.filter((l) => l.level === 40 && l.instance === instance.host);

describe('an instance outage, seen by the operator', () => {
  it('logs the outage and the recovery once each, counts requests, errors and degraded pages, and shows it in health', async () => {
    expect((await home()).statusCode).toBe(200);
    expect(await metric('service_instance_requests_total', { instance: instance.host, outcome: 'ok' })).toBeGreaterThan(0);
    expect(await metric('service_instance_request_seconds_count', { instance: instance.host })).toBeGreaterThan(0);

    instance.fault({ kind: 'status', status: 503 });
    for (let i = 0; i < 3; i++) {
      const page = await home();
      expect(page.statusCode).toBe(200);
      expect(page.headers['x-recsvc-degraded']).toBeDefined();
    }
    expect(await metric('service_instance_requests_total', { instance: instance.host, outcome: 'error' })).toBeGreaterThanOrEqual(1);
    expect(await metric('service_instance_degraded_pages_total', { instance: instance.host })).toBe(3);
    const health = (await t.app.inject({ url: '/api/v1/health' })).json();
    expect(health.status).toBe('healthy');
    expect(health.components.instances).toMatchObject({ status: 'degraded', down: 1 });
    expect(health.components.instances.instances[0]).toMatchObject({ instance: instance.host, status: 'down', last_error: 'server-error' });
    expect(outageLines().map((l) => l.msg)).toEqual([expect.stringContaining('is not answering (server-error)')]);

    instance.clearFaults();
    // A token not seen during the outage (a seen one repeats the outage for 30 s without asking the instance).
    const recovered = await home(instance.issueToken(0));
    expect(recovered.headers['x-recsvc-degraded']).toBeUndefined();
    expect(outageLines().map((l) => l.msg)).toEqual([
      expect.stringContaining('is not answering'),
      expect.stringMatching(/answers again after \d+ s \(\d+ failed requests\)/),
    ]);
    const after = (await t.app.inject({ url: '/api/v1/health' })).json();
    expect(after.components.instances).toMatchObject({ status: 'ok', down: 0 });
  });

  it('labels proxied requests by their Mastodon route, not "unmatched"', async () => {
    const id = String(instance.homeTimeline()[0]?.id);
    const proxied = await t.app.inject({
      url: `/api/v1/proxy/api/v1/statuses/${id}`,
      headers: { authorization: `Bearer ${instance.issueToken(0)}`, 'x-social-instance': instance.host },
    });
    expect(proxied.statusCode, proxied.body).toBe(200);
    expect(await metric('service_request_count', { endpoint: '/api/v1/proxy/api/v1/statuses/:id' })).toBe(1);
    expect(mastodonRoute('/api/v1/accounts/10923/statuses?limit=2')).toBe('/api/v1/accounts/:id/statuses');
    expect(mastodonRoute('/api/v1/timelines/tag/Cats')).toBe('/api/v1/timelines/tag/:hashtag');
    expect(mastodonRoute('/api/v1/statuses/1099/favourite')).toBe('/api/v1/statuses/:id/favourite');
  });
});
