/**
 * Fidelity of the statuses on a blended timeline:
 * - a recommendation the service renders from its store carries every field a Mastodon
 *   4.5 instance sends, with a JSON type the instance uses for it, in the status, its
 *   account and every nested object (the field list is taken from what the test instance,
 *   which renders statuses as Mastodon 4.5 does, sends to alice for other people's statuses);
 * - statuses from the instance pass through with every field, unknown future ones included.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startMastodonInstance, type Json, type MastodonTestInstance } from '../../helpers/mastodon-instance.js';
import { timelinesHarness, unfollowedStatuses, type TimelinesHarness } from './timelines-test-app.js';

const HOME = '/api/v1/timelines/home';

let instance: MastodonTestInstance;
let h: TimelinesHarness;

beforeAll(async () => {
  instance = await startMastodonInstance();
  h = await timelinesHarness();
  const candidates = unfollowedStatuses(instance);
  await h.seed(candidates, instance);
});

afterAll(async () => {
  await h.close();
  await instance.close();
});

afterEach(() => {
  instance.clearFaults();
});

function get(url: string, token = instance.token) {
  return h.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}`, 'x-social-instance': instance.host } });
}

type JsonType = 'null' | 'array' | 'object' | 'string' | 'number' | 'boolean';

function jsonType(value: unknown): JsonType {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value as JsonType;
}

/** For each object path (`status`, `status.account`, `status.tags[]`, ...): each key seen there and the types it had. */
type Shapes = Map<string, Map<string, Set<JsonType>>>;

function collectShapes(value: unknown, path: string, shapes: Shapes): void {
  if (Array.isArray(value)) {
    for (const item of value) collectShapes(item, `${path}[]`, shapes);
    return;
  }
  if (jsonType(value) !== 'object') return;
  const keys = shapes.get(path) ?? new Map<string, Set<JsonType>>();
  shapes.set(path, keys);
  for (const [key, field] of Object.entries(value as Json)) {
    keys.set(key, (keys.get(key) ?? new Set()).add(jsonType(field)));
    collectShapes(field, `${path}.${key}`, shapes);
  }
}

/** Every way `value` falls short of the shapes: a key missing, or a type the instance never used there. */
function shortfalls(value: unknown, path: string, shapes: Shapes): string[] {
  if (Array.isArray(value)) return value.flatMap((item) => shortfalls(item, `${path}[]`, shapes));
  const expected = shapes.get(path);
  if (jsonType(value) !== 'object' || expected === undefined) return [];
  const record = value as Json;
  const problems: string[] = [];
  for (const [key, types] of expected) {
    if (!(key in record)) problems.push(`${path}.${key} missing`);
    else if (!types.has(jsonType(record[key])))
      problems.push(`${path}.${key} is ${jsonType(record[key])}, expected ${[...types].join('|')}`);
    else problems.push(...shortfalls(record[key], `${path}.${key}`, shapes));
  }
  return problems;
}

/** The shapes of what the instance sends alice for statuses that are not hers (`pinned` is only on one's own). */
function instanceShapes(): Shapes {
  const aliceId = (instance.accounts[0] as Json).id;
  const shapes: Shapes = new Map();
  const statuses = [...instance.homeTimeline(0), ...instance.publicTimeline()].filter((status) => (status.account as Json).id !== aliceId);
  for (const status of statuses) collectShapes(instance.status(status.id as string, 0) ?? status, 'status', shapes);
  return shapes;
}

describe('statuses the service renders', () => {
  it('a Mastodon 4.5 status as the instance sends it is what the shapes are taken from', () => {
    const shapes = instanceShapes();
    // The fields Mastodon 4.5 added or that masto.js requires are among them, or the comparison below proves little.
    expect([...(shapes.get('status')?.keys() ?? [])]).toEqual(
      expect.arrayContaining(['quotes_count', 'quote', 'quote_approval', 'filtered']),
    );
    expect([...(shapes.get('status.account')?.keys() ?? [])]).toEqual(
      expect.arrayContaining(['roles', 'indexable', 'hide_collections', 'noindex', 'uri', 'fields', 'emojis', 'group']),
    );
    expect(shapes.has('status.quote_approval')).toBe(true);
  });

  it('injected recommendations carry every field of an instance status, with its types, recursively', async () => {
    const shapes = instanceShapes();
    const response = await get(`${HOME}?limit=40`, instance.issueToken(0));
    expect(response.statusCode, response.body).toBe(200);
    const injected = response.json<Json[]>().filter((status) => status.is_recommendation === true);
    expect(injected.length).toBeGreaterThan(0);
    for (const status of injected) expect(shortfalls(status, 'status', shapes)).toEqual([]);
  });

  it('so do the statuses of a degraded page, from the store alone', async () => {
    const shapes = instanceShapes();
    const token = instance.issueToken(0);
    expect((await get(`${HOME}?limit=1`, token)).statusCode).toBe(200);
    instance.fault({ kind: 'status', status: 500, path: HOME });
    const response = await get(`${HOME}?limit=10`, token);
    expect(response.headers['x-recsvc-degraded']).toBe('instance-unavailable');
    const statuses = response.json<Json[]>();
    expect(statuses.length).toBeGreaterThan(0);
    for (const status of statuses) expect(shortfalls(status, 'status', shapes)).toEqual([]);
  });

  it('the comparison notices a missing or mistyped field', () => {
    const shapes = instanceShapes();
    const sent = instance.status((instance.homeTimeline(1)[0] as Json).id as string, 0) as Json;
    const { quotes_count: _dropped, ...withoutQuotes } = sent;
    expect(shortfalls(withoutQuotes, 'status', shapes)).toEqual(['status.quotes_count missing']);
    const account = { ...(sent.account as Json), roles: null };
    expect(shortfalls({ ...sent, account }, 'status', shapes)).toEqual(['status.account.roles is null, expected array']);
  });
});

describe('statuses from the instance', () => {
  it('pass through with every field, unknown future fields included, nested ones too', async () => {
    const page = instance
      .homeTimeline(0)
      .slice(0, 6)
      .map((status, i) => ({
        ...status,
        future_field: { kind: 'something new', values: [1, { deep: true }] },
        account: { ...(status.account as Json), future_account_field: `value ${i}` },
        quote_approval: { ...(status.quote_approval as Json), future_policy_field: ['public'] },
      }));
    instance.fault({ kind: 'status', status: 200, body: page, path: HOME, times: 1 });
    const response = await get(`${HOME}?limit=6`, instance.issueToken(0));
    expect(response.statusCode, response.body).toBe(200);
    const real = response.json<Json[]>().filter((status) => status.is_recommendation === false);
    expect(real).toEqual(page.map((status) => ({ ...status, is_recommendation: false })));
  });
});
