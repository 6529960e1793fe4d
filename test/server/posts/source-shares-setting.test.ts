/**
 * The source shares as an operator setting (issue 24, item 5): `serve` reads RECSVC_INSTANCE_SHARE
 * and RECSVC_AUTHOR_SHARE, refuses a bad one at start, and the app applies them to trending pages
 * and to the candidate pool's loader.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { loadServerConfig } from '../../../server/config.js';
import { writeInstanceStatuses } from '../../../server/posts/instance-statuses.js';
import { candidatePosts } from '../../../server/posts/post.service.js';
import { InputError } from '../../../src/errors.js';
import type { SourceShares } from '../../../src/ranking/index.js';
import type { StatusInput } from '../../../src/schemas/post.schema.js';
import { insertEngagements, usersOf } from '../../helpers/engagements.js';
import { makeStatus } from '../../helpers/mastodon-fixtures.js';
import { createTestApp, type TestApp } from '../../helpers/test-app.js';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

let next = 0;
function statusOf(host: string, author: string, ageHours: number): StatusInput {
  next += 1;
  const base = makeStatus({ n: next, author, ageHours, favourites: 0, reblogs: 0 });
  return {
    ...base,
    uri: `https://${host}/users/${author}/statuses/${next}`,
    account: { ...base.account, id: `${next}`, acct: author, url: `https://${host}/@${author}`, uri: `https://${host}/users/${author}` },
  };
}

/** 100 fresh, heavily engaged posts of 50 authors of one instance and 30 older ones of 10 honest instances. */
async function floodedApp(shares?: SourceShares): Promise<{ app: TestApp; evil: Set<string> }> {
  const app = await createTestApp(shares === undefined ? {} : { sourceShares: shares });
  const write = (host: string, statuses: StatusInput[]) =>
    app.database.db.transaction().execute((trx) => writeInstanceStatuses(trx, host, statuses, Date.now()));
  const evil = (
    await write(
      'evil.example',
      Array.from({ length: 100 }, (_, i) => statusOf('evil.example', `evil${i % 50}`, 0.5)),
    )
  ).ids.map((id) => id!);
  const honest: string[] = [];
  for (let i = 0; i < 30; i += 1) {
    const host = `honest${i % 10}.example`;
    honest.push(...(await write(host, [statusOf(host, `writer${i}`, 6)])).ids.map((id) => id!));
  }
  await insertEngagements(app.database.db, [
    ...evil.map((postId) => ({ postId, userIds: usersOf('evil.example', 20) })),
    ...honest.map((postId, i) => ({ postId, userIds: [`1@honest${(i + 1) % 10}.example`] })),
  ]);
  return { app, evil: new Set(evil) };
}

async function firstTrendingPage(app: TestApp): Promise<string[]> {
  const res = await app.app.inject({ url: '/api/v1/posts/trending?limit=20' });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<{ id: string }[]>().map((status) => status.id);
}

describe('source shares set by the operator', () => {
  it('serve reads RECSVC_INSTANCE_SHARE and RECSVC_AUTHOR_SHARE and refuses a bad one', () => {
    expect(loadServerConfig({}, {}).sourceShares).toEqual({ instance: 0.25, author: 0.02 });
    expect(loadServerConfig({}, { RECSVC_INSTANCE_SHARE: '40%', RECSVC_AUTHOR_SHARE: '0.1' }).sourceShares).toEqual({
      instance: 0.4,
      author: 0.1,
    });
    expect(() => loadServerConfig({}, { RECSVC_INSTANCE_SHARE: '2' })).toThrow(InputError);
  });

  it('trending pages take the default quarter per instance, or the share the app was given', async () => {
    const flooded = await floodedApp();
    t = flooded.app;
    expect((await firstTrendingPage(t)).filter((id) => flooded.evil.has(id))).toHaveLength(5);
    await t.close();

    const open = await floodedApp({ instance: 0.5, author: 0.02 });
    t = open.app;
    expect((await firstTrendingPage(t)).filter((id) => open.evil.has(id))).toHaveLength(10);
  });

  it("the candidate pool's loader applies the shares it is given", async () => {
    const flooded = await floodedApp();
    t = flooded.app;
    const evilIn = async (shares?: SourceShares) =>
      (await candidatePosts(t!.database.db, { recent: 40, popular: 0 }, shares)).filter((post) => flooded.evil.has(post.id)).length;
    expect(await evilIn()).toBe(10);
    expect(await evilIn({ instance: 0.75, author: 1 })).toBe(30);
  });
});
