import { afterEach, describe, expect, it } from 'vitest';
import { seedDemo, seedDemoIfEmpty } from '../../../server/demo/demo.seed.js';
import { createTestApp, type TestApp } from '../../helpers/test-app.js';

const ANCHOR = Date.parse('2025-03-01T12:00:00.000Z');
const SMALL = { authors: 40, posts: 400, users: 150, interactions: 3000 };

let apps: TestApp[] = [];
afterEach(async () => {
  await Promise.all(apps.map((a) => a.close()));
  apps = [];
});

async function app(): Promise<TestApp> {
  const t = await createTestApp();
  apps.push(t);
  return t;
}

async function count(t: TestApp, table: 'posts' | 'accounts' | 'interactions' | 'post_tags'): Promise<number> {
  const row = await t.database.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

describe('demo seed', () => {
  it('produces the advertised counts, with counters consistent with interactions', async () => {
    const t = await app();
    const result = await seedDemo(t.database, SMALL, ANCHOR);
    expect(result).toEqual({ authors: 40, posts: 400, users: 150, interactions: 3000 });
    expect(await count(t, 'posts')).toBe(400);
    expect(await count(t, 'accounts')).toBe(40);
    expect(await count(t, 'interactions')).toBe(3000);
    expect(await count(t, 'post_tags')).toBeGreaterThanOrEqual(400);
    const users = await t.database.db
      .selectFrom('interactions')
      .select((eb) => eb.fn.count<number>('user_id').distinct().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(users.n)).toBeGreaterThan(100);
    const fav = await t.database.db
      .selectFrom('posts')
      .select((eb) => [eb.fn.sum<number>('bookmarks_count').as('b')])
      .executeTakeFirstOrThrow();
    const bookmarks = await t.database.db
      .selectFrom('interactions')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('action_type', '=', 'bookmark')
      .executeTakeFirstOrThrow();
    expect(Number(fav.b)).toBe(Number(bookmarks.n));
  });

  it('is deterministic for a seed and anchor time', async () => {
    const a = await app();
    const b = await app();
    await seedDemo(a.database, SMALL, ANCHOR);
    await seedDemo(b.database, SMALL, ANCHOR);
    const dump = (t: TestApp) =>
      t.database.db.selectFrom('posts').select(['id', 'content', 'favourites_count', 'tag_names']).orderBy('id').execute();
    const rowsA = await dump(a);
    expect(rowsA).toEqual(await dump(b));
    const c = await app();
    await seedDemo(c.database, SMALL, ANCHOR, 7);
    expect(await dump(c)).not.toEqual(rowsA);
  });

  it('has heavy-tailed engagement: the top 10% of posts hold most of it', async () => {
    const t = await app();
    await seedDemo(t.database, SMALL, ANCHOR);
    const rows = await t.database.db.selectFrom('posts').select(['favourites_count', 'reblogs_count']).execute();
    const engagement = rows.map((r) => r.favourites_count + r.reblogs_count).sort((x, y) => y - x);
    const total = engagement.reduce((s, x) => s + x, 0);
    const top = engagement.slice(0, engagement.length / 10).reduce((s, x) => s + x, 0);
    expect(top / total).toBeGreaterThan(0.4);
  });

  it('seeds only an empty database, and the seeded posts are recommendable', async () => {
    const t = await app();
    const messages: string[] = [];
    await seedDemoIfEmpty(t.database, (m) => messages.push(m));
    const seeded = await count(t, 'posts');
    expect(seeded).toBeGreaterThan(1000);
    await seedDemoIfEmpty(t.database, (m) => messages.push(m));
    expect(await count(t, 'posts')).toBe(seeded);
    expect(messages[1]).toContain('nothing seeded');
  });

  it('a server started on a seeded database personalises for demo users', async () => {
    const { mkdtempSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    // eslint-disable-next-line @typescript-eslint/unbound-method -- node:path's functions do not use `this`
    const { join } = await import('node:path');
    const dbPath = join(mkdtempSync(join(tmpdir(), 'recsvc-demo-')), 'demo.db');
    const first = await createTestApp({ dbPath });
    await seedDemo(first.database, SMALL, Date.now());
    await first.close();
    const t = await createTestApp({ dbPath });
    apps.push(t);
    const active = await t.database.db
      .selectFrom('interactions')
      .select(['user_id', (eb) => eb.fn.countAll<number>().as('n')])
      .groupBy('user_id')
      .orderBy('n', 'desc')
      .executeTakeFirstOrThrow();
    const res = await t.app.inject({ url: `/api/v1/recommendations?user_id=${active.user_id}&limit=20`, headers: await t.adminHeaders() });
    expect(res.statusCode).toBe(200);
    const items = res.json<{ recommendation_metadata: { reason_code: string; reason_string: string } }[]>();
    expect(items).toHaveLength(20);
    expect(items.some((i) => ['AUTHOR_INTERACTION', 'SEMANTIC_MATCH'].includes(i.recommendation_metadata.reason_code))).toBe(true);
    expect(items.every((i) => !i.recommendation_metadata.reason_string.includes('still learning'))).toBe(true);
  });
});
