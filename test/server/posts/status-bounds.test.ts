/**
 * Issue 9: an ingested status is kept as sent only within STATUS_BOUNDS; beyond them it is a
 * 400 naming the path and nothing of the request is stored. A status stored before the
 * bounds (extras too deep or too big) no longer makes any read that renders it fail.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { STATUS_BOUNDS } from '../../../src/schemas/bounded-json.js';
import { createTestApp, type TestApp } from '../../helpers/test-app.js';
import { makeStatus, postId } from '../../helpers/mastodon-fixtures.js';

let t: TestApp | undefined;
let dir: string | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** `{"a":{"a":…}}` as JSON text with `depth` objects. */
function nestedText(depth: number): string {
  return '{"a":'.repeat(depth - 1) + '{}' + '}'.repeat(depth - 1);
}

/** A status with the deep, optional parts Mastodon really sends (about 7 levels at most). */
function richStatus(n: number): Record<string, unknown> {
  const original = makeStatus({ n: n + 1000, author: 'orig' }) as unknown as Record<string, unknown>;
  return {
    ...makeStatus({ n, author: 'booster' }),
    media_attachments: [
      {
        id: '1',
        type: 'image',
        url: 'https://social.example/m/1.png',
        meta: { original: { width: 640, height: 480, size: '640x480', aspect: 1.33 }, focus: { x: 0, y: 0 } },
        description: 'alt',
      },
    ],
    card: { url: 'https://example.com', title: 'Example', description: '', type: 'link', width: 0, height: 0, html: '' },
    poll: { id: '9', expired: false, multiple: false, votes_count: 3, options: [{ title: 'yes', votes_count: 2, emojis: [] }], emojis: [] },
    mentions: [{ id: '5', username: 'bob', url: 'https://social.example/@bob', acct: 'bob' }],
    reblog: {
      ...original,
      account: {
        ...(original.account as object),
        fields: [{ name: 'Web', value: '<a href="https://x.example">x</a>', verified_at: null }],
      },
      filtered: [
        {
          filter: { id: '1', title: 'f', context: ['home'], keywords: [{ id: '2', keyword: 'k', whole_word: true }] },
          keyword_matches: ['k'],
        },
      ],
    },
  };
}

async function postRaw(url: string, payload: string) {
  if (!t) throw new Error('no app');
  return t.app.inject({ method: 'POST', url, headers: { ...(await t.adminHeaders()), 'content-type': 'application/json' }, payload });
}

function withField(status: Record<string, unknown>, name: string, rawJson: string): string {
  return JSON.stringify(status).slice(0, -1) + `,"${name}":${rawJson}}`;
}

describe('ingest: status bounds', () => {
  it('keeps a real Mastodon status with media, card, poll, mentions and a reblog with fields and filters', async () => {
    t = await createTestApp();
    const res = await postRaw('/api/v1/posts', JSON.stringify(richStatus(1)));
    expect(res.statusCode).toBe(201);
    expect(res.json().media_attachments[0].meta.original.width).toBe(640);
    expect(res.json().reblog.account.fields[0].name).toBe('Web');
  });

  it.each([STATUS_BOUNDS.maxDepth + 1, 4_200, 100_000])(
    'refuses an unknown field nested %i deep: 400 naming the path, nothing stored',
    async (depth) => {
      t = await createTestApp();
      const res = await postRaw('/api/v1/posts', withField(makeStatus({ n: 1 }), 'extra', nestedText(depth)));
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ error: 'Invalid request', status_code: 400 });
      // The status bound names extra + 9 levels; the JSON body parser (32 levels), once it refuses the body first, more.
      const { field, message } = res.json();
      expect(field).toMatch(new RegExp(`^extra(\\.a){${STATUS_BOUNDS.maxDepth - 1},}$`));
      expect([`${field} is nested deeper than 10 levels`, `${field} is nested deeper than 32 levels`]).toContain(message);
      expect((await t.app.inject({ url: `/api/v1/posts/${postId(1)}` })).statusCode).toBe(404);
    },
  );

  it('refuses a batch with one status beyond the bounds, naming it, and stores none of the batch', async () => {
    t = await createTestApp();
    const good = JSON.stringify(makeStatus({ n: 1 }));
    const deepCard = withField(makeStatus({ n: 2 }), 'card', nestedText(5_000));
    const res = await postRaw('/api/v1/posts/batch', `{"statuses":[${good},${deepCard}]}`);
    expect(res.statusCode).toBe(400);
    expect(res.json().field).toMatch(new RegExp(`^statuses\\[1\\]\\.card(\\.a){${STATUS_BOUNDS.maxDepth - 1},}$`));
    expect((await t.app.inject({ url: '/api/v1/posts' })).json()).toEqual([]);
  });

  it('names the other bounds: size, strings, arrays, keys', async () => {
    t = await createTestApp();
    const base = makeStatus({ n: 1 }) as unknown as Record<string, unknown>;
    const chunk = 'x'.repeat(STATUS_BOUNDS.maxStringLength);
    const cases: [Record<string, unknown>, string | undefined, RegExp][] = [
      [{ ...base, a: chunk, b: chunk, c: chunk }, undefined, /^body is larger than 262144 bytes as JSON$/],
      [{ ...base, note: `${chunk}x` }, 'note', /longer than 100000 characters/],
      [
        { ...base, media_attachments: Array(STATUS_BOUNDS.maxArrayLength + 1).fill({ id: '1' }) },
        'media_attachments',
        /more than 100 items/,
      ],
      [{ ...base, card: Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`k${i}`, i])) }, 'card', /more than 100 keys/],
    ];
    for (const [status, field, message] of cases) {
      const res = await postRaw('/api/v1/posts', JSON.stringify(status));
      expect(res.statusCode, String(field)).toBe(400);
      expect(res.json().field, String(field)).toBe(field);
      expect(res.json().message, String(field)).toMatch(message);
    }
    const batch = await postRaw('/api/v1/posts/batch', JSON.stringify({ statuses: [{ ...base, a: chunk, b: chunk, c: chunk }] }));
    expect(batch.json()).toMatchObject({ field: 'statuses[0]', message: 'statuses[0] is larger than 262144 bytes as JSON' });
    expect((await t.app.inject({ url: '/api/v1/posts' })).json()).toEqual([]);
  });
});

describe('reads of statuses stored before the bounds', () => {
  it('render a post whose stored extras are 100,000 deep or 1 MiB without them, in every list', async () => {
    dir = mkdtempSync(join(tmpdir(), 'recsvc-status-bounds-'));
    const dbPath = join(dir, 'db.sqlite');
    t = await createTestApp({ dbPath });
    const statuses = [1, 2, 3].map((n) => makeStatus({ n, author: `a${n}` }));
    expect(
      (await t.app.inject({ method: 'POST', url: '/api/v1/posts/batch', headers: await t.adminHeaders(), payload: { statuses } }))
        .statusCode,
    ).toBe(201);
    await t.close();
    // A fresh process on the same database: nothing rendered or cached yet.
    t = await createTestApp({ dbPath });
    const db = t.database.db;
    await sql`UPDATE posts SET extras_json = ${`{"card":${nestedText(100_000)}}`} WHERE id = ${postId(1)}`.execute(db);
    await sql`UPDATE posts SET extras_json = ${JSON.stringify({ card: { html: 'x'.repeat(1_048_576) } })} WHERE id = ${postId(2)}`.execute(
      db,
    );
    await sql`UPDATE accounts SET extras_json = ${`{"fields":[${nestedText(100_000)}]}`} WHERE id = 'acc-a3'`.execute(db);

    const one = await t.app.inject({ url: `/api/v1/posts/${postId(1)}` });
    expect(one.statusCode).toBe(200);
    expect(one.json()).toMatchObject({ id: postId(1), card: null, media_attachments: [] });
    const list = await t.app.inject({ url: '/api/v1/posts' });
    expect(list.statusCode).toBe(200);
    expect(list.json().map((s: { id: string; card: unknown; account: { fields: unknown[] } }) => [s.id, s.card, s.account.fields])).toEqual(
      [
        [postId(3), null, []],
        [postId(2), null, []],
        [postId(1), null, []],
      ],
    );
    expect(list.body.length).toBeLessThan(20_000);
    const recommended = await t.app.inject({ url: '/api/v1/recommendations?user_id=u1', headers: await t.userHeaders('u1') });
    expect(recommended.statusCode).toBe(200);
    expect(
      recommended
        .json()
        .map((s: { id: string }) => s.id)
        .sort(),
    ).toEqual([postId(1), postId(2), postId(3)]);
  });
});
