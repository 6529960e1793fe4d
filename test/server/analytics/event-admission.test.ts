/**
 * Events count only when they can be true (decisions.md, issue 9): a click counts only
 * against an impression of that post served to that user, once per impression; client
 * timestamps outside the skew window and over-long sessions are refused; every refusal is
 * stored with its reason, reported in the response and counted in Prometheus.
 * Everything goes through HTTP on a real app: posts ingested, an experiment started, lists
 * served by the recommendations endpoint (which records the impressions).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeStatus } from '../../helpers/mastodon-fixtures.js';
import { parsePrometheusText } from '../../helpers/prometheus.js';
import { createTestApp, type TestApp } from '../../helpers/test-app.js';
import { experimentBody } from '../experiments/experiment-bodies.js';

const EVENTS = '/api/v1/analytics/events';
const BASE = '/api/v1/analytics/experiments';
const HOUR = 3_600_000;
let t: TestApp;
let admin: Record<string, string>;
let experimentId: number;

beforeEach(async () => {
  t = await createTestApp();
  admin = await t.adminHeaders();
  const statuses = Array.from({ length: 20 }, (_, i) => makeStatus({ n: i + 1, author: `author${1 + (i % 5)}`, ageHours: 1 + i }));
  expect((await t.app.inject({ method: 'POST', url: '/api/v1/posts/batch', headers: admin, payload: { statuses } })).statusCode).toBe(201);
  experimentId = (
    await t.app.inject({ method: 'POST', url: BASE, headers: admin, payload: experimentBody({ minimum_sample_size: 1 }) })
  ).json().data.id;
  expect((await t.app.inject({ method: 'POST', url: `${BASE}/${experimentId}/start`, headers: admin })).statusCode).toBe(200);
});
afterEach(async () => t.close());

/** Serves `limit` recommendations to `user` (each an impression); returns the post ids. */
async function serve(user: string, limit = 4): Promise<string[]> {
  const res = await t.app.inject({
    method: 'GET',
    url: `/api/v1/recommendations?user_id=${user}&limit=${limit}`,
    headers: await t.userHeaders(user),
  });
  expect(res.statusCode).toBe(200);
  return res.json().map((p: { id: string }) => p.id);
}

async function send(events: object[]) {
  const res = await t.app.inject({ method: 'POST', url: EVENTS, headers: admin, payload: { events } });
  expect(res.statusCode).toBe(201);
  return res.json().data;
}

/** The user's counts as exported (the numbers every metric and the analysis are built from). */
async function countsOf(user: string): Promise<Record<string, number>> {
  const res = await t.app.inject({ method: 'GET', url: `${BASE}/${experimentId}/export`, headers: admin });
  expect(res.statusCode).toBe(200);
  const line = res.body
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l))
    .find((l) => l.type === 'user' && l.user_id === user);
  expect(line, user).toBeDefined();
  return line;
}

/** Each variant's click-through rate from the metrics endpoint. */
async function clickThroughRates(): Promise<number[]> {
  const res = await t.app.inject({ method: 'GET', url: `${BASE}/${experimentId}/metrics`, headers: admin });
  return res.json().data.variants.map((v: { engagement: { click_through_rate: number | null } }) => v.engagement.click_through_rate ?? 0);
}

const click = (user: string, post: string, extra: object = {}) => ({ type: 'click', user_id: user, post_id: post, ...extra });
const iso = (ms: number) => new Date(ms).toISOString();

describe('clicks count only against impressions', () => {
  it('refuses clicks on posts never served to the user, so click-through rate cannot exceed 1', async () => {
    const served = await serve('alice');
    const other = await serve('bob', 8); // served to someone else: still not an impression of alice's
    const fake = Array.from({ length: 30 }, (_, i) => click('alice', `never-served-${i}`));
    const result = await send([click('alice', served[0]!), ...fake, click('alice', other.find((p) => !served.includes(p)) ?? 'none')]);
    expect(result).toMatchObject({ accepted: 1, rejected: 31, rejected_by_reason: { no_impression: 31 } });

    expect(await countsOf('alice')).toMatchObject({ impressions: served.length, clicks: 1 });
    for (const ctr of await clickThroughRates()) expect(ctr).toBeLessThanOrEqual(1);
  });

  it('counts at most one click per impression and names the rest duplicate_click', async () => {
    const served = await serve('alice');
    const result = await send(Array.from({ length: 5 }, () => click('alice', served[0]!)));
    expect(result).toMatchObject({ accepted: 1, rejected: 4, rejected_by_reason: { duplicate_click: 4 } });
    expect(result.rejections).toEqual([1, 2, 3, 4].map((index) => ({ index, reason: 'duplicate_click' })));
    // A later batch cannot click the same impression again either...
    expect(await send([click('alice', served[0]!)])).toMatchObject({ accepted: 0, rejected_by_reason: { duplicate_click: 1 } });
    // ...but the same post served again is a new impression that may be clicked once.
    const again = await serve('alice');
    expect(again).toContain(served[0]);
    expect(await send([click('alice', served[0]!), click('alice', served[0]!)])).toMatchObject({ accepted: 1, rejected: 1 });

    expect(await countsOf('alice')).toMatchObject({ impressions: served.length + again.length, clicks: 2 });
  });

  it('keeps click-through rate at most 1 for every user whatever they send (the poisoning of issue 9)', async () => {
    const served = await serve('alice', 2);
    await send(Array.from({ length: 200 }, (_, i) => click('alice', served[i % served.length]!)));
    expect(await countsOf('alice')).toMatchObject({ impressions: served.length, clicks: served.length });
    expect(Math.max(...(await clickThroughRates()))).toBe(1);
  });

  it('lets two concurrent batches claim an impression once between them', async () => {
    const served = await serve('alice', 1);
    const [a, b] = await Promise.all([send([click('alice', served[0]!)]), send([click('alice', served[0]!)])]);
    expect(a.accepted + b.accepted).toBe(1);
    expect((await countsOf('alice')).clicks).toBe(1);
  });

  it('holds views to the same rule: one per impression, none without one', async () => {
    const served = await serve('alice', 2);
    const view = (post: string) => ({ type: 'view', user_id: 'alice', post_id: post });
    const result = await send([view(served[0]!), view(served[0]!), view('never-served'), click('alice', served[0]!)]);
    expect(result).toMatchObject({ accepted: 2, rejected: 2, rejected_by_reason: { duplicate_view: 1, no_impression: 1 } });
  });
});

describe('client timestamps and sessions', () => {
  it('refuses events stamped outside the skew window (the 1.18e9 s session of issue 9)', async () => {
    await serve('alice');
    const now = Date.now();
    const result = await send([
      { type: 'session_start', user_id: 'alice', session_id: 'epoch', timestamp: '1970-01-01T00:00:00.000Z' },
      { type: 'session_end', user_id: 'alice', session_id: 'epoch', timestamp: iso(now) },
      { type: 'session_start', user_id: 'alice', session_id: 'future', timestamp: iso(now) },
      { type: 'session_end', user_id: 'alice', session_id: 'future', timestamp: iso(now + 2 * HOUR) },
      { type: 'session_start', user_id: 'alice', session_id: 'past', timestamp: iso(now - 25 * HOUR) },
    ]);
    expect(result.rejections).toEqual([
      { index: 0, reason: 'timestamp_out_of_window' },
      { index: 3, reason: 'timestamp_out_of_window' },
      { index: 4, reason: 'timestamp_out_of_window' },
    ]);
    expect(await countsOf('alice')).toMatchObject({ sessions: 0, session_seconds: 0 });
  });

  it('accepts timestamps just inside the window', async () => {
    await serve('alice');
    const now = Date.now();
    const result = await send([
      { type: 'session_start', user_id: 'alice', session_id: 's', timestamp: iso(now - 23 * HOUR) },
      { type: 'session_end', user_id: 'alice', session_id: 's', timestamp: iso(now - 12 * HOUR) },
      { type: 'session_start', user_id: 'alice', session_id: 'soon', timestamp: iso(now + 4 * 60_000) },
    ]);
    expect(result).toMatchObject({ accepted: 3, rejected: 0, rejected_by_reason: {} });
    expect(await countsOf('alice')).toMatchObject({ sessions: 1, session_seconds: 11 * 3600 });
  });

  it('refuses a session end more than 12 h after its start, or before it, in one batch or across batches', async () => {
    await serve('alice');
    const now = Date.now();
    const first = await send([
      { type: 'session_start', user_id: 'alice', session_id: 'long', timestamp: iso(now - 13 * HOUR) },
      { type: 'session_end', user_id: 'alice', session_id: 'long', timestamp: iso(now) },
      { type: 'session_end', user_id: 'alice', session_id: 'backwards', timestamp: iso(now - HOUR) },
    ]);
    expect(first.rejections).toEqual([{ index: 1, reason: 'session_too_long' }]);
    // The start arrives after its end: checked against the stored end.
    const second = await send([{ type: 'session_start', user_id: 'alice', session_id: 'backwards', timestamp: iso(now) }]);
    expect(second.rejections).toEqual([{ index: 0, reason: 'session_ends_before_start' }]);
    expect(await countsOf('alice')).toMatchObject({ sessions: 0, session_seconds: 0 });
  });

  it('takes one start and one end per session: a later end cannot stretch it', async () => {
    const served = await serve('alice');
    const now = Date.now();
    const result = await send([
      { type: 'session_start', user_id: 'alice', session_id: 's', timestamp: iso(now - 60_000) },
      click('alice', served[0]!, { session_id: 's' }),
      { type: 'session_end', user_id: 'alice', session_id: 's', timestamp: iso(now) },
      { type: 'session_start', user_id: 'alice', session_id: 's', timestamp: iso(now - 11 * HOUR) },
      { type: 'session_end', user_id: 'alice', session_id: 's', timestamp: iso(now + 60_000) },
    ]);
    expect(result.rejected_by_reason).toEqual({ duplicate_session_start: 1, duplicate_session_end: 1 });
    expect(await countsOf('alice')).toMatchObject({ sessions: 1, session_seconds: 60, bounces: 0, clicks: 1 });
  });

  it('does not let a refused click make a session a non-bounce', async () => {
    await serve('alice');
    const now = Date.now();
    await send([
      { type: 'session_start', user_id: 'alice', session_id: 's', timestamp: iso(now - 60_000) },
      click('alice', 'never-served', { session_id: 's' }),
      { type: 'session_end', user_id: 'alice', session_id: 's', timestamp: iso(now) },
    ]);
    expect(await countsOf('alice')).toMatchObject({ sessions: 1, bounces: 1, clicks: 0 });
  });
});

describe('refused events are visible', () => {
  it('stores them with their reason and counts them in service_analytics_events_rejected_total{type,reason}', async () => {
    const served = await serve('alice');
    await send([
      click('alice', served[0]!),
      click('alice', served[0]!),
      click('alice', 'nope'),
      click('alice', 'nope2'),
      { type: 'session_start', user_id: 'alice', session_id: 's', timestamp: '2001-01-01T00:00:00Z' },
    ]);
    const rows = await t.database.db.selectFrom('analytics_events').select(['type', 'post_id', 'rejected_reason']).orderBy('id').execute();
    expect(rows.map((r) => r.rejected_reason)).toEqual([
      null,
      'duplicate_click',
      'no_impression',
      'no_impression',
      'timestamp_out_of_window',
    ]);

    const families = parsePrometheusText((await t.app.inject({ method: 'GET', url: '/metrics' })).body);
    const rejected = families.get('service_analytics_events_rejected_total');
    expect(rejected?.type).toBe('counter');
    const sample = (type: string, reason: string) =>
      rejected?.samples.find((s) => s.labels.type === type && s.labels.reason === reason)?.value;
    expect(sample('click', 'no_impression')).toBe(2);
    expect(sample('click', 'duplicate_click')).toBe(1);
    expect(sample('session_start', 'timestamp_out_of_window')).toBe(1);
    const accepted = families.get('service_analytics_events_accepted_total');
    expect(accepted?.samples.find((s) => s.labels.type === 'click')?.value).toBe(1);
  });

  it('still refuses a malformed batch whole with 400 (malformed is not untrue)', async () => {
    const served = await serve('alice');
    const res = await t.app.inject({
      method: 'POST',
      url: EVENTS,
      headers: admin,
      payload: { events: [click('alice', served[0]!), { type: 'click', user_id: 'alice' }] },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().field).toBe('events[1].post_id');
    expect(await t.database.db.selectFrom('analytics_events').selectAll().execute()).toEqual([]);
    const families = parsePrometheusText((await t.app.inject({ method: 'GET', url: '/metrics' })).body);
    expect(families.get('service_analytics_events_rejected_total')?.samples ?? []).toEqual([]);
  });
});
