/**
 * data_sharing and the debug callback end to end against the fake Mastodon: enabling
 * data_sharing subscribes and asks for backfills; announcements make the provider fetch each
 * object from its origin, signed (RFC 9421, cavage after a 401, remembered per host), and keep
 * only what consents. The consent fixtures — unlisted (Public only in `cc`), an author not
 * indexable, an account not discoverable, an opt-in withdrawn, a deleted post — never appear in
 * any capability's answer.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { postsByUri } from '../../../server/posts/post-identity.repository.js';
import { insertEngagements, usersOf } from '../../helpers/engagements.js';
import { startFaspRig, type FaspRig } from '../../helpers/fasp-fixtures.js';

let rig: FaspRig;
afterEach(async () => rig.close());

const PUBLIC = 'https://www.w3.org/ns/activitystreams#Public';

async function settled(): Promise<void> {
  await rig.t.app.faspFeature!.settled();
}

async function stored(uri: string): Promise<string | undefined> {
  return (await postsByUri(rig.t.database.db, [uri])).get(uri)?.id;
}

async function everyAnswer(): Promise<string> {
  const m = rig.mastodon;
  const answers = await Promise.all([
    m.trends('en'),
    m.request('GET', '/trends/v0/hashtags?language=en&maxCount=20&withinLastHours=4'),
    m.accountSearch('user'),
    m.followRecommendations('https://nowhere.example/users/x'),
  ]);
  for (const answer of answers) expect(answer.status).toBe(200);
  return answers.map((a) => a.body).join('\n');
}

describe('data_sharing', () => {
  beforeEach(async () => {
    rig = await startFaspRig(['trends', 'account_search', 'follow_recommendation']);
  });

  it('subscribes and asks for backfills once enabled, and unsubscribes once disabled', async () => {
    const m = rig.mastodon;
    expect((await m.setCapability('data_sharing', true)).status).toBe(204);
    await settled();
    expect([...m.subscriptions.values()]).toEqual([
      { category: 'content', subscriptionType: 'lifecycle', maxBatchSize: 50 },
      { category: 'account', subscriptionType: 'lifecycle', maxBatchSize: 50 },
      { category: 'content', subscriptionType: 'trends', threshold: { timeframe: 15, shares: 3, likes: 3, replies: 3 } },
    ]);
    expect([...m.backfills.values()]).toEqual([
      { category: 'content', maxCount: 100 },
      { category: 'account', maxCount: 100 },
    ]);
    expect(m.refused).toEqual([]);
    expect((await m.setCapability('data_sharing', false)).status).toBe(204);
    await settled();
    expect(m.subscriptions.size).toBe(0);
    expect((await m.announce('content', 'new', `${m.url}/users/x/statuses/1`)).status).toBe(404);
  });

  it('stores only what consents, applies withdrawal and deletion at once, and no fixture appears in any answer', async () => {
    const m = rig.mastodon;
    await m.setCapability('data_sharing', true);
    await settled();
    const user1 = m.addActor('user1', { discoverable: true, indexable: true });
    const okPost = m.addNote('user1', 1, { tag: [{ type: 'Hashtag', name: '#cats', href: `${m.url}/tags/cats` }] });
    const unlisted = m.addNote('user1', 2, { to: [`${m.url}/users/user1/followers`], cc: [PUBLIC] });
    const user2 = m.addActor('user2', { discoverable: true, indexable: false });
    const notIndexable = m.addNote('user2', 1);
    const user3 = m.addActor('user3', { discoverable: false, indexable: true });
    const user4 = m.addActor('user4', { discoverable: true, indexable: true });
    const withdrawnPost = m.addNote('user4', 1, { tag: [{ type: 'Hashtag', name: '#withdrawn', href: `${m.url}/tags/withdrawn` }] });
    const deletedPost = m.addNote('user1', 3, { tag: [{ type: 'Hashtag', name: '#deleted', href: `${m.url}/tags/deleted` }] });

    for (const uri of [okPost, unlisted, notIndexable, withdrawnPost, deletedPost])
      expect((await m.announce('content', 'new', uri)).status).toBe(204);
    for (const uri of [user1, user2, user3, user4]) expect((await m.announce('account', 'new', uri)).status).toBe(204);
    await settled();

    expect(await stored(okPost)).toBeDefined();
    expect(await stored(withdrawnPost)).toBeDefined();
    expect(await stored(deletedPost)).toBeDefined();
    expect(await stored(unlisted)).toBeUndefined();
    expect(await stored(notIndexable)).toBeUndefined();
    const engaged = [okPost, withdrawnPost, deletedPost].map((uri) => stored(uri));
    await insertEngagements(
      rig.t.database.db,
      (await Promise.all(engaged)).map((postId) => ({ postId: postId!, userIds: usersOf('x.example', 9) })),
    );

    // user4 withdraws, user1 deletes a post: each announced, each applied when the announcement is handled.
    m.update(user4, { indexable: false, discoverable: false });
    expect((await m.announce('account', 'update', user4)).status).toBe(204);
    m.remove(deletedPost);
    expect((await m.announce('content', 'delete', deletedPost)).status).toBe(204);
    await settled();
    expect(await stored(withdrawnPost)).toBeUndefined();
    expect(await stored(deletedPost)).toBeUndefined();
    const interactions = await rig.t.database.db.selectFrom('interactions').select('post_id').execute();
    expect(interactions).toHaveLength(9);

    const answers = await everyAnswer();
    expect(answers).toContain(okPost);
    expect(answers).toContain(user1);
    // Not indexable, but discoverable: its posts are never stored, its account may be found.
    expect(answers).toContain(user2);
    expect(answers).toContain('#cats');
    for (const fixture of [unlisted, notIndexable, withdrawnPost, deletedPost, user3, user4, '#withdrawn', '#deleted'])
      expect(answers).not.toContain(fixture);
  });

  it("forgets the users' affinities to an author whose consent is withdrawn or who is gone, and keeps the others'", async () => {
    const m = rig.mastodon;
    await m.setCapability('data_sharing', true);
    await settled();
    const actors = {
      keeps: m.addActor('keeps', { discoverable: true, indexable: true }),
      unindexed: m.addActor('unindexed', { discoverable: true, indexable: true }),
      undiscovered: m.addActor('undiscovered', { discoverable: true, indexable: true }),
      gone: m.addActor('gone', { discoverable: true, indexable: true }),
    };
    for (const name of Object.keys(actors)) expect((await m.announce('content', 'new', m.addNote(name, 1))).status).toBe(204);
    for (const uri of Object.values(actors)) expect((await m.announce('account', 'new', uri)).status).toBe(204);
    await settled();
    const db = rig.t.database.db;
    const accounts = await db.selectFrom('accounts').select(['id', 'uri']).execute();
    const idOf = (uri: string): string => accounts.find((a) => a.uri === uri)!.id;
    // What the interactions service learns from engagement: each user's affinity to each author (and to a tag, which stays).
    const users = ['1@x.example', '2@y.example'];
    await db
      .insertInto('user_affinities')
      .values([
        ...users.flatMap((userId) =>
          Object.values(actors).map((uri) => ({ user_id: userId, kind: 'author', target: idOf(uri), score: 2, as_of_ms: Date.now() })),
        ),
        { user_id: users[0]!, kind: 'tag', target: 'cats', score: 1, as_of_ms: Date.now() },
      ])
      .execute();

    m.update(actors.unindexed, { indexable: false, discoverable: true });
    m.update(actors.undiscovered, { indexable: true, discoverable: false });
    m.remove(actors.gone);
    for (const uri of [actors.unindexed, actors.undiscovered]) expect((await m.announce('account', 'update', uri)).status).toBe(204);
    expect((await m.announce('account', 'delete', actors.gone)).status).toBe(204);
    await settled();

    const left = await db.selectFrom('user_affinities').select(['user_id', 'kind', 'target']).orderBy('user_id').orderBy('kind').execute();
    expect(left).toEqual([
      { user_id: users[0], kind: 'author', target: idOf(actors.keeps) },
      { user_id: users[0], kind: 'tag', target: 'cats' },
      { user_id: users[1], kind: 'author', target: idOf(actors.keeps) },
    ]);
  });

  it('continues a backfill while the server says more is available', async () => {
    const m = rig.mastodon;
    await m.setCapability('data_sharing', true);
    await settled();
    m.addActor('user1', { discoverable: true, indexable: true });
    const first = m.addNote('user1', 1);
    const second = m.addNote('user1', 2);
    expect((await m.backfill('content', [first], true)).status).toBe(204);
    await settled();
    const contentBackfill = [...m.backfills].find(([, b]) => b.category === 'content')![0];
    expect(m.continuations).toEqual([contentBackfill]);
    expect((await m.backfill('content', [second], false)).status).toBe(204);
    await settled();
    expect(m.continuations).toEqual([contentBackfill]);
    expect(await stored(first)).toBeDefined();
    expect(await stored(second)).toBeDefined();
  });

  it('signs fetches with RFC 9421 first, falls back to cavage on 401, and remembers the host’s scheme', async () => {
    const m = rig.mastodon;
    m.acceptedSchemes = ['cavage'];
    await m.setCapability('data_sharing', true);
    await settled();
    m.addActor('user1', { discoverable: true, indexable: true });
    const one = m.addNote('user1', 1);
    const two = m.addNote('user1', 2);
    await m.announce('content', 'new', one);
    await settled();
    await m.announce('content', 'new', two);
    await settled();
    expect(await stored(one)).toBeDefined();
    expect(await stored(two)).toBeDefined();
    expect(m.fetches.slice(0, 2)).toEqual([
      { path: '/users/user1/statuses/1', scheme: 'rfc9421', status: 401 },
      { path: '/users/user1/statuses/1', scheme: 'cavage', status: 200 },
    ]);
    expect(m.fetches.slice(2).every((f) => f.scheme === 'cavage' && f.status === 200)).toBe(true);
    expect(await rig.t.app.faspFeature!.fetcher.scheme(new URL(m.url).host)).toBe('cavage');

    m.acceptedSchemes = ['rfc9421'];
    const three = m.addNote('user1', 3);
    await m.announce('content', 'new', three);
    await settled();
    // Remembered as cavage: asked with it first, refused, then with RFC 9421, remembered from then on.
    expect(await stored(three)).toBeDefined();
    expect(m.fetches.filter((f) => f.path === '/users/user1/statuses/3').map((f) => `${f.scheme} ${f.status}`)).toEqual([
      'cavage 401',
      'rfc9421 200',
    ]);
    expect(await rig.t.app.faspFeature!.fetcher.scheme(new URL(m.url).host)).toBe('rfc9421');
  });

  it('revalidates what it stored after a week: a post made unlisted since is removed with its interactions', async () => {
    const m = rig.mastodon;
    await m.setCapability('data_sharing', true);
    await settled();
    m.addActor('user1', { discoverable: true, indexable: true });
    const post = m.addNote('user1', 1);
    await m.announce('content', 'new', post);
    await settled();
    const id = await stored(post);
    await insertEngagements(rig.t.database.db, [{ postId: id!, userIds: usersOf('x.example', 3) }]);
    m.update(post, { to: [`${m.url}/users/user1/followers`], cc: [PUBLIC] });
    const sharing = rig.t.app.faspFeature!.dataSharing;
    expect(await sharing.revalidateDue()).toBe(0);
    await rig.t.database.db
      .updateTable('fasp_objects')
      .set({ validated_at_ms: Date.now() - 8 * 86_400_000 })
      .execute();
    expect(await sharing.revalidateDue()).toBe(1);
    expect(await stored(post)).toBeUndefined();
    expect(await rig.t.database.db.selectFrom('interactions').selectAll().execute()).toEqual([]);
  });
});

describe('the actor, WebFinger and the debug callback', () => {
  beforeEach(async () => {
    rig = await startFaspRig();
  });

  it('serves the actor (Application with its public key) and finds it by WebFinger', async () => {
    const host = new URL(rig.baseUrl).host;
    const actor = (await (await fetch(`${rig.baseUrl}/actor`)).json()) as Record<string, any>;
    expect(actor).toMatchObject({ id: `${rig.baseUrl}/actor`, type: 'Application', preferredUsername: 'fasp' });
    expect(actor.publicKey).toMatchObject({ id: `${rig.baseUrl}/actor#main-key`, owner: `${rig.baseUrl}/actor` });
    expect(actor.publicKey.publicKeyPem).toMatch(/^-----BEGIN PUBLIC KEY-----/);
    const finger = await fetch(`http://${host}/.well-known/webfinger?resource=acct:fasp@${host}`);
    expect(finger.headers.get('content-type')).toContain('application/jrd+json');
    expect(await finger.json()).toEqual({
      subject: `acct:fasp@${host}`,
      aliases: [`${rig.baseUrl}/actor`],
      links: [{ rel: 'self', type: 'application/activity+json', href: `${rig.baseUrl}/actor` }],
    });
    expect((await fetch(`http://${host}/.well-known/webfinger?resource=acct:someone@${host}`)).status).toBe(404);
  });

  it('logs a debug call, answers 201 and calls the server back with the same body', async () => {
    const m = rig.mastodon;
    const response = await m.debugCall();
    expect(response.status).toBe(201);
    expect(response.valid).toBe(true);
    await settled();
    expect(m.debugCallbacks).toEqual([{ ip: '127.0.0.1', body: '{"hello":"world"}' }]);
    expect(m.refused).toEqual([]);
    const logged = await rig.t.app.faspFeature!.debug.list(m.provider!.serverId);
    expect(logged).toMatchObject([{ ip: '127.0.0.1', body: '{"hello":"world"}', callbackStatus: 201 }]);
  });
});
