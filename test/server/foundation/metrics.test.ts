import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePrometheusText } from '../../helpers/prometheus.js';
import { createTestApp, type TestApp } from '../../helpers/test-app.js';

const SPEC_METRICS: Array<[string, string, string[]]> = [
  ['service_request_count', 'counter', ['method', 'endpoint', 'status']],
  ['service_request_latency_seconds', 'histogram', ['method', 'endpoint']],
  ['service_recommendation_generation_seconds', 'histogram', ['algorithm']],
  ['service_active_users', 'gauge', []],
  ['service_cache_hit_ratio', 'gauge', ['cache_type']],
  ['service_database_connections', 'gauge', ['pool_name']],
  ['service_agent_executions', 'counter', ['agent_type', 'status']],
  ['service_ml_model_predictions', 'counter', ['model_name']],
];

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({
    configure: (app) => {
      app.get('/api/v1/test/items/:id', async () => ({ ok: true }));
    },
  });
});
afterAll(() => t.close());

describe('GET /metrics', () => {
  it('is valid Prometheus text holding every spec metric with its type and labels', async () => {
    await t.app.inject({ method: 'GET', url: '/api/v1/test/items/123', headers: await t.adminHeaders() });
    await t.app.inject({ method: 'GET', url: '/api/v1/test/items/456' });
    await t.app.inject({ method: 'GET', url: '/nowhere' });
    t.app.metrics.recommendationGeneration.observe({ algorithm: 'default' }, 0.002);
    t.app.metrics.recordCacheLookup('recommendations', true);
    t.app.metrics.modelPredictions.inc({ model_name: 'weighted_ranker' });
    await t.app.inject({ method: 'GET', url: '/api/v1/agents/status' });

    const response = await t.app.inject({ method: 'GET', url: '/metrics' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/plain/);
    const families = parsePrometheusText(response.body);
    for (const [name, type, labels] of SPEC_METRICS) {
      const family = families.get(name);
      expect(family, name).toBeDefined();
      expect(family!.type, name).toBe(type);
      for (const sample of family!.samples.filter((s) => !s.name.endsWith('_bucket'))) {
        expect(Object.keys(sample.labels).sort(), name).toEqual([...labels].sort());
      }
    }
  });

  it('labels requests by route pattern, not raw URL', async () => {
    await t.app.inject({ method: 'GET', url: '/api/v1/test/items/789' });
    const families = parsePrometheusText((await t.app.inject({ method: 'GET', url: '/metrics' })).body);
    const endpoints = families.get('service_request_count')!.samples.map((s) => s.labels.endpoint);
    expect(endpoints).toContain('/api/v1/test/items/:id');
    expect(endpoints.some((e) => e?.includes('789'))).toBe(false);
    const count = families
      .get('service_request_count')!
      .samples.filter((s) => s.labels.endpoint === '/api/v1/test/items/:id' && s.labels.status === '200')
      .reduce((sum, s) => sum + s.value, 0);
    expect(count).toBe(3);
  });

  it('counts active users by token within the window', async () => {
    const families = parsePrometheusText((await t.app.inject({ method: 'GET', url: '/metrics' })).body);
    expect(families.get('service_active_users')!.samples[0]!.value).toBe(1);
  });

  it('counts agent executions by outcome', async () => {
    const before = parsePrometheusText((await t.app.inject({ method: 'GET', url: '/metrics' })).body);
    const successes = (families: typeof before) =>
      families
        .get('service_agent_executions')!
        .samples.filter((s) => s.labels.agent_type === 'database_maintenance' && s.labels.status === 'success')
        .reduce((a, s) => a + s.value, 0);
    const status = (await t.app.inject({ method: 'GET', url: '/api/v1/agents/status' })).json();
    expect(status.agents.map((a: { name: string }) => a.name)).toContain('database_maintenance');
    await t.app.agentRunner.runNow('database_maintenance');
    const after = parsePrometheusText((await t.app.inject({ method: 'GET', url: '/metrics' })).body);
    expect(successes(after)).toBe(successes(before) + 1);
    const agent = (await t.app.inject({ method: 'GET', url: '/api/v1/agents/status' }))
      .json()
      .agents.find((a: { name: string }) => a.name === 'database_maintenance');
    expect(agent.last_execution).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(agent.status).toBe('idle');
  });
});
