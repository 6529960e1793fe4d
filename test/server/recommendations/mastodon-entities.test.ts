/**
 * Statuses the service renders from its store are Mastodon 4.5 statuses: every key Mastodon
 * sends, with its JSON type, in the status, its account and every nested entity, checked
 * field by field against test/fixtures/mastodon/entity-shapes-4.5.json on each route that
 * renders a stored post (recommendations GET and POST, their cached JSON, posts, seamless);
 * what an instance sent about the author and the post (roles, quote policy, counts) is kept;
 * masto.js and megalodon decode a recommendations page.
 */
import { readFileSync } from 'node:fs';
import { createRestAPIClient, type mastodon } from 'masto';
import megalodonApi from 'megalodon/lib/src/mastodon/api_client.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../helpers/test-app.js';
import { makeStatus, postId } from '../../helpers/mastodon-fixtures.js';

type Json = Record<string, unknown>;
type JsonType = 'null' | 'array' | 'object' | 'string' | 'number' | 'boolean';
type Shape = Record<string, JsonType[]>;

const SHAPES = JSON.parse(readFileSync(new URL('../../fixtures/mastodon/entity-shapes-4.5.json', import.meta.url), 'utf8')) as Record<
  string,
  Shape
>;

function shape(name: string): Shape {
  const found = SHAPES[name];
  if (found === undefined) throw new Error(`no shape ${name}`);
  return found;
}

function jsonType(value: unknown): JsonType {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value as JsonType;
}

/** Which nested values are which entity. */
const NESTED: Record<string, Record<string, string>> = {
  status: {
    account: 'account',
    quote_approval: 'quote_approval',
    reblog: 'status',
    mentions: 'mention',
    tags: 'tag',
    emojis: 'emoji',
    media_attachments: 'media_attachment',
    application: 'application',
  },
  account: { roles: 'role', fields: 'field', emojis: 'emoji', feature_approval: 'quote_approval' },
};

/**
 * Every way `value` falls short of the entity's shape, recursively: a key missing, or of a type
 * Mastodon never sends there. A reblogged original may leave out its own `reblog` (always null
 * there; clients read it as absent).
 */
function shortfalls(value: unknown, entity: string, path = entity): string[] {
  if (jsonType(value) !== 'object') return [`${path} is ${jsonType(value)}, expected object`];
  const record = value as Json;
  const problems: string[] = [];
  for (const [key, types] of Object.entries(shape(entity))) {
    if (key === 'reblog' && path.endsWith('.reblog') && !(key in record)) continue;
    if (!(key in record)) {
      problems.push(`${path}.${key} missing`);
      continue;
    }
    const field = record[key];
    if (!types.includes(jsonType(field))) problems.push(`${path}.${key} is ${jsonType(field)}, expected ${types.join('|')}`);
    const nested = NESTED[entity]?.[key];
    if (nested === undefined || field === null) continue;
    if (Array.isArray(field)) field.forEach((item, i) => problems.push(...shortfalls(item, nested, `${path}.${key}[${i}]`)));
    else problems.push(...shortfalls(field, nested, `${path}.${key}`));
  }
  return problems;
}

const ALICE = {
  id: '1001',
  username: 'alice',
  acct: 'alice@social.example',
  display_name: 'Alice :blobcat:',
  locked: false,
  bot: false,
  discoverable: true,
  indexable: true,
  group: false,
  created_at: '2023-01-01T00:00:00.000Z',
  note: '<p>Cats and Rust</p>',
  url: 'https://social.example/@alice',
  uri: 'https://social.example/users/alice',
  avatar: 'https://social.example/avatars/alice.png',
  avatar_static: 'https://social.example/avatars/alice-static.png',
  header: 'https://social.example/headers/alice.png',
  header_static: 'https://social.example/headers/alice.png',
  followers_count: 12,
  following_count: 3,
  statuses_count: 40,
  last_status_at: '2025-02-28',
  hide_collections: true,
  noindex: false,
  emojis: [{ shortcode: 'blobcat', url: 'https://social.example/emoji/blobcat.png' }, { shortcode: 'no-url' }],
  fields: [{ name: 'Site', value: '<a href="https://alice.example">alice.example</a>', verified_at: '2024-01-01T00:00:00.000Z' }],
  roles: [{ id: 3, name: 'Moderator', color: '#ff0000' }],
  feature_approval: { automatic: ['public'], manual: [], current_user: 'automatic' },
};

/** A status as a Mastodon 4.5 instance sends it, with nested entities of every kind (one emoji incomplete). */
function richStatus(n: number): Json {
  return {
    ...makeStatus({ n, author: 'alice', tags: ['cats'], favourites: 30, reblogs: 4 }),
    account: ALICE,
    sensitive: false,
    spoiler_text: '',
    media_attachments: [
      { id: 'm1', type: 'image', url: 'https://files.example/m1.png', preview_url: 'https://files.example/m1s.png', meta: { small: {} } },
      { type: 'image' },
    ],
    mentions: [{ id: '7', username: 'bob', acct: 'bob@other.example', url: 'https://other.example/@bob' }, { username: 'no-id' }],
    emojis: [{ shortcode: 'party', url: 'https://social.example/emoji/party.png', static_url: 'https://social.example/emoji/party-s.png' }],
    application: { name: 'Phanpy', website: 'https://phanpy.social' },
    quotes_count: 5,
    quote: { state: 'accepted', quoted_status: { id: '99', content: 'someone who never consented' } },
    quote_approval: { automatic: ['followers'], manual: ['public'], current_user: 'manual' },
    pinned: true,
  };
}

let t: TestApp;
let base: string;

beforeAll(async () => {
  t = await createTestApp();
  const plain = Array.from({ length: 8 }, (_, i) => makeStatus({ n: i + 1, author: `author${i % 3}`, favourites: i, tags: ['rust'] }));
  const rich = [richStatus(20), richStatus(21)];
  const reblog = { ...makeStatus({ n: 30, author: 'carol' }), content: '', reblog: richStatus(22) };
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/v1/posts/batch',
    headers: await t.adminHeaders(),
    payload: { statuses: [...plain, ...rich, reblog] },
  });
  expect(res.statusCode, res.body).toBe(201);
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  const address = t.app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no address');
  base = `http://127.0.0.1:${address.port}`;
});

afterAll(async () => {
  await t.close();
});

async function recommendations(): Promise<{ body: string; statuses: Json[] }> {
  const response = await t.app.inject({ url: '/api/v1/recommendations?user_id=u1&limit=40', headers: await t.userHeaders('u1') });
  expect(response.statusCode, response.body).toBe(200);
  return { body: response.body, statuses: response.json<Json[]>() };
}

function byId(statuses: readonly Json[], n: number): Json {
  const found = statuses.find((status) => status.id === postId(n));
  if (found === undefined) throw new Error(`post ${n} is not in the list`);
  return found;
}

describe('the Mastodon 4.5 shape of rendered statuses', () => {
  it('the comparison notices a missing key, a wrong type, and a broken nested entity', () => {
    const status = { ...Object.fromEntries(Object.keys(shape('status')).map((key) => [key, null])) };
    const problems = shortfalls({ ...status, quotes_count: undefined }, 'status');
    expect(problems).toContain('status.account is null, expected object');
    expect(problems).toContain('status.quotes_count is undefined, expected number');
    const { quote_approval: _gone, ...withoutPolicy } = status;
    expect(shortfalls(withoutPolicy, 'status')).toContain('status.quote_approval missing');
    expect(shortfalls({ ...status, tags: [{ name: 'x' }] }, 'status')).toContain('status.tags[0].url missing');
  });

  it('recommendations (GET and POST) carry every key with its type, recursively, the same from the JSON cache', async () => {
    const first = await recommendations();
    expect(first.statuses.length).toBeGreaterThanOrEqual(11);
    for (const status of first.statuses) expect(shortfalls(status, 'status'), String(status.id)).toEqual([]);
    // The second list is concatenated from the cached status JSON: the same bytes, fields included.
    const again = await recommendations();
    expect(again.body).toBe(first.body);
    const post = await t.app.inject({
      method: 'POST',
      url: '/api/v1/recommendations',
      headers: await t.userHeaders('u1'),
      payload: { user_id: 'u1', limit: 40 },
    });
    expect(post.statusCode).toBe(200);
    for (const status of post.json<Json[]>()) expect(shortfalls(status, 'status'), String(status.id)).toEqual([]);
  });

  it('posts and seamless items carry every key with its type, recursively', async () => {
    const list = await t.app.inject({ url: '/api/v1/posts?limit=40' });
    expect(list.statusCode).toBe(200);
    const posts = list.json<Json[]>();
    expect(posts.length).toBeGreaterThanOrEqual(11);
    for (const status of posts) expect(shortfalls(status, 'status'), String(status.id)).toEqual([]);
    expect(byId(posts, 30).reblog).toMatchObject({ id: postId(22), quotes_count: 5 });
    const one = await t.app.inject({ url: `/api/v1/posts/${postId(20)}` });
    expect(shortfalls(one.json(), 'status')).toEqual([]);
    const seamless = await t.app.inject({
      method: 'POST',
      url: '/api/v1/recommendations/seamless',
      headers: await t.userHeaders('u1'),
      payload: { timeline_type: 'home', user_id: 'u1', existing_statuses: [{ id: postId(1) }, { id: postId(2) }, { id: postId(3) }] },
    });
    expect(seamless.statusCode, seamless.body).toBe(200);
    const body = seamless.json<Json[] | { data: Json[] }>();
    const items = Array.isArray(body) ? body : body.data;
    expect(items.length).toBeGreaterThan(0);
    for (const item of items) expect(shortfalls(item.content, 'status')).toEqual([]);
  });

  it('keeps what the instance said about the author and the post, for nobody in particular', async () => {
    const status = byId((await recommendations()).statuses, 20);
    expect(status).toMatchObject({ quotes_count: 5, quote: null, favourited: false, filtered: [] });
    expect(status).not.toHaveProperty('pinned');
    expect(status.quote_approval).toEqual({ automatic: ['followers'], manual: ['public'], current_user: 'unknown' });
    expect(status.application).toEqual({ name: 'Phanpy', website: 'https://phanpy.social' });
    expect(status.mentions).toEqual([{ id: '7', username: 'bob', acct: 'bob@other.example', url: 'https://other.example/@bob' }]);
    expect(status.media_attachments).toEqual([
      {
        id: 'm1',
        type: 'image',
        url: 'https://files.example/m1.png',
        preview_url: 'https://files.example/m1s.png',
        remote_url: null,
        description: null,
        blurhash: null,
        meta: { small: {} },
      },
    ]);
    expect(status.account).toMatchObject({
      indexable: true,
      hide_collections: true,
      noindex: false,
      roles: [{ id: '3', name: 'Moderator', color: '#ff0000' }],
      feature_approval: { automatic: ['public'], manual: [], current_user: 'unknown' },
      emojis: [
        {
          shortcode: 'blobcat',
          url: 'https://social.example/emoji/blobcat.png',
          static_url: 'https://social.example/emoji/blobcat.png',
          visible_in_picker: true,
        },
      ],
      fields: [ALICE.fields[0]],
    });
    expect(status.account).not.toHaveProperty('memorial');
    const plain = byId((await recommendations()).statuses, 1);
    expect(plain).toMatchObject({ quotes_count: 0, quote: null, quote_approval: { automatic: [], manual: [], current_user: 'unknown' } });
    expect(plain.account).toMatchObject({ indexable: true, roles: [], hide_collections: null });
  });
});

describe('Mastodon clients decode a recommendations page', () => {
  it('masto.js: the camel-cased 4.5 fields and the recommendation fields', async () => {
    const token = await t.token(['read'], { userId: 'u1' });
    const client = createRestAPIClient({ url: base, accessToken: token });
    type Recommended = mastodon.v1.Status & { isRecommendation?: boolean; recommendationMetadata?: { reasonCode?: string } };
    const resource = (client.v1 as unknown as { recommendations: { list(params: object): Promise<Recommended[]> } }).recommendations;
    const statuses = await resource.list({ userId: 'u1', limit: 40 });
    expect(statuses.length).toBeGreaterThanOrEqual(11);
    for (const status of statuses) {
      expect(typeof status.quotesCount).toBe('number');
      expect(status.quoteApproval.currentUser).toBe('unknown');
      expect(Array.isArray(status.account.roles)).toBe(true);
      // masto.js types this one snake_cased, but camel-cases it like every other key.
      expect((status.account.featureApproval as unknown as { currentUser: string }).currentUser).toBe('unknown');
      expect(typeof status.account.lastStatusAt === 'string' || status.account.lastStatusAt === null).toBe(true);
      expect(status.isRecommendation).toBe(true);
      expect(status.recommendationMetadata?.reasonCode).toEqual(expect.any(String));
    }
    const rich = statuses.find((status) => status.id === postId(20));
    expect(rich?.account.roles).toEqual([{ id: '3', name: 'Moderator', color: '#ff0000' }]);
    expect(rich?.mediaAttachments[0]?.previewUrl).toBe('https://files.example/m1s.png');
  });

  it('megalodon: its Mastodon converter decodes every status (a quote object would be read as a status)', async () => {
    const { statuses } = await recommendations();
    // A CommonJS module: its namespace is `module.exports.default` under Node's ESM rules (vitest may hand it over directly).
    type Api = typeof megalodonApi.default;
    const api = (megalodonApi.default as Api | undefined) ?? (megalodonApi as unknown as Api);
    const { Converter } = api;
    for (const raw of statuses) {
      const status = Converter.status(raw as Parameters<typeof Converter.status>[0]);
      expect(status.id).toBe(raw.id);
      expect(typeof status.account.acct).toBe('string');
      expect(status.quote).toBe(false);
      expect(Array.isArray(status.media_attachments)).toBe(true);
    }
    const posts = (await t.app.inject({ url: '/api/v1/posts?limit=40' })).json<Json[]>();
    expect(Converter.status(byId(posts, 30) as Parameters<typeof Converter.status>[0]).reblog?.id).toBe(postId(22));
  });
});
