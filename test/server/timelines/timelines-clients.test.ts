/**
 * Real Mastodon clients through the service, with the default representation of
 * recommendations (boosts by a service account, docs/clients.md): masto.js and megalodon walk
 * several pages following `next`; no status comes twice (neither a wrapper nor what it wraps);
 * recommendations are there, each a boost that megalodon's converter keeps (it drops unknown
 * fields: is_recommendation does not survive it), dated at its insertion point so that sorting
 * by `created_at` as Phanpy does leaves the page in the order sent; and a favourite of the
 * wrapped status, sent as a client sends it (to the service's address, drop-in mode), reaches
 * the instance and is recorded as the reader's interaction.
 */
import { createRestAPIClient, type mastodon } from 'masto';
import megalodonModule, { type Entity } from 'megalodon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMastodonInstance, type Json, type MastodonTestInstance } from '../../helpers/mastodon-instance.js';
import { serviceIdOf, timelinesHarness, unfollowedStatuses, type TimelinesHarness } from './timelines-test-app.js';

// megalodon is CommonJS: its default export is `module.exports.default` under Node's ESM rules.
type Generator = typeof megalodonModule.default;
const generator: Generator = (megalodonModule as unknown as { default?: Generator }).default ?? (megalodonModule as unknown as Generator);

let instance: MastodonTestInstance;
let h: TimelinesHarness;
let base: string;

beforeAll(async () => {
  instance = await startMastodonInstance({ statuses: 120 });
  // The default instance stands in for X-Social-Instance (megalodon cannot send extra headers).
  h = await timelinesHarness({ defaultInstance: instance.host, timelineRecommendations: 'boost' });
  await h.app.listen({ host: '127.0.0.1', port: 0 });
  const address = h.app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no address');
  base = `http://127.0.0.1:${address.port}`;
  // Candidates by authors the instance does not know: they are never on its pages. A month older
  // than the instance's statuses, so that statuses it holds (below) rank first and can be favourited there.
  const own = instance.publicTimeline().slice(0, 10);
  const copies = Array.from({ length: 6 }, (_, a) =>
    own.slice(0, 4).map((status, k) => ({
      ...status,
      id: `8${a}0${k}${status.id as string}`.slice(0, 24),
      uri: `https://copies.example/users/c${a}/statuses/${k}`,
      url: null,
      created_at: new Date(Date.parse(status.created_at as string) - 30 * 86_400_000).toISOString(),
      account: { ...(status.account as Json), id: `c${a}`, username: `copy${a}`, acct: `copy${a}@copies.example`, note: '' },
    })),
  ).flat();
  await h.seed(copies, instance);
  // Local candidates the instance's local timeline does not list (newsbot's, under ids and uris
  // it never gave out): all it could show of a local candidate with an id below a page's is on a
  // later page of the same walk, which the service does not weave in (it would come twice).
  const newsbot = instance.publicTimeline().filter((status) => (status.account as Json).username === 'newsbot');
  const localCopies = newsbot.slice(0, 4).map((status, k) => ({
    ...status,
    id: `9${k}00${status.id as string}`.slice(0, 24),
    uri: `${status.uri as string}-copy-${k}`,
    url: null,
  }));
  await h.seed(localCopies, instance);
  // And statuses the instance really has, by accounts the users do not follow: favourites of them reach it.
  await h.seed(unfollowedStatuses(instance), instance);
});

afterAll(async () => {
  await h.close();
  await instance.close();
});

async function walk(paginator: AsyncIterable<mastodon.v1.Status[]>): Promise<mastodon.v1.Status[][]> {
  const pages: mastodon.v1.Status[][] = [];
  for await (const page of paginator) {
    pages.push(page);
    if (pages.length > 100) throw new Error('paging does not end');
  }
  return pages;
}

/** What a client needs of a status: its id, date, account and what it wraps. */
interface Shown {
  id: string;
  createdAt: string;
  account: { acct: string; displayName: string; bot: boolean | null };
  reblog: { id: string; account: { username: string } } | null;
}

function fromMasto(status: mastodon.v1.Status): Shown {
  return {
    id: status.id,
    createdAt: status.createdAt,
    account: { acct: status.account.acct, displayName: status.account.displayName, bot: status.account.bot },
    reblog: status.reblog ? { id: status.reblog.id, account: { username: status.reblog.account.username } } : null,
  };
}

function fromMegalodon(status: Entity.Status): Shown {
  return {
    id: status.id,
    createdAt: status.created_at,
    account: { acct: status.account.acct, displayName: status.account.display_name, bot: status.account.bot },
    reblog: status.reblog ? { id: status.reblog.id, account: { username: status.reblog.account.username } } : null,
  };
}

/** The wrapped ids of recommendations the instance really holds (the copies' authors are on no instance). */
function atInstance(injected: readonly Shown[]): string[] {
  const ids = injected.flatMap((status) => (status.reblog && instance.status(status.reblog.id) ? [status.reblog.id] : []));
  expect(ids.length, 'recommendations of statuses the instance holds').toBeGreaterThan(0);
  return ids;
}

const isRecommendation = (status: Shown): boolean => status.account.acct.startsWith('recommended@');

/** A client sorting the page by created_at, newest first (Phanpy): stable, as Array.prototype.sort is. */
const byDate = (page: readonly Shown[]): Shown[] => [...page].sort((x, y) => Date.parse(y.createdAt) - Date.parse(x.createdAt));

/**
 * The walk's checks: nothing twice, the instance's statuses all there in order, recommendations
 * on every full page as boosts of the copies, and each page's order kept by a sort on created_at.
 */
function check(pages: readonly Shown[][], expected: readonly Json[]): Shown[] {
  const all = pages.flat();
  expect(new Set(all.map((status) => status.id)).size, 'no repeated id').toBe(all.length);
  const injected = all.filter(isRecommendation);
  const real = all.filter((status) => !isRecommendation(status));
  expect(real.map((status) => status.id)).toEqual(expected.map((status) => status.id));
  // What a recommendation wraps is shown nowhere else, neither as itself nor as what a real boost wraps.
  const elsewhere = real.flatMap((status) => [status.id, ...(status.reblog ? [status.reblog.id] : [])]);
  const wrapped = injected.map((status) => status.reblog?.id);
  expect(new Set(wrapped).size, 'no recommendation twice').toBe(wrapped.length);
  expect(wrapped.filter((id) => id !== undefined && elsewhere.includes(id))).toEqual([]);
  for (const page of pages.filter((p) => p.length >= 5)) expect(page.some(isRecommendation), 'recommendations on a full page').toBe(true);
  expect(injected.length).toBeGreaterThan(0);
  for (const status of injected) {
    expect(status.account.displayName).toMatch(/^Recommended/);
    expect(status.account.bot).toBe(true);
    expect(status.reblog?.id).toEqual(expect.any(String));
  }
  for (const page of pages) {
    // The instance's own order is by date (the precondition), and the woven page keeps it.
    const realOfPage = page.filter((status) => !isRecommendation(status));
    expect(byDate(realOfPage).map((s) => s.id)).toEqual(realOfPage.map((s) => s.id));
    expect(
      byDate(page).map((s) => s.id),
      'a page sorted by created_at keeps its recommendations in place',
    ).toEqual(page.map((s) => s.id));
    // Never first on a page (planSeamlessInsertions), so a client's view starts with the instance's status.
    if (page[0]) expect(isRecommendation(page[0])).toBe(false);
  }
  return injected;
}

/** The reader's favourites of `localId` as the instance holds them, and as the service recorded them. */
async function favouriteRecorded(localId: string, viewer: number): Promise<{ atInstance: boolean; interactions: number }> {
  const atInstance = instance.status(localId, viewer)?.favourited === true;
  const postId = await serviceIdOf(h.database, instance.host, localId);
  const rows = await h.database.db
    .selectFrom('interactions')
    .select('user_id')
    .where('post_id', '=', postId ?? '')
    .where('action_type', '=', 'favorite')
    .execute();
  return { atInstance, interactions: rows.length };
}

describe('masto.js through the service', () => {
  it('walks the home timeline: no repeats, recommendations as boosts in place, a favourite of one reaches the instance', async () => {
    const token = instance.issueToken(0);
    const client = createRestAPIClient({ url: base, accessToken: token, requestInit: { headers: { 'X-Social-Instance': instance.host } } });
    const raw = await walk(client.v1.timelines.home.list({ limit: 10 }));
    expect(raw.length).toBeGreaterThan(2);
    const injected = check(
      raw.map((page) => page.map(fromMasto)),
      instance.homeTimeline(0),
    );
    // recsvc-aware clients still read the fields (camel-cased by masto.js) on the wrapper.
    const wrapper = raw.flat().find((status) => status.id === injected[0]!.id) as mastodon.v1.Status & {
      isRecommendation?: boolean;
      recommendationMetadata?: { reasonCode?: string };
    };
    expect(wrapper.isRecommendation).toBe(true);
    expect(wrapper.recommendationMetadata?.reasonCode).toEqual(expect.any(String));

    const target = atInstance(injected)[0]!;
    expect((await favouriteRecorded(target, 0)).atInstance).toBe(false);
    const favourited = await client.v1.statuses.$select(target).favourite();
    expect(favourited).toMatchObject({ id: target, favourited: true });
    expect(await favouriteRecorded(target, 0)).toEqual({ atInstance: true, interactions: 1 });
    // Operators see how many recommendations went to readers of each instance.
    const metrics = await (await fetch(`${base}/metrics`)).text();
    const counted = new RegExp(`^service_instance_injected_statuses_total\\{instance="${instance.host}"\\} (\\d+)$`, 'm').exec(metrics);
    expect(Number(counted?.[1])).toBeGreaterThanOrEqual(injected.length);
  });

  it('walks the remote public timeline (default instance): the candidates, all remote, belong on it', async () => {
    const client = createRestAPIClient({ url: base, accessToken: instance.issueToken(1) });
    const pages = await walk(client.v1.timelines.public.list({ remote: true, limit: 15 }));
    check(
      pages.map((page) => page.map(fromMasto)),
      instance.publicTimeline({ remote: true }),
    );
  });

  it('walks the local public timeline with only local candidates woven in', async () => {
    const client = createRestAPIClient({ url: base, accessToken: instance.issueToken(1) });
    const pages = await walk(client.v1.timelines.public.list({ local: true, limit: 15 }));
    const all = pages.flat().map(fromMasto);
    expect(all.filter((status) => !isRecommendation(status)).map((status) => status.id)).toEqual(
      instance.publicTimeline({ local: true }).map((status) => status.id),
    );
    // Only the instance's own authors' statuses (newsbot's) are woven in: never a copy's or ivan's.
    expect(new Set(all.filter(isRecommendation).map((status) => status.reblog?.account.username))).toEqual(new Set(['newsbot']));
    // ...and none the instance shows itself on this walk (newsbot's own statuses are on it).
    const real = new Set(all.filter((status) => !isRecommendation(status)).map((status) => status.id));
    expect(all.filter(isRecommendation).filter((status) => real.has(status.reblog?.id ?? ''))).toEqual([]);
  });
});

describe('megalodon through the service', () => {
  it('walks the home timeline by its Link header: boosts kept by the converter, in place, and a favourite reaches the instance', async () => {
    const client = generator('mastodon', base, instance.issueToken(2));
    const pages: Shown[][] = [];
    let maxId: string | undefined;
    for (;;) {
      const response = await client.getHomeTimeline({ limit: 5, ...(maxId ? { max_id: maxId } : {}) });
      expect(response.status).toBe(200);
      if (response.data.length === 0) break;
      pages.push(response.data.map(fromMegalodon));
      const link = (response.headers as Record<string, string | undefined>).link ?? '';
      const next = /<([^>]+)>;\s*rel="next"/.exec(link)?.[1];
      maxId = next === undefined ? undefined : (new URL(next).searchParams.get('max_id') ?? undefined);
      if (maxId === undefined || pages.length > 100) break;
    }
    expect(pages.length).toBeGreaterThan(2);
    const injected = check(pages, instance.homeTimeline(2));
    const target = atInstance(injected).at(-1)!;
    const favourited = await client.favouriteStatus(target);
    expect(favourited.data).toMatchObject({ id: target, favourited: true });
    expect(await favouriteRecorded(target, 2)).toEqual({ atInstance: true, interactions: 1 });
  });
});
