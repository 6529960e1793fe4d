/**
 * follow_recommendation and account_search end to end: the fake Mastodon asks as its workers
 * do (signed, `accountUri` / `limit=10&term=`), and the consent fixtures (not discoverable,
 * discoverable never said, opt-in withdrawn, #nobot in the bio) never come back.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FaspAccountsService } from '../../../server/fasp/fasp-accounts.service.js';
import type { CoEngagementReader } from '../../../src/ranking/index.js';
import { insertEngagements, usersOf } from '../../helpers/engagements.js';
import { startFaspRig, statusBy, store, type AccountFixture, type FaspRig } from '../../helpers/fasp-fixtures.js';

let rig: FaspRig;
afterEach(async () => rig.close());

const uriOf = (a: AccountFixture): string => `https://${a.host}/users/${a.name}`;
const list = (body: string): string[] => JSON.parse(body) as string[];

describe('follow_recommendation', () => {
  beforeEach(async () => {
    rig = await startFaspRig(['follow_recommendation']);
  });

  const alice: AccountFixture = { host: 'home.example', name: 'alice', localId: '1' };
  const bob: AccountFixture = { host: 'one.example', name: 'bob' };
  const carol: AccountFixture = { host: 'two.example', name: 'carol' };
  const dave: AccountFixture = { host: 'three.example', name: 'dave' };
  const hidden: AccountFixture = { host: 'three.example', name: 'erin', discoverable: false };
  const unsaid: AccountFixture = { host: 'four.example', name: 'gina', discoverable: null };
  const withdrawn: AccountFixture = { host: 'four.example', name: 'frank' };
  const nobot: AccountFixture = { host: 'five.example', name: 'hank', note: '<p>no bots please <a href="#">#<span>nobot</span></a></p>' };
  const german: AccountFixture = { host: 'six.example', name: 'ida' };

  /** Alice engaged with bob's and carol's posts; five neighbours engaged with those and with the candidates' posts. */
  async function neighbourhood(): Promise<void> {
    const t = rig.t;
    const [, bobPost, carolPost] = await store(t, [statusBy(alice), statusBy(bob), statusBy(carol)]);
    const candidates = await store(t, [
      statusBy(dave),
      statusBy(hidden),
      statusBy(unsaid),
      statusBy(withdrawn),
      statusBy(nobot),
      statusBy(german, { language: 'de' }),
    ]);
    // Frank's instance later says he is no longer discoverable: the stored account says so.
    await store(t, [statusBy({ ...withdrawn, discoverable: false })]);
    const neighbours = usersOf('x.example', 5);
    await insertEngagements(t.database.db, [
      { postId: bobPost!, userIds: ['1@home.example', ...neighbours] },
      { postId: carolPost!, userIds: ['1@home.example', ...neighbours] },
      ...candidates.map((postId) => ({ postId, userIds: neighbours })),
    ]);
  }

  it('recommends the authors its neighbours engage with, only discoverable ones, not those it already engages with', async () => {
    await neighbourhood();
    const response = await rig.mastodon.followRecommendations(uriOf(alice));
    expect(response.status).toBe(200);
    expect(response.valid).toBe(true);
    const uris = list(response.body);
    expect(uris).toContain(uriOf(dave));
    expect(uris).toContain(uriOf(german));
    for (const excluded of [alice, bob, carol, hidden, unsaid, withdrawn, nobot]) expect(uris).not.toContain(uriOf(excluded));
  });

  it('recommends an author reached by co-engagement alone, and not without the collaborative state', async () => {
    const t = rig.t;
    const [, bobPost, davePost, carolPost] = await store(t, [statusBy(alice), statusBy(bob), statusBy(dave), statusBy(carol)]);
    // Alice engaged with bob's post only. Nobody in the stored interactions engaged with dave's or carol's
    // posts: no neighbour, no popularity reaches them. The collaborative state (what RankingState.coEngagement
    // learned, e.g. from interactions since pruned) says bob's post is co-engaged with dave's (3 of 3 users).
    await insertEngagements(t.database.db, [{ postId: bobPost!, userIds: ['1@home.example'] }]);
    const state: CoEngagementReader = {
      forEachNeighbour: (postId, visit) => {
        if (postId === bobPost) visit(davePost!, 3, 3);
      },
      engaged: (postId) => (postId === bobPost || postId === davePost ? 3 : 0),
      // The ranking's bounded read; follow recommendations read forEachNeighbour.
      forEachServedNeighbour: (postId, visit) => {
        if (postId === bobPost) visit(davePost!, 1);
      },
    };
    const withState = new FaspAccountsService(t.database.db, () => state);
    const recommended = await withState.followRecommendations({ accountUri: uriOf(alice) });
    expect(recommended).toEqual([uriOf(dave)]);
    expect(recommended).not.toContain(uriOf(carol));
    expect(carolPost).toBeDefined();
    // The same data without the co-engagement source: dave is reached by nothing else.
    const without = new FaspAccountsService(t.database.db, () => undefined);
    expect(await without.followRecommendations({ accountUri: uriOf(alice) })).toEqual([]);
  });

  it('filters by language (RFC 4647 basic filtering over the accounts’ posts)', async () => {
    await neighbourhood();
    const german0 = list((await rig.mastodon.followRecommendations(uriOf(alice), 'de')).body);
    expect(german0).toEqual([uriOf(german)]);
    const english = list((await rig.mastodon.followRecommendations(uriOf(alice), 'en')).body);
    expect(english).toContain(uriOf(dave));
    expect(english).not.toContain(uriOf(german));
  });

  it('recommends popular discoverable accounts to an account it knows nothing of', async () => {
    await neighbourhood();
    const uris = list((await rig.mastodon.followRecommendations('https://elsewhere.example/users/zoe')).body);
    expect(uris).toContain(uriOf(dave));
    for (const excluded of [hidden, unsaid, withdrawn, nobot]) expect(uris).not.toContain(uriOf(excluded));
  });

  it('keeps any one instance to a quarter of the list while other instances are left', async () => {
    const big = Array.from({ length: 10 }, (_, i): AccountFixture => ({ host: 'big.example', name: `big${i}` }));
    const small = Array.from({ length: 4 }, (_, i): AccountFixture => ({ host: `small${i}.example`, name: `small${i}` }));
    const [seed] = await store(rig.t, [statusBy(alice)]);
    const bigPosts = await store(
      rig.t,
      big.map((a) => statusBy(a)),
    );
    const smallPosts = await store(
      rig.t,
      small.map((a) => statusBy(a)),
    );
    const neighbours = usersOf('x.example', 6);
    await insertEngagements(rig.t.database.db, [
      { postId: seed!, userIds: ['1@home.example', ...neighbours] },
      // The big instance's authors draw more of the neighbours than the small ones.
      ...bigPosts.map((postId) => ({ postId, userIds: neighbours })),
      ...smallPosts.map((postId) => ({ postId, userIds: neighbours.slice(0, 2) })),
    ]);
    const uris = list((await rig.mastodon.followRecommendations(uriOf(alice))).body);
    const hosts = uris.map((uri) => new URL(uri).host);
    expect(hosts.slice(0, 9).filter((h) => h === 'big.example')).toHaveLength(5);
    expect(hosts.slice(5, 9).every((h) => h.startsWith('small'))).toBe(true);
    expect(uris).toHaveLength(14);
  });

  it('answers 422 without accountUri, and 404 to a server that has not enabled the capability', async () => {
    const missing = await rig.mastodon.request('GET', '/follow_recommendation/v0/accounts');
    expect(missing.status).toBe(422);
    expect(JSON.parse(missing.body)).toMatchObject({ status_code: 422, field: 'accountUri' });
    await rig.mastodon.setCapability('follow_recommendation', false);
    expect((await rig.mastodon.followRecommendations(uriOf(alice))).status).toBe(404);
  });
});

describe('account_search', () => {
  beforeEach(async () => {
    rig = await startFaspRig(['account_search']);
  });

  it('finds accounts by handle, display name and bio, most relevant first, only those that allow being found', async () => {
    const catlover: AccountFixture = { host: 'one.example', name: 'catlover', displayName: 'Cat Lover' };
    const tabby: AccountFixture = { host: 'two.example', name: 'tabby', displayName: 'Tabby the cat' };
    const dogs: AccountFixture = { host: 'three.example', name: 'dogperson', note: '<p>I like cats too</p>' };
    const hidden: AccountFixture = { host: 'one.example', name: 'catnip', discoverable: false };
    const unsaid: AccountFixture = { host: 'one.example', name: 'catty', discoverable: null };
    const withdrawn: AccountFixture = { host: 'two.example', name: 'cathy' };
    const nobot: AccountFixture = { host: 'two.example', name: 'catbot', note: '<p>#noindex</p>' };
    await store(
      rig.t,
      [catlover, tabby, dogs, hidden, unsaid, withdrawn, nobot].map((a) => statusBy(a)),
    );
    await store(rig.t, [statusBy({ ...withdrawn, discoverable: false })]);

    const response = await rig.mastodon.accountSearch('cat');
    expect(response.status).toBe(200);
    expect(response.valid).toBe(true);
    expect(list(response.body)).toEqual([uriOf(catlover), uriOf(tabby), uriOf(dogs)]);
    expect(list((await rig.mastodon.accountSearch('@catlover@one.example')).body)).toEqual([uriOf(catlover)]);
    expect(list((await rig.mastodon.accountSearch('tabby cat')).body)).toEqual([uriOf(tabby)]);
    expect(list((await rig.mastodon.accountSearch('catnip')).body)).toEqual([]);
    expect(list((await rig.mastodon.accountSearch('100%')).body)).toEqual([]);
  });

  it('pages with Link rel="next" and answers 422 without a term', async () => {
    const many = Array.from({ length: 25 }, (_, i): AccountFixture => ({ host: 'one.example', name: `fox${i}`, followers: 100 - i }));
    await store(
      rig.t,
      many.map((a) => statusBy(a)),
    );
    const seen: string[] = [];
    let path: string | undefined = '/account_search/v0/search?limit=10&term=fox';
    let pages = 0;
    while (path !== undefined) {
      const page = await rig.mastodon.request('GET', path);
      expect(page.status).toBe(200);
      seen.push(...list(page.body));
      pages += 1;
      const link = page.headers.link;
      path = link === undefined ? undefined : /^<[^>]*\/fasp(\/[^>]*)>; rel="next"$/.exec(link)![1];
    }
    expect(pages).toBe(3);
    expect(seen).toEqual(many.map(uriOf));
    const missing = await rig.mastodon.request('GET', '/account_search/v0/search?limit=10');
    expect(missing.status).toBe(422);
    expect(JSON.parse(missing.body)).toMatchObject({ field: 'term' });
  });
});
