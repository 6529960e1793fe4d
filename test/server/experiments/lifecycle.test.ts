import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../helpers/test-app.js';
import { experimentBody, threeVariantBody } from './experiment-bodies.js';

const BASE = '/api/v1/analytics/experiments';
let t: TestApp;
let admin: Record<string, string>;

beforeEach(async () => {
  t = await createTestApp();
  admin = await t.adminHeaders();
});
afterEach(async () => t.close());

async function create(body: unknown = experimentBody()) {
  return t.app.inject({ method: 'POST', url: BASE, headers: admin, payload: body as object });
}

async function createdId(body: unknown = experimentBody()): Promise<number> {
  const response = await create(body);
  expect(response.statusCode).toBe(201);
  return response.json().data.id;
}

async function act(id: number | string, action: string) {
  return t.app.inject({ method: 'POST', url: `${BASE}/${id}/${action}`, headers: admin });
}

describe('experiment creation', () => {
  it('creates a DRAFT with an integer id inside the envelope (201)', async () => {
    const response = await create();
    expect(response.statusCode).toBe(201);
    const body = response.json();
    expect(body.meta.request_id).toBe(response.headers['x-request-id']);
    expect(Number.isInteger(body.data.id)).toBe(true);
    expect(body.data).toMatchObject({
      name: 'Recency boost',
      status: 'DRAFT',
      traffic_percentage: 100,
      minimum_sample_size: 10,
      confidence_level: 0.95,
      primary_metric: 'click_through_rate',
      gates: { max_response_time_p95: 200, min_click_through_rate: 0.05, max_error_rate: 0.01, min_user_satisfaction: 0.6 },
      started_at: null,
      ended_at: null,
    });
    expect(body.data.variants.map((v: { name: string; blocked: boolean }) => [v.name, v.blocked])).toEqual([
      ['control', false],
      ['treatment', false],
    ]);
    expect(body.data.variants[1].algorithm_config.weights.recency).toBe(1);
  });

  it('applies the spec defaults and keeps per-experiment gate thresholds', async () => {
    const { traffic_percentage: _t, minimum_sample_size: _m, confidence_level: _c, ...bare } = experimentBody();
    const response = await create({ ...bare, gates: { min_click_through_rate: 0.1 } });
    expect(response.statusCode).toBe(201);
    expect(response.json().data).toMatchObject({
      traffic_percentage: 100,
      minimum_sample_size: 1000,
      confidence_level: 0.95,
      gates: { min_click_through_rate: 0.1, max_response_time_p95: 200 },
    });
  });

  const three = threeVariantBody();
  const cases: [string, unknown, string][] = [
    [
      'allocations not summing to 100',
      { ...three, variants: three.variants.map((v, i) => (i === 2 ? { ...v, traffic_allocation: 20 } : v)) },
      'variants',
    ],
    [
      'a zero allocation',
      { ...three, variants: three.variants.map((v, i) => (i === 2 ? { ...v, traffic_allocation: 0 } : v)) },
      'variants[2].traffic_allocation',
    ],
    [
      'a non-numeric allocation',
      { ...three, variants: three.variants.map((v, i) => (i === 2 ? { ...v, traffic_allocation: 'thirty' } : v)) },
      'variants[2].traffic_allocation',
    ],
    ['a single variant', { ...experimentBody(), variants: [{ ...experimentBody().variants[0], traffic_allocation: 100 }] }, 'variants'],
    ['no control', { ...three, variants: three.variants.map((v) => ({ ...v, is_control: false })) }, 'variants'],
    ['two controls', { ...three, variants: three.variants.map((v, i) => ({ ...v, is_control: i < 2 })) }, 'variants'],
    [
      'duplicate variant names',
      { ...three, variants: three.variants.map((v, i) => (i === 2 ? { ...v, name: 'control' } : v)) },
      'variants[2].name',
    ],
    [
      'a weight above 1',
      {
        ...three,
        variants: three.variants.map((v, i) =>
          i === 1 ? { ...v, algorithm_config: { weights: { ...v.algorithm_config.weights, recency: 1.5 } } } : v,
        ),
      },
      'variants[1].algorithm_config.weights.recency',
    ],
    [
      'weights not summing to 1',
      {
        ...three,
        variants: three.variants.map((v, i) =>
          i === 2
            ? {
                ...v,
                algorithm_config: { weights: { author_preference: 0.5, content_engagement: 0.5, recency: 0.5, semantic_similarity: 0 } },
              }
            : v,
        ),
      },
      'variants[2].algorithm_config.weights',
    ],
    [
      'a missing weight',
      {
        ...three,
        variants: three.variants.map((v, i) =>
          i === 0 ? { ...v, algorithm_config: { weights: { author_preference: 1, content_engagement: 0, recency: 0 } } } : v,
        ),
      },
      'variants[0].algorithm_config.weights.semantic_similarity',
    ],
    ['traffic_percentage 0', { ...three, traffic_percentage: 0 }, 'traffic_percentage'],
    ['traffic_percentage above 100', { ...three, traffic_percentage: 100.5 }, 'traffic_percentage'],
    ['confidence_level 1', { ...three, confidence_level: 1 }, 'confidence_level'],
    ['confidence_level 0', { ...three, confidence_level: 0 }, 'confidence_level'],
    ['a fractional minimum_sample_size', { ...three, minimum_sample_size: 10.5 }, 'minimum_sample_size'],
    ['a missing name', (({ name: _n, ...rest }) => rest)(three), 'name'],
    ['an unknown property', { ...three, colour: 'blue' }, 'colour'],
    [
      'an unknown variant property',
      { ...three, variants: three.variants.map((v, i) => (i === 1 ? { ...v, weight: 1 } : v)) },
      'variants[1].weight',
    ],
    ['a gate rate above 1', { ...three, gates: { max_error_rate: 2 } }, 'gates.max_error_rate'],
    [
      'a semantic_weight above 1',
      {
        ...three,
        variants: three.variants.map((v, i) => (i === 1 ? { ...v, algorithm_config: { ...v.algorithm_config, semantic_weight: 3 } } : v)),
      },
      'variants[1].algorithm_config.semantic_weight',
    ],
  ];
  it.each(cases)('rejects %s with 400 naming the field', async (_label, body, field) => {
    const response = await create(body);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ field, status_code: 400 });
    const list = await t.app.inject({ method: 'GET', url: BASE, headers: admin });
    expect(list.json().data).toEqual([]);
  });
});

describe('experiment life cycle', () => {
  it('moves DRAFT -> ACTIVE <-> PAUSED -> COMPLETED and stamps start and end', async () => {
    const id = await createdId();
    const started = await act(id, 'start');
    expect(started.statusCode).toBe(200);
    expect(started.json().data).toMatchObject({ id, status: 'ACTIVE' });
    const startedAt = started.json().data.started_at;
    expect(startedAt).toMatch(/Z$/);
    expect((await act(id, 'pause')).json().data.status).toBe('PAUSED');
    const resumed = (await act(id, 'start')).json().data;
    expect(resumed).toMatchObject({ status: 'ACTIVE', started_at: startedAt });
    const stopped = (await act(id, 'stop')).json().data;
    expect(stopped.status).toBe('COMPLETED');
    expect(stopped.ended_at).toMatch(/Z$/);
  });

  it('stops a PAUSED experiment', async () => {
    const id = await createdId();
    await act(id, 'start');
    await act(id, 'pause');
    expect((await act(id, 'stop')).json().data.status).toBe('COMPLETED');
  });

  const illegal: [string[], string, string][] = [
    [[], 'pause', 'DRAFT'],
    [[], 'stop', 'DRAFT'],
    [['start'], 'start', 'ACTIVE'],
    [['start', 'pause'], 'pause', 'PAUSED'],
    [['start', 'stop'], 'start', 'COMPLETED'],
    [['start', 'stop'], 'pause', 'COMPLETED'],
    [['start', 'stop'], 'stop', 'COMPLETED'],
  ];
  it.each(illegal)('after %j, %s is 409 naming the current state %s', async (before, action, state) => {
    const id = await createdId();
    for (const step of before) expect((await act(id, step)).statusCode).toBe(200);
    const response = await act(id, action);
    expect(response.statusCode).toBe(409);
    expect(response.json().message).toContain(state);
    expect((await t.app.inject({ method: 'GET', url: `${BASE}/${id}`, headers: admin })).json().data.status).toBe(state);
  });

  it('answers 404 Resource not found for an unknown id, on every operation', async () => {
    for (const [method, suffix] of [
      ['GET', ''],
      ['POST', '/start'],
      ['POST', '/pause'],
      ['POST', '/stop'],
      ['GET', '/status'],
      ['GET', '/metrics'],
      ['GET', '/analysis'],
      ['GET', '/gates'],
      ['GET', '/export'],
    ] as const) {
      const response = await t.app.inject({ method, url: `${BASE}/999${suffix}`, headers: admin });
      expect(response.statusCode, `${method} ${suffix}`).toBe(404);
      expect(response.json().error).toBe('Resource not found');
    }
  });

  it('rejects a non-integer id with 400 naming it', async () => {
    const response = await t.app.inject({ method: 'GET', url: `${BASE}/abc`, headers: admin });
    expect(response.statusCode).toBe(400);
    expect(response.json().field).toBe('id');
  });

  it('lists experiments, filtered by status', async () => {
    const a = await createdId();
    const b = await createdId({ ...experimentBody(), name: 'second' });
    await act(b, 'start');
    const all = (await t.app.inject({ method: 'GET', url: BASE, headers: admin })).json().data;
    expect(all.map((e: { id: number }) => e.id)).toEqual([a, b]);
    const active = (await t.app.inject({ method: 'GET', url: `${BASE}?status=ACTIVE`, headers: admin })).json().data;
    expect(active.map((e: { id: number }) => e.id)).toEqual([b]);
    const drafts = (await t.app.inject({ method: 'GET', url: `${BASE}?status=DRAFT`, headers: admin })).json().data;
    expect(drafts.map((e: { id: number }) => e.id)).toEqual([a]);
    const bad = await t.app.inject({ method: 'GET', url: `${BASE}?status=RUNNING`, headers: admin });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().field).toBe('status');
  });
});

describe('experiment permissions', () => {
  const operations: [string, string, unknown?][] = [
    ['POST', BASE, experimentBody()],
    ['GET', BASE],
    ['GET', `${BASE}/1`],
    ['POST', `${BASE}/1/start`],
    ['POST', `${BASE}/1/pause`],
    ['POST', `${BASE}/1/stop`],
    ['GET', `${BASE}/1/status`],
    ['GET', `${BASE}/1/metrics`],
    ['GET', `${BASE}/1/analysis`],
    ['GET', `${BASE}/1/gates`],
    ['GET', `${BASE}/1/export`],
  ];

  it.each(operations)('%s %s is 401 without a token, 401 with a bad one, 403 without admin', async (method, url, payload) => {
    await createdId();
    const inject = (headers: Record<string, string>) =>
      t.app.inject({ method: method as 'GET' | 'POST', url, headers, ...(payload ? { payload: payload } : {}) });
    const anonymous = await inject({});
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json().error).toBe('Authentication required');
    expect((await inject({ authorization: 'Bearer not-a-token' })).statusCode).toBe(401);
    const user = await inject(await t.userHeaders('alice'));
    expect(user.statusCode).toBe(403);
    expect(user.json().error).toBe('Forbidden');
  });

  it('checks credentials before the body: an anonymous bad body is 401, not 400', async () => {
    const response = await t.app.inject({ method: 'POST', url: BASE, payload: { nonsense: true } });
    expect(response.statusCode).toBe(401);
  });
});
