/**
 * Demo data for `serve --demo` and the benchmark: generated deterministically, written
 * in one transaction with multi-row inserts (10,000 posts and 200,000 interactions take
 * a few seconds), with post counters and stored affinities consistent with the
 * interactions.
 */
import { AFFINITY_HALF_LIFE_MS, INTERACTION_STRENGTH } from '../../src/ranking/index.js';
import { bulkInsert, withBulkLoadCache } from '../db/bulk-insert.js';
import type { DatabaseHandle } from '../db/connection.js';
import { sortKeyOf } from '../../src/post-ids.js';
import { hasPosts } from '../posts/post.service.js';
import { DEFAULT_DEMO_SIZES, generateDemoData, type DemoData, type DemoSizes } from './demo-generator.js';

export { DEFAULT_DEMO_SIZES, type DemoSizes } from './demo-generator.js';

const DEMO_ORIGIN = 'https://demo.recsvc.example';

export interface DemoSeedResult {
  authors: number;
  posts: number;
  users: number;
  interactions: number;
}

/** Seeds the deterministic demo data set when the database holds no posts yet. */
export async function seedDemoIfEmpty(database: DatabaseHandle, log: (message: string) => void): Promise<void> {
  if (await hasPosts(database.db)) {
    log('demo data: the database already has posts; nothing seeded');
    return;
  }
  const started = Date.now();
  const result = await seedDemo(database);
  log(
    `demo data: ${result.posts} posts by ${result.authors} authors, ${result.interactions} interactions by ${result.users} users (user1…user${result.users}) in ${Date.now() - started} ms`,
  );
}

/** Writes a demo data set of the given sizes (anchored at `anchorMs`) in one transaction. */
export async function seedDemo(
  database: DatabaseHandle,
  sizes: Partial<DemoSizes> = {},
  anchorMs = Date.now(),
  seed?: number,
): Promise<DemoSeedResult> {
  const full = { ...DEFAULT_DEMO_SIZES, ...sizes };
  const data = generateDemoData(full, anchorMs, seed);
  await withBulkLoadCache(database.db, () =>
    database.db.transaction().execute(async (trx) => {
      await bulkInsert(trx, 'accounts', ACCOUNT_COLUMNS, accountRows(data, anchorMs));
      await bulkInsert(trx, 'posts', POST_COLUMNS, postRows(data, anchorMs));
      await bulkInsert(
        trx,
        'post_tags',
        ['post_id', 'tag', 'sort_key'],
        data.posts.flatMap((p) => p.tags.map((tag) => [p.id, tag, sortKeyOf(p.id)])),
      );
      await bulkInsert(trx, 'interactions', INTERACTION_COLUMNS, interactionRows(data));
      await bulkInsert(trx, 'user_affinities', ['user_id', 'kind', 'target', 'score', 'as_of_ms'], affinityRows(data, anchorMs));
    }),
  );
  return { authors: data.authors.length, posts: data.posts.length, users: data.users.length, interactions: data.interactions.length };
}

const ACCOUNT_COLUMNS = [
  'id',
  'username',
  'acct',
  'display_name',
  'note',
  'url',
  'uri',
  'avatar',
  'header',
  'locked',
  'bot',
  'group',
  'followers_count',
  'following_count',
  'statuses_count',
  'created_at',
  'extras_json',
  'original_json',
];

function accountRows(data: DemoData, anchorMs: number): unknown[][] {
  const statuses = new Map<number, number>();
  for (const post of data.posts) statuses.set(post.authorIndex, (statuses.get(post.authorIndex) ?? 0) + 1);
  const extras = JSON.stringify({
    avatar_static: null,
    header_static: null,
    discoverable: true,
    last_status_at: null,
    emojis: [],
    fields: [],
  });
  return data.authors.map((a, i) => [
    a.id,
    a.username,
    a.username,
    `Author ${i} (${a.topics[0]})`,
    `<p>Posts about ${a.topics.join(', ')}</p>`,
    `${DEMO_ORIGIN}/@${a.username}`,
    `${DEMO_ORIGIN}/users/${a.username}`,
    `${DEMO_ORIGIN}/avatars/${a.username}.png`,
    `${DEMO_ORIGIN}/headers/original/missing.png`,
    0,
    0,
    0,
    Math.floor(a.popularity * 40),
    50 + (i % 200),
    statuses.get(i) ?? 0,
    new Date(anchorMs - 365 * 86_400_000).toISOString(),
    extras,
    null,
  ]);
}

const POST_COLUMNS = [
  'id',
  'sort_key',
  'account_id',
  'uri',
  'url',
  'content',
  'plain_text',
  'spoiler_text',
  'visibility',
  'sensitive',
  'language',
  'in_reply_to_id',
  'in_reply_to_account_id',
  'reblog_of_id',
  'tag_names',
  'created_at',
  'created_at_ms',
  'edited_at',
  'favourites_count',
  'reblogs_count',
  'replies_count',
  'bookmarks_count',
  'extras_json',
  'original_json',
  'ingested_at',
];

function postRows(data: DemoData, anchorMs: number): unknown[][] {
  const counts = data.posts.map(() => ({ favorite: 0, reblog: 0, bookmark: 0 }));
  for (const i of data.interactions) {
    const c = counts[i.postIndex];
    if (c) c[i.action] += 1;
  }
  const extras = JSON.stringify({ media_attachments: [], mentions: [], emojis: [], card: null, poll: null, application: null });
  const ingested = new Date(anchorMs).toISOString();
  return data.posts.map((p, i) => {
    const author = data.authors[p.authorIndex];
    const username = author?.username ?? 'unknown';
    const hashtags = p.tags
      .map((t) => `<a href="${DEMO_ORIGIN}/tags/${t}" class="mention hashtag" rel="tag">#<span>${t}</span></a>`)
      .join(' ');
    const c = counts[i] ?? { favorite: 0, reblog: 0, bookmark: 0 };
    return [
      p.id,
      sortKeyOf(p.id),
      author?.id,
      `${DEMO_ORIGIN}/users/${username}/statuses/${p.id}`,
      `${DEMO_ORIGIN}/@${username}/${p.id}`,
      `<p>${p.text} ${hashtags}</p>`,
      `${p.text} ${p.tags.map((t) => `#${t}`).join(' ')}`,
      '',
      'public',
      0,
      p.language,
      null,
      null,
      null,
      p.tags.join(' '),
      new Date(p.createdAtMs).toISOString(),
      p.createdAtMs,
      null,
      p.remoteFavourites + c.favorite,
      p.remoteReblogs + c.reblog,
      p.replies,
      c.bookmark,
      extras,
      null,
      ingested,
    ];
  });
}

const INTERACTION_COLUMNS = ['id', 'user_id', 'post_id', 'action_type', 'context_json', 'created_at', 'created_at_ms'];

function interactionRows(data: DemoData): unknown[][] {
  const byTime = [...data.interactions].sort((a, b) => a.createdAtMs - b.createdAtMs || (a.id < b.id ? -1 : 1));
  return byTime.map((i) => [
    i.id,
    i.userId,
    data.posts[i.postIndex]?.id,
    i.action,
    null,
    new Date(i.createdAtMs).toISOString(),
    i.createdAtMs,
  ]);
}

/** Each user's author and tag affinities, decayed to the anchor time. */
function affinityRows(data: DemoData, anchorMs: number): unknown[][] {
  const scores = new Map<string, number>();
  for (const i of data.interactions) {
    const post = data.posts[i.postIndex];
    if (!post) continue;
    const amount = INTERACTION_STRENGTH[i.action] * Math.pow(2, -(anchorMs - i.createdAtMs) / AFFINITY_HALF_LIFE_MS);
    const author = data.authors[post.authorIndex]?.id ?? '';
    for (const key of [`${i.userId}\u0000author\u0000${author}`, ...post.tags.map((t) => `${i.userId}\u0000tag\u0000${t}`)]) {
      scores.set(key, (scores.get(key) ?? 0) + amount);
    }
  }
  return [...scores].map(([key, score]) => [...key.split('\u0000'), score, anchorMs]);
}
