/**
 * Issue 9: an interaction's `context` is bounded (CONTEXT_BOUNDS), a context beyond the
 * bounds is a 400 naming its path, and nothing in the database — even a context written
 * before the bounds existed — can make a later read fail or grow a page to megabytes.
 */
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CONTEXT_BOUNDS } from '../../../src/schemas/bounded-json.js';
import { MAX_INTERACTIONS_PAGE } from '../../../src/schemas/interaction.schema.js';
import { createTestApp, type TestApp } from '../../helpers/test-app.js';
import { makeStatus, postId } from '../../helpers/mastodon-fixtures.js';

const POSTS = 70;

let t: TestApp;
beforeEach(async () => {
  t = await createTestApp();
  const statuses = Array.from({ length: POSTS }, (_, i) => makeStatus({ n: i + 1, author: `a${i % 5}` }));
  const res = await t.app.inject({ method: 'POST', url: '/api/v1/posts/batch', headers: await t.adminHeaders(), payload: { statuses } });
  expect(res.statusCode).toBe(201);
});
afterEach(async () => {
  await t.close();
});

/** `{"a":{"a":…1…}}` as JSON text with `depth` objects (text, so the test never recurses either). */
function nestedText(depth: number): string {
  return '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
}

async function logRaw(contextJson: string, n = 1) {
  return t.app.inject({
    method: 'POST',
    url: '/api/v1/interactions',
    headers: { ...(await t.userHeaders('u1')), 'content-type': 'application/json' },
    payload: `{"user_id":"u1","post_id":"${postId(n)}","action_type":"favorite","context":${contextJson}}`,
  });
}

async function list(query = '') {
  return t.app.inject({ url: `/api/v1/interactions?user_id=u1${query}`, headers: await t.userHeaders('u1') });
}

async function favourites(n = 1): Promise<number> {
  return (await t.app.inject({ url: `/api/v1/interactions/counts/${postId(n)}` })).json().data.favourites_count;
}

/** A context of exactly `bytes` bytes of JSON: `{"pad":"xxx…"}` split over keys to respect string lengths. */
function contextOfSize(bytes: number): Record<string, string> {
  const context: Record<string, string> = {};
  let size = 2; // {}
  for (let k = 0; size < bytes; k++) {
    const key = `k${k}`;
    const overhead = (k === 0 ? 0 : 1) + key.length + 5; // ,"key":""
    const room = Math.min(CONTEXT_BOUNDS.maxStringLength, bytes - size - overhead);
    context[key] = 'x'.repeat(room);
    size += overhead + room;
  }
  return context;
}

/** Writes an interaction row directly, as a build without the bounds could have stored it. */
async function storeRaw(id: string, n: number, contextJson: string | null): Promise<void> {
  await sql`INSERT INTO interactions (id, user_id, post_id, action_type, context_json, created_at, created_at_ms)
    VALUES (${id}, 'u1', ${postId(n)}, 'favorite', ${contextJson}, '2025-03-01T12:00:00.000Z', ${Date.parse('2025-03-01T12:00:00.000Z')})`.execute(
    t.database.db,
  );
}

describe('POST /api/v1/interactions: context bounds', () => {
  it('keeps a context at exactly the bounds: 4 levels deep, 4096 bytes', async () => {
    const deepest = await logRaw(nestedText(CONTEXT_BOUNDS.maxDepth), 1);
    expect(deepest.statusCode).toBe(201);
    expect(JSON.stringify(deepest.json().data.context)).toBe(nestedText(CONTEXT_BOUNDS.maxDepth));
    const largest = contextOfSize(CONTEXT_BOUNDS.maxBytes);
    expect(Buffer.byteLength(JSON.stringify(largest))).toBe(CONTEXT_BOUNDS.maxBytes);
    const res = await logRaw(JSON.stringify(largest), 2);
    expect(res.statusCode).toBe(201);
    expect(res.json().data.context).toEqual(largest);
  });

  it.each([5, 4_111, 4_112, 100_000])(
    'refuses a context nested %i deep with 400 naming the first level too deep, storing nothing',
    async (depth) => {
      const res = await logRaw(nestedText(depth));
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ error: 'Invalid request', status_code: 400, request_id: res.headers['x-request-id'] });
      // The context's own bound, or the JSON body parser's (32 levels) once it refuses the body first.
      const { field, message } = res.json();
      expect(field).toMatch(depth > 32 ? /^context(\.a)+$/ : /^context\.a\.a\.a\.a$/);
      expect([`${field} is nested deeper than 4 levels`, `${field} is nested deeper than 32 levels`]).toContain(message);
      expect(await favourites()).toBe(0);
      expect((await list()).json().data).toEqual([]);
    },
  );

  it('names the path of each other bound it breaks', async () => {
    const cases: [unknown, string, RegExp][] = [
      [contextOfSize(CONTEXT_BOUNDS.maxBytes + 1), 'context', /larger than 4096 bytes/],
      [{ note: 'x'.repeat(CONTEXT_BOUNDS.maxStringLength + 1) }, 'context.note', /longer than 1024 characters/],
      [{ a: { list: Array(CONTEXT_BOUNDS.maxArrayLength + 1).fill(1) } }, 'context.a.list', /more than 20 items/],
      [{ a: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, i])) }, 'context.a', /more than 20 keys/],
      [{ ['k'.repeat(65)]: 1 }, 'context', /key longer than 64 characters/],
      [Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, i])), 'context', /more than 20 properties/],
    ];
    for (const [context, field, message] of cases) {
      const res = await logRaw(JSON.stringify(context));
      expect(res.statusCode, field).toBe(400);
      expect(res.json(), field).toMatchObject({ error: 'Invalid request', field });
      expect(res.json().message, field).toMatch(message);
    }
    expect(await favourites()).toBe(0);
  });
});

describe('GET /api/v1/interactions: reads never fail, pages stay small', () => {
  it('lists a user whose stored contexts predate the bounds (100,000 deep, 1 MiB): 200, those contexts null', async () => {
    await storeRaw('100000000000000001', 1, nestedText(100_000));
    await storeRaw('100000000000000002', 2, JSON.stringify({ pad: 'x'.repeat(1_048_576) }));
    await storeRaw('100000000000000003', 3, nestedText(CONTEXT_BOUNDS.maxDepth + 1)); // short, but too deep
    await storeRaw('100000000000000004', 4, '{"source":"home"}');
    const res = await list();
    expect(res.statusCode).toBe(200);
    expect(res.json().data.map((i: { id: string; context: unknown }) => [i.id, i.context])).toEqual([
      ['100000000000000004', { source: 'home' }],
      ['100000000000000003', null],
      ['100000000000000002', null],
      ['100000000000000001', null],
    ]);
    expect(res.body.length).toBeLessThan(2_000);
    // Reading one of them back through undo answers too.
    const undo = await t.app.inject({
      method: 'DELETE',
      url: '/api/v1/interactions/100000000000000001',
      headers: await t.userHeaders('u1'),
    });
    expect(undo.statusCode).toBe(200);
    expect(undo.json().data.context).toBeNull();
  });

  it('a full page of the largest contexts is under a megabyte', async () => {
    const largest = JSON.stringify(contextOfSize(CONTEXT_BOUNDS.maxBytes));
    const actions = ['favorite', 'reblog', 'bookmark'];
    for (let i = 0; i < MAX_INTERACTIONS_PAGE + 5; i++) {
      await sql`INSERT INTO interactions (id, user_id, post_id, action_type, context_json, created_at, created_at_ms)
        VALUES (${String(100_000_000_000_000_000n + BigInt(i))}, 'u1', ${postId((i % POSTS) + 1)}, ${actions[Math.floor(i / POSTS)]}, ${largest}, '2025-03-01T12:00:00.000Z', 0)`.execute(
        t.database.db,
      );
    }
    const res = await list(`&limit=${MAX_INTERACTIONS_PAGE}`);
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toHaveLength(MAX_INTERACTIONS_PAGE);
    expect(res.body.length).toBeLessThan(1_048_576);
    const tooMany = await list(`&limit=${MAX_INTERACTIONS_PAGE + 1}`);
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.json()).toMatchObject({ error: 'Invalid request', field: 'limit' });
    expect((await list()).json().data).toHaveLength(40);
  });
});
