/**
 * The one write path for posts (writeStatuses): ingest and demo seeding both go through it,
 * in multi-row upserts. A batch naming a status or an account twice must end as the last
 * of each, as when they were written one by one.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeStatuses } from '../../../server/posts/post.service.js';
import { createTestApp, type TestApp } from '../../helpers/test-app.js';
import { makeStatus, postId } from '../../helpers/mastodon-fixtures.js';

let t: TestApp;
beforeEach(async () => {
  t = await createTestApp();
});
afterEach(async () => {
  await t.close();
});

async function tagsOf(id: string): Promise<string[]> {
  const rows = await t.database.db.selectFrom('post_tags').select('tag').where('post_id', '=', id).orderBy('tag').execute();
  return rows.map((r) => r.tag);
}

describe('writeStatuses', () => {
  it('stores the last of a status and an account named twice in one batch, with only the last tags', async () => {
    const first = makeStatus({ n: 1, tags: ['cats', 'dogs'], text: 'first version' });
    const second = { ...makeStatus({ n: 1, tags: ['birds'], text: 'second version' }) };
    second.account = { ...second.account, display_name: 'Renamed' };
    const other = makeStatus({ n: 2, tags: ['cats'] });
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/posts/batch',
      headers: await t.adminHeaders(),
      payload: { statuses: [first, other, second] },
    });
    expect(res.statusCode).toBe(201);
    expect(await tagsOf(postId(1))).toEqual(['birds']);
    expect(await tagsOf(postId(2))).toEqual(['cats']);
    const stored = (await t.app.inject({ url: `/api/v1/posts/${postId(1)}` })).json<{
      content: string;
      account: { display_name: string };
    }>();
    expect(stored.content).toContain('second version');
    expect(stored.account.display_name).toBe('Renamed');
    // The account of the other post is the same account: renamed too (the last one written wins).
    const otherRead = (await t.app.inject({ url: `/api/v1/posts/${postId(2)}` })).json<{ account: { display_name: string } }>();
    expect(otherRead.account.display_name).toBe('Renamed');
  });

  it('answers the stored ids (a reblogged original first) and the statuses, and keeps the JSON as sent only when asked', async () => {
    const original = makeStatus({ n: 1, author: 'alice', tags: ['rust'] });
    const reblog = { ...makeStatus({ n: 2, author: 'bob' }), reblog: original };
    const plain = makeStatus({ n: 3, author: 'carol' });
    const written = await t.database.db
      .transaction()
      .execute((trx) => writeStatuses(trx, [reblog, plain], Date.now(), { keepOriginals: false }));
    expect(written).toEqual({ stored: [postId(1), postId(2), postId(3)], top: [postId(2), postId(3)] });
    const rows = await t.database.db
      .selectFrom('posts')
      .select(['id', 'original_json', 'tag_names', 'reblog_of_id'])
      .orderBy('id')
      .execute();
    expect(rows.map((r) => r.original_json)).toEqual([null, null, null]);
    expect(rows[1]).toMatchObject({ reblog_of_id: postId(1), tag_names: 'rust' });
    expect(await tagsOf(postId(2))).toEqual([]);
    const accounts = await t.database.db.selectFrom('accounts').select('original_json').execute();
    expect(accounts.every((a) => a.original_json === null)).toBe(true);

    await t.database.db.transaction().execute((trx) => writeStatuses(trx, [plain], Date.now(), { keepOriginals: true }));
    const kept = await t.database.db.selectFrom('posts').select('original_json').where('id', '=', postId(3)).executeTakeFirstOrThrow();
    expect(JSON.parse(kept.original_json ?? 'null')).toEqual(plain);
  });

  it('writes a batch larger than one statement holds (bound values) and its tags', async () => {
    const statuses = Array.from({ length: 1500 }, (_, i) => makeStatus({ n: i + 1, author: `a${i % 7}`, tags: ['one', 'two'] }));
    await t.database.db.transaction().execute((trx) => writeStatuses(trx, statuses, Date.now(), { keepOriginals: false }));
    const count = async (table: 'posts' | 'post_tags' | 'accounts') =>
      Number(
        (
          await t.database.db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    expect(await count('posts')).toBe(1500);
    expect(await count('post_tags')).toBe(3000);
    expect(await count('accounts')).toBe(7);
  });
});
